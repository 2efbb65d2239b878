"""Results of the client's commands: frozen dataclasses with snake_case fields (never the
generated protocol classes). Keys are exact Python ints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Tuple

from ._json import parse_json_value, parse_variables

__all__ = [
    "Partition",
    "Broker",
    "Topology",
    "Process",
    "Deployment",
    "ProcessInstance",
    "ProcessInstanceResult",
    "DecisionEvaluation",
    "EvaluatedDecision",
    "MatchedRule",
    "EvaluatedInput",
    "EvaluatedOutput",
]


@dataclass(frozen=True)
class Partition:
    """A partition as seen by one broker."""

    partition_id: int
    """Partition id, from 1."""
    role: str
    """``LEADER``, ``FOLLOWER`` or ``INACTIVE``."""
    health: str
    """``HEALTHY``, ``UNHEALTHY`` or ``DEAD``."""


@dataclass(frozen=True)
class Broker:
    """A broker of the cluster."""

    node_id: int
    """Node id of the broker in the cluster."""
    host: str
    """Host name or address the broker advertises."""
    port: int
    """Port the broker advertises."""
    version: str
    """Broker version."""
    partitions: Tuple[Partition, ...]
    """The partitions this broker takes part in, with its role and health in each."""


@dataclass(frozen=True)
class Topology:
    """Result of :meth:`jobwire.Client.topology`."""

    brokers: Tuple[Broker, ...]
    """The brokers of the cluster."""
    cluster_size: int
    """Number of brokers in the cluster."""
    partitions_count: int
    """Number of partitions."""
    replication_factor: int
    """Number of copies of each partition."""
    gateway_version: str
    """Version of the gateway that answered."""


@dataclass(frozen=True)
class Process:
    """A process deployed by :meth:`jobwire.Client.deploy_resource`."""

    bpmn_process_id: str
    """The process id from the BPMN file."""
    version: int
    """Version the engine assigned to this deployment of the process."""
    process_definition_key: int
    """Key of the process definition."""
    resource_name: str
    """Name of the deployed resource that holds the process."""
    tenant_id: str
    """Tenant the process was deployed to."""


@dataclass(frozen=True)
class Deployment:
    """Result of :meth:`jobwire.Client.deploy_resource` (decisions and forms are not listed)."""

    key: int
    """Deployment key."""
    tenant_id: str
    """Tenant the resources were deployed to."""
    processes: Tuple[Process, ...]
    """The processes of the deployment."""


@dataclass(frozen=True)
class ProcessInstance:
    """Result of :meth:`jobwire.Client.create_process_instance`."""

    process_definition_key: int
    """Key of the process definition the instance runs."""
    bpmn_process_id: str
    """The process id from the BPMN file."""
    version: int
    """Version of the process definition the instance runs."""
    process_instance_key: int
    """Key of the new process instance."""
    tenant_id: str
    """Tenant of the instance."""


@dataclass(frozen=True)
class ProcessInstanceResult:
    """Result of :meth:`jobwire.Client.create_process_instance_with_result`."""

    process_definition_key: int
    """Key of the process definition the instance ran."""
    bpmn_process_id: str
    """The process id from the BPMN file."""
    version: int
    """Version of the process definition the instance ran."""
    process_instance_key: int
    """Key of the process instance."""
    tenant_id: str
    """Tenant of the instance."""
    variables: Dict[str, Any]
    """Final variables, parsed losslessly."""
    variables_json: str
    """Final variables, raw JSON text."""


@dataclass(frozen=True)
class EvaluatedInput:
    """An input of a decision table and the value it had in the evaluation."""

    input_id: str
    """The input's id in the DMN file."""
    input_name: str
    """The input's label (or expression)."""
    input_value: Any
    """The value, parsed losslessly from ``input_value_json``."""
    input_value_json: str
    """The value as a JSON document, as the engine sent it."""


@dataclass(frozen=True)
class EvaluatedOutput:
    """An output of a matched rule."""

    output_id: str
    """The output's id in the DMN file."""
    output_name: str
    """The output's name."""
    output_value: Any
    """The value, parsed losslessly from ``output_value_json``."""
    output_value_json: str
    """The value as a JSON document, as the engine sent it."""


@dataclass(frozen=True)
class MatchedRule:
    """A rule of a decision table that matched."""

    rule_id: str
    """The rule's id in the DMN file."""
    rule_index: int
    """1-based position of the rule in the table."""
    evaluated_outputs: Tuple[EvaluatedOutput, ...]
    """The rule's outputs."""


@dataclass(frozen=True)
class EvaluatedDecision:
    """One decision evaluated by :meth:`jobwire.Client.evaluate_decision`: the decision asked for, or
    one it required."""

    decision_key: int
    """Key of the decision."""
    decision_id: str
    """The decision's id in the DMN file."""
    decision_name: str
    """The decision's name."""
    decision_version: int
    """Version of the decision."""
    decision_type: str
    """``DECISION_TABLE`` or ``LITERAL_EXPRESSION``."""
    decision_output: Any
    """The output, parsed losslessly from ``decision_output_json``."""
    decision_output_json: str
    """The output as a JSON document, as the engine sent it."""
    matched_rules: Tuple[MatchedRule, ...]
    """The rules that matched (decision tables only)."""
    evaluated_inputs: Tuple[EvaluatedInput, ...]
    """The inputs and their values (decision tables only)."""
    tenant_id: str
    """Tenant of the decision."""


@dataclass(frozen=True)
class DecisionEvaluation:
    """Result of :meth:`jobwire.Client.evaluate_decision`. A decision that failed to evaluate is a
    result too: ``failed_decision_id`` and ``failure_message`` are then set."""

    decision_key: int
    """Key of the evaluated decision."""
    decision_id: str
    """The decision's id in the DMN file."""
    decision_name: str
    """The decision's name."""
    decision_version: int
    """Version of the decision."""
    decision_requirements_id: str
    """Id of the decision requirements graph (the DMN file's definitions)."""
    decision_requirements_key: int
    """Key of the decision requirements graph."""
    decision_output: Any
    """The output, parsed losslessly from ``decision_output_json`` (``None`` when evaluation failed)."""
    decision_output_json: str
    """The output as a JSON document, as the engine sent it."""
    evaluated_decisions: Tuple[EvaluatedDecision, ...]
    """The decision and every decision it required, in evaluation order."""
    failed_decision_id: str
    """The decision that failed to evaluate; empty on success."""
    failure_message: str
    """Why evaluation failed; empty on success."""
    tenant_id: str
    """Tenant of the decision."""
    decision_instance_key: int
    """Key of this evaluation."""


# --- from the wire answers (internal) -------------------------------------------------------

_ROLES = {0: "LEADER", 1: "FOLLOWER", 2: "INACTIVE"}
_HEALTH = {0: "HEALTHY", 1: "UNHEALTHY", 2: "DEAD"}


def _topology(r: Any) -> Topology:
    return Topology(
        brokers=tuple(
            Broker(
                node_id=b.nodeId,
                host=b.host,
                port=b.port,
                version=b.version,
                partitions=tuple(
                    Partition(partition_id=p.partitionId, role=_ROLES.get(p.role, str(p.role)), health=_HEALTH.get(p.health, str(p.health)))
                    for p in b.partitions
                ),
            )
            for b in r.brokers
        ),
        cluster_size=r.clusterSize,
        partitions_count=r.partitionsCount,
        replication_factor=r.replicationFactor,
        gateway_version=r.gatewayVersion,
    )


def _deployment(r: Any) -> Deployment:
    processes = tuple(
        Process(
            bpmn_process_id=d.process.bpmnProcessId,
            version=d.process.version,
            process_definition_key=d.process.processDefinitionKey,
            resource_name=d.process.resourceName,
            tenant_id=d.process.tenantId,
        )
        for d in r.deployments
        if d.HasField("process")
    )
    return Deployment(key=r.key, tenant_id=r.tenantId, processes=processes)


def _process_instance(r: Any) -> ProcessInstance:
    return ProcessInstance(
        process_definition_key=r.processDefinitionKey,
        bpmn_process_id=r.bpmnProcessId,
        version=r.version,
        process_instance_key=r.processInstanceKey,
        tenant_id=r.tenantId,
    )


def _process_instance_result(r: Any) -> ProcessInstanceResult:
    return ProcessInstanceResult(
        process_definition_key=r.processDefinitionKey,
        bpmn_process_id=r.bpmnProcessId,
        version=r.version,
        process_instance_key=r.processInstanceKey,
        tenant_id=r.tenantId,
        variables=parse_variables(r.variables or "{}"),
        variables_json=r.variables or "{}",
    )


def _decision_evaluation(r: Any) -> DecisionEvaluation:
    return DecisionEvaluation(
        decision_key=r.decisionKey,
        decision_id=r.decisionId,
        decision_name=r.decisionName,
        decision_version=r.decisionVersion,
        decision_requirements_id=r.decisionRequirementsId,
        decision_requirements_key=r.decisionRequirementsKey,
        decision_output=parse_json_value(r.decisionOutput),
        decision_output_json=r.decisionOutput,
        evaluated_decisions=tuple(
            EvaluatedDecision(
                decision_key=d.decisionKey,
                decision_id=d.decisionId,
                decision_name=d.decisionName,
                decision_version=d.decisionVersion,
                decision_type=d.decisionType,
                decision_output=parse_json_value(d.decisionOutput),
                decision_output_json=d.decisionOutput,
                matched_rules=tuple(
                    MatchedRule(
                        rule_id=m.ruleId,
                        rule_index=m.ruleIndex,
                        evaluated_outputs=tuple(
                            EvaluatedOutput(
                                output_id=o.outputId,
                                output_name=o.outputName,
                                output_value=parse_json_value(o.outputValue),
                                output_value_json=o.outputValue,
                            )
                            for o in m.evaluatedOutputs
                        ),
                    )
                    for m in d.matchedRules
                ),
                evaluated_inputs=tuple(
                    EvaluatedInput(
                        input_id=i.inputId,
                        input_name=i.inputName,
                        input_value=parse_json_value(i.inputValue),
                        input_value_json=i.inputValue,
                    )
                    for i in d.evaluatedInputs
                ),
                tenant_id=d.tenantId,
            )
            for d in r.evaluatedDecisions
        ),
        failed_decision_id=r.failedDecisionId,
        failure_message=r.failureMessage,
        tenant_id=r.tenantId,
        decision_instance_key=r.decisionInstanceKey,
    )
