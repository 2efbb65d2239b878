"""Results of the client's commands: frozen dataclasses with snake_case fields (never the
generated protocol classes). Keys are exact Python ints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Tuple

from ._json import parse_variables

__all__ = ["Partition", "Broker", "Topology", "Process", "Deployment", "ProcessInstance", "ProcessInstanceResult"]


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
