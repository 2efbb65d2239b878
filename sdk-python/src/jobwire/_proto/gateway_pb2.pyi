from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ActivateJobsRequest(_message.Message):
    __slots__ = ["fetchVariable", "maxJobsToActivate", "requestTimeout", "tenantIds", "timeout", "type", "worker"]
    FETCHVARIABLE_FIELD_NUMBER: _ClassVar[int]
    MAXJOBSTOACTIVATE_FIELD_NUMBER: _ClassVar[int]
    REQUESTTIMEOUT_FIELD_NUMBER: _ClassVar[int]
    TENANTIDS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    fetchVariable: _containers.RepeatedScalarFieldContainer[str]
    maxJobsToActivate: int
    requestTimeout: int
    tenantIds: _containers.RepeatedScalarFieldContainer[str]
    timeout: int
    type: str
    worker: str
    def __init__(self, type: _Optional[str] = ..., worker: _Optional[str] = ..., timeout: _Optional[int] = ..., maxJobsToActivate: _Optional[int] = ..., fetchVariable: _Optional[_Iterable[str]] = ..., requestTimeout: _Optional[int] = ..., tenantIds: _Optional[_Iterable[str]] = ...) -> None: ...

class ActivateJobsResponse(_message.Message):
    __slots__ = ["jobs"]
    JOBS_FIELD_NUMBER: _ClassVar[int]
    jobs: _containers.RepeatedCompositeFieldContainer[ActivatedJob]
    def __init__(self, jobs: _Optional[_Iterable[_Union[ActivatedJob, _Mapping]]] = ...) -> None: ...

class ActivatedJob(_message.Message):
    __slots__ = ["bpmnProcessId", "customHeaders", "deadline", "elementId", "elementInstanceKey", "key", "kind", "listenerEventType", "processDefinitionKey", "processDefinitionVersion", "processInstanceKey", "retries", "tags", "tenantId", "type", "userTask", "variables", "worker"]
    class JobKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = []
    class ListenerEventType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = []
    AD_HOC_SUB_PROCESS: ActivatedJob.JobKind
    ASSIGNING: ActivatedJob.ListenerEventType
    BPMNPROCESSID_FIELD_NUMBER: _ClassVar[int]
    BPMN_ELEMENT: ActivatedJob.JobKind
    CANCELING: ActivatedJob.ListenerEventType
    COMPLETING: ActivatedJob.ListenerEventType
    CREATING: ActivatedJob.ListenerEventType
    CUSTOMHEADERS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    ELEMENTID_FIELD_NUMBER: _ClassVar[int]
    ELEMENTINSTANCEKEY_FIELD_NUMBER: _ClassVar[int]
    END: ActivatedJob.ListenerEventType
    EXECUTION_LISTENER: ActivatedJob.JobKind
    KEY_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    LISTENEREVENTTYPE_FIELD_NUMBER: _ClassVar[int]
    PROCESSDEFINITIONKEY_FIELD_NUMBER: _ClassVar[int]
    PROCESSDEFINITIONVERSION_FIELD_NUMBER: _ClassVar[int]
    PROCESSINSTANCEKEY_FIELD_NUMBER: _ClassVar[int]
    RETRIES_FIELD_NUMBER: _ClassVar[int]
    START: ActivatedJob.ListenerEventType
    TAGS_FIELD_NUMBER: _ClassVar[int]
    TASK_LISTENER: ActivatedJob.JobKind
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    UNSPECIFIED: ActivatedJob.ListenerEventType
    UPDATING: ActivatedJob.ListenerEventType
    USERTASK_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    bpmnProcessId: str
    customHeaders: str
    deadline: int
    elementId: str
    elementInstanceKey: int
    key: int
    kind: ActivatedJob.JobKind
    listenerEventType: ActivatedJob.ListenerEventType
    processDefinitionKey: int
    processDefinitionVersion: int
    processInstanceKey: int
    retries: int
    tags: _containers.RepeatedScalarFieldContainer[str]
    tenantId: str
    type: str
    userTask: UserTaskProperties
    variables: str
    worker: str
    def __init__(self, key: _Optional[int] = ..., type: _Optional[str] = ..., processInstanceKey: _Optional[int] = ..., bpmnProcessId: _Optional[str] = ..., processDefinitionVersion: _Optional[int] = ..., processDefinitionKey: _Optional[int] = ..., elementId: _Optional[str] = ..., elementInstanceKey: _Optional[int] = ..., customHeaders: _Optional[str] = ..., worker: _Optional[str] = ..., retries: _Optional[int] = ..., deadline: _Optional[int] = ..., variables: _Optional[str] = ..., tenantId: _Optional[str] = ..., userTask: _Optional[_Union[UserTaskProperties, _Mapping]] = ..., kind: _Optional[_Union[ActivatedJob.JobKind, str]] = ..., listenerEventType: _Optional[_Union[ActivatedJob.ListenerEventType, str]] = ..., tags: _Optional[_Iterable[str]] = ...) -> None: ...

class BroadcastSignalRequest(_message.Message):
    __slots__ = ["signalName", "tenantId", "variables"]
    SIGNALNAME_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    signalName: str
    tenantId: str
    variables: str
    def __init__(self, signalName: _Optional[str] = ..., variables: _Optional[str] = ..., tenantId: _Optional[str] = ...) -> None: ...

class BroadcastSignalResponse(_message.Message):
    __slots__ = ["key", "tenantId"]
    KEY_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    key: int
    tenantId: str
    def __init__(self, key: _Optional[int] = ..., tenantId: _Optional[str] = ...) -> None: ...

class BrokerInfo(_message.Message):
    __slots__ = ["host", "nodeId", "partitions", "port", "version"]
    HOST_FIELD_NUMBER: _ClassVar[int]
    NODEID_FIELD_NUMBER: _ClassVar[int]
    PARTITIONS_FIELD_NUMBER: _ClassVar[int]
    PORT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    host: str
    nodeId: int
    partitions: _containers.RepeatedCompositeFieldContainer[Partition]
    port: int
    version: str
    def __init__(self, nodeId: _Optional[int] = ..., host: _Optional[str] = ..., port: _Optional[int] = ..., partitions: _Optional[_Iterable[_Union[Partition, _Mapping]]] = ..., version: _Optional[str] = ...) -> None: ...

class CancelProcessInstanceRequest(_message.Message):
    __slots__ = ["operationReference", "processInstanceKey"]
    OPERATIONREFERENCE_FIELD_NUMBER: _ClassVar[int]
    PROCESSINSTANCEKEY_FIELD_NUMBER: _ClassVar[int]
    operationReference: int
    processInstanceKey: int
    def __init__(self, processInstanceKey: _Optional[int] = ..., operationReference: _Optional[int] = ...) -> None: ...

class CancelProcessInstanceResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class CompleteJobRequest(_message.Message):
    __slots__ = ["jobKey", "result", "variables"]
    JOBKEY_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    jobKey: int
    result: JobResult
    variables: str
    def __init__(self, jobKey: _Optional[int] = ..., variables: _Optional[str] = ..., result: _Optional[_Union[JobResult, _Mapping]] = ...) -> None: ...

class CompleteJobResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class CreateProcessInstanceRequest(_message.Message):
    __slots__ = ["bpmnProcessId", "operationReference", "processDefinitionKey", "runtimeInstructions", "startInstructions", "tags", "tenantId", "variables", "version"]
    BPMNPROCESSID_FIELD_NUMBER: _ClassVar[int]
    OPERATIONREFERENCE_FIELD_NUMBER: _ClassVar[int]
    PROCESSDEFINITIONKEY_FIELD_NUMBER: _ClassVar[int]
    RUNTIMEINSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
    STARTINSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    bpmnProcessId: str
    operationReference: int
    processDefinitionKey: int
    runtimeInstructions: _containers.RepeatedCompositeFieldContainer[ProcessInstanceCreationRuntimeInstruction]
    startInstructions: _containers.RepeatedCompositeFieldContainer[ProcessInstanceCreationStartInstruction]
    tags: _containers.RepeatedScalarFieldContainer[str]
    tenantId: str
    variables: str
    version: int
    def __init__(self, processDefinitionKey: _Optional[int] = ..., bpmnProcessId: _Optional[str] = ..., version: _Optional[int] = ..., variables: _Optional[str] = ..., startInstructions: _Optional[_Iterable[_Union[ProcessInstanceCreationStartInstruction, _Mapping]]] = ..., tenantId: _Optional[str] = ..., operationReference: _Optional[int] = ..., runtimeInstructions: _Optional[_Iterable[_Union[ProcessInstanceCreationRuntimeInstruction, _Mapping]]] = ..., tags: _Optional[_Iterable[str]] = ...) -> None: ...

class CreateProcessInstanceResponse(_message.Message):
    __slots__ = ["bpmnProcessId", "processDefinitionKey", "processInstanceKey", "tags", "tenantId", "version"]
    BPMNPROCESSID_FIELD_NUMBER: _ClassVar[int]
    PROCESSDEFINITIONKEY_FIELD_NUMBER: _ClassVar[int]
    PROCESSINSTANCEKEY_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    bpmnProcessId: str
    processDefinitionKey: int
    processInstanceKey: int
    tags: _containers.RepeatedScalarFieldContainer[str]
    tenantId: str
    version: int
    def __init__(self, processDefinitionKey: _Optional[int] = ..., bpmnProcessId: _Optional[str] = ..., version: _Optional[int] = ..., processInstanceKey: _Optional[int] = ..., tenantId: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ...) -> None: ...

class CreateProcessInstanceWithResultRequest(_message.Message):
    __slots__ = ["fetchVariables", "request", "requestTimeout"]
    FETCHVARIABLES_FIELD_NUMBER: _ClassVar[int]
    REQUESTTIMEOUT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    fetchVariables: _containers.RepeatedScalarFieldContainer[str]
    request: CreateProcessInstanceRequest
    requestTimeout: int
    def __init__(self, request: _Optional[_Union[CreateProcessInstanceRequest, _Mapping]] = ..., requestTimeout: _Optional[int] = ..., fetchVariables: _Optional[_Iterable[str]] = ...) -> None: ...

class CreateProcessInstanceWithResultResponse(_message.Message):
    __slots__ = ["bpmnProcessId", "processDefinitionKey", "processInstanceKey", "tags", "tenantId", "variables", "version"]
    BPMNPROCESSID_FIELD_NUMBER: _ClassVar[int]
    PROCESSDEFINITIONKEY_FIELD_NUMBER: _ClassVar[int]
    PROCESSINSTANCEKEY_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    bpmnProcessId: str
    processDefinitionKey: int
    processInstanceKey: int
    tags: _containers.RepeatedScalarFieldContainer[str]
    tenantId: str
    variables: str
    version: int
    def __init__(self, processDefinitionKey: _Optional[int] = ..., bpmnProcessId: _Optional[str] = ..., version: _Optional[int] = ..., processInstanceKey: _Optional[int] = ..., variables: _Optional[str] = ..., tenantId: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ...) -> None: ...

class DecisionMetadata(_message.Message):
    __slots__ = ["decisionKey", "decisionRequirementsKey", "dmnDecisionId", "dmnDecisionName", "dmnDecisionRequirementsId", "tenantId", "version"]
    DECISIONKEY_FIELD_NUMBER: _ClassVar[int]
    DECISIONREQUIREMENTSKEY_FIELD_NUMBER: _ClassVar[int]
    DMNDECISIONID_FIELD_NUMBER: _ClassVar[int]
    DMNDECISIONNAME_FIELD_NUMBER: _ClassVar[int]
    DMNDECISIONREQUIREMENTSID_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    decisionKey: int
    decisionRequirementsKey: int
    dmnDecisionId: str
    dmnDecisionName: str
    dmnDecisionRequirementsId: str
    tenantId: str
    version: int
    def __init__(self, dmnDecisionId: _Optional[str] = ..., dmnDecisionName: _Optional[str] = ..., version: _Optional[int] = ..., decisionKey: _Optional[int] = ..., dmnDecisionRequirementsId: _Optional[str] = ..., decisionRequirementsKey: _Optional[int] = ..., tenantId: _Optional[str] = ...) -> None: ...

class DecisionRequirementsMetadata(_message.Message):
    __slots__ = ["decisionRequirementsKey", "dmnDecisionRequirementsId", "dmnDecisionRequirementsName", "resourceName", "tenantId", "version"]
    DECISIONREQUIREMENTSKEY_FIELD_NUMBER: _ClassVar[int]
    DMNDECISIONREQUIREMENTSID_FIELD_NUMBER: _ClassVar[int]
    DMNDECISIONREQUIREMENTSNAME_FIELD_NUMBER: _ClassVar[int]
    RESOURCENAME_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    decisionRequirementsKey: int
    dmnDecisionRequirementsId: str
    dmnDecisionRequirementsName: str
    resourceName: str
    tenantId: str
    version: int
    def __init__(self, dmnDecisionRequirementsId: _Optional[str] = ..., dmnDecisionRequirementsName: _Optional[str] = ..., version: _Optional[int] = ..., decisionRequirementsKey: _Optional[int] = ..., resourceName: _Optional[str] = ..., tenantId: _Optional[str] = ...) -> None: ...

class DeleteResourceRequest(_message.Message):
    __slots__ = ["operationReference", "resourceKey"]
    OPERATIONREFERENCE_FIELD_NUMBER: _ClassVar[int]
    RESOURCEKEY_FIELD_NUMBER: _ClassVar[int]
    operationReference: int
    resourceKey: int
    def __init__(self, resourceKey: _Optional[int] = ..., operationReference: _Optional[int] = ...) -> None: ...

class DeleteResourceResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class DeployResourceRequest(_message.Message):
    __slots__ = ["resources", "tenantId"]
    RESOURCES_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    resources: _containers.RepeatedCompositeFieldContainer[Resource]
    tenantId: str
    def __init__(self, resources: _Optional[_Iterable[_Union[Resource, _Mapping]]] = ..., tenantId: _Optional[str] = ...) -> None: ...

class DeployResourceResponse(_message.Message):
    __slots__ = ["deployments", "key", "tenantId"]
    DEPLOYMENTS_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    deployments: _containers.RepeatedCompositeFieldContainer[Deployment]
    key: int
    tenantId: str
    def __init__(self, key: _Optional[int] = ..., deployments: _Optional[_Iterable[_Union[Deployment, _Mapping]]] = ..., tenantId: _Optional[str] = ...) -> None: ...

class Deployment(_message.Message):
    __slots__ = ["decision", "decisionRequirements", "form", "process"]
    DECISIONREQUIREMENTS_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    FORM_FIELD_NUMBER: _ClassVar[int]
    PROCESS_FIELD_NUMBER: _ClassVar[int]
    decision: DecisionMetadata
    decisionRequirements: DecisionRequirementsMetadata
    form: FormMetadata
    process: ProcessMetadata
    def __init__(self, process: _Optional[_Union[ProcessMetadata, _Mapping]] = ..., decision: _Optional[_Union[DecisionMetadata, _Mapping]] = ..., decisionRequirements: _Optional[_Union[DecisionRequirementsMetadata, _Mapping]] = ..., form: _Optional[_Union[FormMetadata, _Mapping]] = ...) -> None: ...

class EvaluateDecisionRequest(_message.Message):
    __slots__ = ["decisionId", "decisionKey", "tenantId", "variables"]
    DECISIONID_FIELD_NUMBER: _ClassVar[int]
    DECISIONKEY_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    decisionId: str
    decisionKey: int
    tenantId: str
    variables: str
    def __init__(self, decisionKey: _Optional[int] = ..., decisionId: _Optional[str] = ..., variables: _Optional[str] = ..., tenantId: _Optional[str] = ...) -> None: ...

class EvaluateDecisionResponse(_message.Message):
    __slots__ = ["decisionEvaluationKey", "decisionId", "decisionInstanceKey", "decisionKey", "decisionName", "decisionOutput", "decisionRequirementsId", "decisionRequirementsKey", "decisionVersion", "evaluatedDecisions", "failedDecisionId", "failureMessage", "tenantId"]
    DECISIONEVALUATIONKEY_FIELD_NUMBER: _ClassVar[int]
    DECISIONID_FIELD_NUMBER: _ClassVar[int]
    DECISIONINSTANCEKEY_FIELD_NUMBER: _ClassVar[int]
    DECISIONKEY_FIELD_NUMBER: _ClassVar[int]
    DECISIONNAME_FIELD_NUMBER: _ClassVar[int]
    DECISIONOUTPUT_FIELD_NUMBER: _ClassVar[int]
    DECISIONREQUIREMENTSID_FIELD_NUMBER: _ClassVar[int]
    DECISIONREQUIREMENTSKEY_FIELD_NUMBER: _ClassVar[int]
    DECISIONVERSION_FIELD_NUMBER: _ClassVar[int]
    EVALUATEDDECISIONS_FIELD_NUMBER: _ClassVar[int]
    FAILEDDECISIONID_FIELD_NUMBER: _ClassVar[int]
    FAILUREMESSAGE_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    decisionEvaluationKey: int
    decisionId: str
    decisionInstanceKey: int
    decisionKey: int
    decisionName: str
    decisionOutput: str
    decisionRequirementsId: str
    decisionRequirementsKey: int
    decisionVersion: int
    evaluatedDecisions: _containers.RepeatedCompositeFieldContainer[EvaluatedDecision]
    failedDecisionId: str
    failureMessage: str
    tenantId: str
    def __init__(self, decisionKey: _Optional[int] = ..., decisionId: _Optional[str] = ..., decisionName: _Optional[str] = ..., decisionVersion: _Optional[int] = ..., decisionRequirementsId: _Optional[str] = ..., decisionRequirementsKey: _Optional[int] = ..., decisionOutput: _Optional[str] = ..., evaluatedDecisions: _Optional[_Iterable[_Union[EvaluatedDecision, _Mapping]]] = ..., failedDecisionId: _Optional[str] = ..., failureMessage: _Optional[str] = ..., tenantId: _Optional[str] = ..., decisionInstanceKey: _Optional[int] = ..., decisionEvaluationKey: _Optional[int] = ...) -> None: ...

class EvaluatedDecision(_message.Message):
    __slots__ = ["decisionEvaluationInstanceKey", "decisionId", "decisionKey", "decisionName", "decisionOutput", "decisionType", "decisionVersion", "evaluatedInputs", "matchedRules", "tenantId"]
    DECISIONEVALUATIONINSTANCEKEY_FIELD_NUMBER: _ClassVar[int]
    DECISIONID_FIELD_NUMBER: _ClassVar[int]
    DECISIONKEY_FIELD_NUMBER: _ClassVar[int]
    DECISIONNAME_FIELD_NUMBER: _ClassVar[int]
    DECISIONOUTPUT_FIELD_NUMBER: _ClassVar[int]
    DECISIONTYPE_FIELD_NUMBER: _ClassVar[int]
    DECISIONVERSION_FIELD_NUMBER: _ClassVar[int]
    EVALUATEDINPUTS_FIELD_NUMBER: _ClassVar[int]
    MATCHEDRULES_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    decisionEvaluationInstanceKey: str
    decisionId: str
    decisionKey: int
    decisionName: str
    decisionOutput: str
    decisionType: str
    decisionVersion: int
    evaluatedInputs: _containers.RepeatedCompositeFieldContainer[EvaluatedDecisionInput]
    matchedRules: _containers.RepeatedCompositeFieldContainer[MatchedDecisionRule]
    tenantId: str
    def __init__(self, decisionKey: _Optional[int] = ..., decisionId: _Optional[str] = ..., decisionName: _Optional[str] = ..., decisionVersion: _Optional[int] = ..., decisionType: _Optional[str] = ..., decisionOutput: _Optional[str] = ..., matchedRules: _Optional[_Iterable[_Union[MatchedDecisionRule, _Mapping]]] = ..., evaluatedInputs: _Optional[_Iterable[_Union[EvaluatedDecisionInput, _Mapping]]] = ..., tenantId: _Optional[str] = ..., decisionEvaluationInstanceKey: _Optional[str] = ...) -> None: ...

class EvaluatedDecisionInput(_message.Message):
    __slots__ = ["inputId", "inputName", "inputValue"]
    INPUTID_FIELD_NUMBER: _ClassVar[int]
    INPUTNAME_FIELD_NUMBER: _ClassVar[int]
    INPUTVALUE_FIELD_NUMBER: _ClassVar[int]
    inputId: str
    inputName: str
    inputValue: str
    def __init__(self, inputId: _Optional[str] = ..., inputName: _Optional[str] = ..., inputValue: _Optional[str] = ...) -> None: ...

class EvaluatedDecisionOutput(_message.Message):
    __slots__ = ["outputId", "outputName", "outputValue"]
    OUTPUTID_FIELD_NUMBER: _ClassVar[int]
    OUTPUTNAME_FIELD_NUMBER: _ClassVar[int]
    OUTPUTVALUE_FIELD_NUMBER: _ClassVar[int]
    outputId: str
    outputName: str
    outputValue: str
    def __init__(self, outputId: _Optional[str] = ..., outputName: _Optional[str] = ..., outputValue: _Optional[str] = ...) -> None: ...

class FailJobRequest(_message.Message):
    __slots__ = ["errorMessage", "jobKey", "retries", "retryBackOff", "variables"]
    ERRORMESSAGE_FIELD_NUMBER: _ClassVar[int]
    JOBKEY_FIELD_NUMBER: _ClassVar[int]
    RETRIES_FIELD_NUMBER: _ClassVar[int]
    RETRYBACKOFF_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    errorMessage: str
    jobKey: int
    retries: int
    retryBackOff: int
    variables: str
    def __init__(self, jobKey: _Optional[int] = ..., retries: _Optional[int] = ..., errorMessage: _Optional[str] = ..., retryBackOff: _Optional[int] = ..., variables: _Optional[str] = ...) -> None: ...

class FailJobResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class FormMetadata(_message.Message):
    __slots__ = ["formId", "formKey", "resourceName", "tenantId", "version"]
    FORMID_FIELD_NUMBER: _ClassVar[int]
    FORMKEY_FIELD_NUMBER: _ClassVar[int]
    RESOURCENAME_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    formId: str
    formKey: int
    resourceName: str
    tenantId: str
    version: int
    def __init__(self, formId: _Optional[str] = ..., version: _Optional[int] = ..., formKey: _Optional[int] = ..., resourceName: _Optional[str] = ..., tenantId: _Optional[str] = ...) -> None: ...

class JobResult(_message.Message):
    __slots__ = ["activateElements", "corrections", "denied", "deniedReason", "isCancelRemainingInstances", "isCompletionConditionFulfilled", "type"]
    ACTIVATEELEMENTS_FIELD_NUMBER: _ClassVar[int]
    CORRECTIONS_FIELD_NUMBER: _ClassVar[int]
    DENIEDREASON_FIELD_NUMBER: _ClassVar[int]
    DENIED_FIELD_NUMBER: _ClassVar[int]
    ISCANCELREMAININGINSTANCES_FIELD_NUMBER: _ClassVar[int]
    ISCOMPLETIONCONDITIONFULFILLED_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    activateElements: _containers.RepeatedCompositeFieldContainer[JobResultActivateElement]
    corrections: JobResultCorrections
    denied: bool
    deniedReason: str
    isCancelRemainingInstances: bool
    isCompletionConditionFulfilled: bool
    type: str
    def __init__(self, denied: bool = ..., corrections: _Optional[_Union[JobResultCorrections, _Mapping]] = ..., deniedReason: _Optional[str] = ..., type: _Optional[str] = ..., activateElements: _Optional[_Iterable[_Union[JobResultActivateElement, _Mapping]]] = ..., isCompletionConditionFulfilled: bool = ..., isCancelRemainingInstances: bool = ...) -> None: ...

class JobResultActivateElement(_message.Message):
    __slots__ = ["elementId", "variables"]
    ELEMENTID_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    elementId: str
    variables: str
    def __init__(self, elementId: _Optional[str] = ..., variables: _Optional[str] = ...) -> None: ...

class JobResultCorrections(_message.Message):
    __slots__ = ["assignee", "candidateGroups", "candidateUsers", "dueDate", "followUpDate", "priority"]
    ASSIGNEE_FIELD_NUMBER: _ClassVar[int]
    CANDIDATEGROUPS_FIELD_NUMBER: _ClassVar[int]
    CANDIDATEUSERS_FIELD_NUMBER: _ClassVar[int]
    DUEDATE_FIELD_NUMBER: _ClassVar[int]
    FOLLOWUPDATE_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    assignee: str
    candidateGroups: StringList
    candidateUsers: StringList
    dueDate: str
    followUpDate: str
    priority: int
    def __init__(self, assignee: _Optional[str] = ..., dueDate: _Optional[str] = ..., followUpDate: _Optional[str] = ..., candidateUsers: _Optional[_Union[StringList, _Mapping]] = ..., candidateGroups: _Optional[_Union[StringList, _Mapping]] = ..., priority: _Optional[int] = ...) -> None: ...

class MatchedDecisionRule(_message.Message):
    __slots__ = ["evaluatedOutputs", "ruleId", "ruleIndex"]
    EVALUATEDOUTPUTS_FIELD_NUMBER: _ClassVar[int]
    RULEID_FIELD_NUMBER: _ClassVar[int]
    RULEINDEX_FIELD_NUMBER: _ClassVar[int]
    evaluatedOutputs: _containers.RepeatedCompositeFieldContainer[EvaluatedDecisionOutput]
    ruleId: str
    ruleIndex: int
    def __init__(self, ruleId: _Optional[str] = ..., ruleIndex: _Optional[int] = ..., evaluatedOutputs: _Optional[_Iterable[_Union[EvaluatedDecisionOutput, _Mapping]]] = ...) -> None: ...

class MigrateProcessInstanceRequest(_message.Message):
    __slots__ = ["migrationPlan", "operationReference", "processInstanceKey"]
    class MappingInstruction(_message.Message):
        __slots__ = ["sourceElementId", "targetElementId"]
        SOURCEELEMENTID_FIELD_NUMBER: _ClassVar[int]
        TARGETELEMENTID_FIELD_NUMBER: _ClassVar[int]
        sourceElementId: str
        targetElementId: str
        def __init__(self, sourceElementId: _Optional[str] = ..., targetElementId: _Optional[str] = ...) -> None: ...
    class MigrationPlan(_message.Message):
        __slots__ = ["mappingInstructions", "targetProcessDefinitionKey"]
        MAPPINGINSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
        TARGETPROCESSDEFINITIONKEY_FIELD_NUMBER: _ClassVar[int]
        mappingInstructions: _containers.RepeatedCompositeFieldContainer[MigrateProcessInstanceRequest.MappingInstruction]
        targetProcessDefinitionKey: int
        def __init__(self, targetProcessDefinitionKey: _Optional[int] = ..., mappingInstructions: _Optional[_Iterable[_Union[MigrateProcessInstanceRequest.MappingInstruction, _Mapping]]] = ...) -> None: ...
    MIGRATIONPLAN_FIELD_NUMBER: _ClassVar[int]
    OPERATIONREFERENCE_FIELD_NUMBER: _ClassVar[int]
    PROCESSINSTANCEKEY_FIELD_NUMBER: _ClassVar[int]
    migrationPlan: MigrateProcessInstanceRequest.MigrationPlan
    operationReference: int
    processInstanceKey: int
    def __init__(self, processInstanceKey: _Optional[int] = ..., migrationPlan: _Optional[_Union[MigrateProcessInstanceRequest.MigrationPlan, _Mapping]] = ..., operationReference: _Optional[int] = ...) -> None: ...

class MigrateProcessInstanceResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ModifyProcessInstanceRequest(_message.Message):
    __slots__ = ["activateInstructions", "operationReference", "processInstanceKey", "terminateInstructions"]
    class ActivateInstruction(_message.Message):
        __slots__ = ["ancestorElementInstanceKey", "elementId", "variableInstructions"]
        ANCESTORELEMENTINSTANCEKEY_FIELD_NUMBER: _ClassVar[int]
        ELEMENTID_FIELD_NUMBER: _ClassVar[int]
        VARIABLEINSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
        ancestorElementInstanceKey: int
        elementId: str
        variableInstructions: _containers.RepeatedCompositeFieldContainer[ModifyProcessInstanceRequest.VariableInstruction]
        def __init__(self, elementId: _Optional[str] = ..., ancestorElementInstanceKey: _Optional[int] = ..., variableInstructions: _Optional[_Iterable[_Union[ModifyProcessInstanceRequest.VariableInstruction, _Mapping]]] = ...) -> None: ...
    class TerminateInstruction(_message.Message):
        __slots__ = ["elementInstanceKey"]
        ELEMENTINSTANCEKEY_FIELD_NUMBER: _ClassVar[int]
        elementInstanceKey: int
        def __init__(self, elementInstanceKey: _Optional[int] = ...) -> None: ...
    class VariableInstruction(_message.Message):
        __slots__ = ["scopeId", "variables"]
        SCOPEID_FIELD_NUMBER: _ClassVar[int]
        VARIABLES_FIELD_NUMBER: _ClassVar[int]
        scopeId: str
        variables: str
        def __init__(self, variables: _Optional[str] = ..., scopeId: _Optional[str] = ...) -> None: ...
    ACTIVATEINSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
    OPERATIONREFERENCE_FIELD_NUMBER: _ClassVar[int]
    PROCESSINSTANCEKEY_FIELD_NUMBER: _ClassVar[int]
    TERMINATEINSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
    activateInstructions: _containers.RepeatedCompositeFieldContainer[ModifyProcessInstanceRequest.ActivateInstruction]
    operationReference: int
    processInstanceKey: int
    terminateInstructions: _containers.RepeatedCompositeFieldContainer[ModifyProcessInstanceRequest.TerminateInstruction]
    def __init__(self, processInstanceKey: _Optional[int] = ..., activateInstructions: _Optional[_Iterable[_Union[ModifyProcessInstanceRequest.ActivateInstruction, _Mapping]]] = ..., terminateInstructions: _Optional[_Iterable[_Union[ModifyProcessInstanceRequest.TerminateInstruction, _Mapping]]] = ..., operationReference: _Optional[int] = ...) -> None: ...

class ModifyProcessInstanceResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class Partition(_message.Message):
    __slots__ = ["health", "partitionId", "role"]
    class PartitionBrokerHealth(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = []
    class PartitionBrokerRole(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = []
    DEAD: Partition.PartitionBrokerHealth
    FOLLOWER: Partition.PartitionBrokerRole
    HEALTHY: Partition.PartitionBrokerHealth
    HEALTH_FIELD_NUMBER: _ClassVar[int]
    INACTIVE: Partition.PartitionBrokerRole
    LEADER: Partition.PartitionBrokerRole
    PARTITIONID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    UNHEALTHY: Partition.PartitionBrokerHealth
    health: Partition.PartitionBrokerHealth
    partitionId: int
    role: Partition.PartitionBrokerRole
    def __init__(self, partitionId: _Optional[int] = ..., role: _Optional[_Union[Partition.PartitionBrokerRole, str]] = ..., health: _Optional[_Union[Partition.PartitionBrokerHealth, str]] = ...) -> None: ...

class ProcessInstanceCreationRuntimeInstruction(_message.Message):
    __slots__ = ["terminate"]
    TERMINATE_FIELD_NUMBER: _ClassVar[int]
    terminate: TerminateProcessInstanceInstruction
    def __init__(self, terminate: _Optional[_Union[TerminateProcessInstanceInstruction, _Mapping]] = ...) -> None: ...

class ProcessInstanceCreationStartInstruction(_message.Message):
    __slots__ = ["elementId"]
    ELEMENTID_FIELD_NUMBER: _ClassVar[int]
    elementId: str
    def __init__(self, elementId: _Optional[str] = ...) -> None: ...

class ProcessMetadata(_message.Message):
    __slots__ = ["bpmnProcessId", "processDefinitionKey", "resourceName", "tenantId", "version"]
    BPMNPROCESSID_FIELD_NUMBER: _ClassVar[int]
    PROCESSDEFINITIONKEY_FIELD_NUMBER: _ClassVar[int]
    RESOURCENAME_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    bpmnProcessId: str
    processDefinitionKey: int
    resourceName: str
    tenantId: str
    version: int
    def __init__(self, bpmnProcessId: _Optional[str] = ..., version: _Optional[int] = ..., processDefinitionKey: _Optional[int] = ..., resourceName: _Optional[str] = ..., tenantId: _Optional[str] = ...) -> None: ...

class PublishMessageRequest(_message.Message):
    __slots__ = ["correlationKey", "messageId", "name", "tenantId", "timeToLive", "variables"]
    CORRELATIONKEY_FIELD_NUMBER: _ClassVar[int]
    MESSAGEID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    TIMETOLIVE_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    correlationKey: str
    messageId: str
    name: str
    tenantId: str
    timeToLive: int
    variables: str
    def __init__(self, name: _Optional[str] = ..., correlationKey: _Optional[str] = ..., timeToLive: _Optional[int] = ..., messageId: _Optional[str] = ..., variables: _Optional[str] = ..., tenantId: _Optional[str] = ...) -> None: ...

class PublishMessageResponse(_message.Message):
    __slots__ = ["key", "tenantId"]
    KEY_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    key: int
    tenantId: str
    def __init__(self, key: _Optional[int] = ..., tenantId: _Optional[str] = ...) -> None: ...

class ResolveIncidentRequest(_message.Message):
    __slots__ = ["incidentKey", "operationReference"]
    INCIDENTKEY_FIELD_NUMBER: _ClassVar[int]
    OPERATIONREFERENCE_FIELD_NUMBER: _ClassVar[int]
    incidentKey: int
    operationReference: int
    def __init__(self, incidentKey: _Optional[int] = ..., operationReference: _Optional[int] = ...) -> None: ...

class ResolveIncidentResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class Resource(_message.Message):
    __slots__ = ["content", "name"]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    content: bytes
    name: str
    def __init__(self, name: _Optional[str] = ..., content: _Optional[bytes] = ...) -> None: ...

class SetVariablesRequest(_message.Message):
    __slots__ = ["elementInstanceKey", "local", "operationReference", "variables"]
    ELEMENTINSTANCEKEY_FIELD_NUMBER: _ClassVar[int]
    LOCAL_FIELD_NUMBER: _ClassVar[int]
    OPERATIONREFERENCE_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    elementInstanceKey: int
    local: bool
    operationReference: int
    variables: str
    def __init__(self, elementInstanceKey: _Optional[int] = ..., variables: _Optional[str] = ..., local: bool = ..., operationReference: _Optional[int] = ...) -> None: ...

class SetVariablesResponse(_message.Message):
    __slots__ = ["key"]
    KEY_FIELD_NUMBER: _ClassVar[int]
    key: int
    def __init__(self, key: _Optional[int] = ...) -> None: ...

class StreamActivatedJobsRequest(_message.Message):
    __slots__ = ["fetchVariable", "tenantIds", "timeout", "type", "worker"]
    FETCHVARIABLE_FIELD_NUMBER: _ClassVar[int]
    TENANTIDS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    fetchVariable: _containers.RepeatedScalarFieldContainer[str]
    tenantIds: _containers.RepeatedScalarFieldContainer[str]
    timeout: int
    type: str
    worker: str
    def __init__(self, type: _Optional[str] = ..., worker: _Optional[str] = ..., timeout: _Optional[int] = ..., fetchVariable: _Optional[_Iterable[str]] = ..., tenantIds: _Optional[_Iterable[str]] = ...) -> None: ...

class StringList(_message.Message):
    __slots__ = ["values"]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, values: _Optional[_Iterable[str]] = ...) -> None: ...

class TerminateProcessInstanceInstruction(_message.Message):
    __slots__ = ["afterElementId"]
    AFTERELEMENTID_FIELD_NUMBER: _ClassVar[int]
    afterElementId: str
    def __init__(self, afterElementId: _Optional[str] = ...) -> None: ...

class ThrowErrorRequest(_message.Message):
    __slots__ = ["errorCode", "errorMessage", "jobKey", "variables"]
    ERRORCODE_FIELD_NUMBER: _ClassVar[int]
    ERRORMESSAGE_FIELD_NUMBER: _ClassVar[int]
    JOBKEY_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    errorCode: str
    errorMessage: str
    jobKey: int
    variables: str
    def __init__(self, jobKey: _Optional[int] = ..., errorCode: _Optional[str] = ..., errorMessage: _Optional[str] = ..., variables: _Optional[str] = ...) -> None: ...

class ThrowErrorResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class TopologyRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class TopologyResponse(_message.Message):
    __slots__ = ["brokers", "clusterSize", "gatewayVersion", "partitionsCount", "replicationFactor"]
    BROKERS_FIELD_NUMBER: _ClassVar[int]
    CLUSTERSIZE_FIELD_NUMBER: _ClassVar[int]
    GATEWAYVERSION_FIELD_NUMBER: _ClassVar[int]
    PARTITIONSCOUNT_FIELD_NUMBER: _ClassVar[int]
    REPLICATIONFACTOR_FIELD_NUMBER: _ClassVar[int]
    brokers: _containers.RepeatedCompositeFieldContainer[BrokerInfo]
    clusterSize: int
    gatewayVersion: str
    partitionsCount: int
    replicationFactor: int
    def __init__(self, brokers: _Optional[_Iterable[_Union[BrokerInfo, _Mapping]]] = ..., clusterSize: _Optional[int] = ..., partitionsCount: _Optional[int] = ..., replicationFactor: _Optional[int] = ..., gatewayVersion: _Optional[str] = ...) -> None: ...

class UpdateJobRetriesRequest(_message.Message):
    __slots__ = ["jobKey", "operationReference", "retries"]
    JOBKEY_FIELD_NUMBER: _ClassVar[int]
    OPERATIONREFERENCE_FIELD_NUMBER: _ClassVar[int]
    RETRIES_FIELD_NUMBER: _ClassVar[int]
    jobKey: int
    operationReference: int
    retries: int
    def __init__(self, jobKey: _Optional[int] = ..., retries: _Optional[int] = ..., operationReference: _Optional[int] = ...) -> None: ...

class UpdateJobRetriesResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class UpdateJobTimeoutRequest(_message.Message):
    __slots__ = ["jobKey", "operationReference", "timeout"]
    JOBKEY_FIELD_NUMBER: _ClassVar[int]
    OPERATIONREFERENCE_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    jobKey: int
    operationReference: int
    timeout: int
    def __init__(self, jobKey: _Optional[int] = ..., timeout: _Optional[int] = ..., operationReference: _Optional[int] = ...) -> None: ...

class UpdateJobTimeoutResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class UserTaskProperties(_message.Message):
    __slots__ = ["action", "assignee", "candidateGroups", "candidateUsers", "changedAttributes", "dueDate", "followUpDate", "formKey", "priority", "userTaskKey"]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    ASSIGNEE_FIELD_NUMBER: _ClassVar[int]
    CANDIDATEGROUPS_FIELD_NUMBER: _ClassVar[int]
    CANDIDATEUSERS_FIELD_NUMBER: _ClassVar[int]
    CHANGEDATTRIBUTES_FIELD_NUMBER: _ClassVar[int]
    DUEDATE_FIELD_NUMBER: _ClassVar[int]
    FOLLOWUPDATE_FIELD_NUMBER: _ClassVar[int]
    FORMKEY_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    USERTASKKEY_FIELD_NUMBER: _ClassVar[int]
    action: str
    assignee: str
    candidateGroups: _containers.RepeatedScalarFieldContainer[str]
    candidateUsers: _containers.RepeatedScalarFieldContainer[str]
    changedAttributes: _containers.RepeatedScalarFieldContainer[str]
    dueDate: str
    followUpDate: str
    formKey: int
    priority: int
    userTaskKey: int
    def __init__(self, action: _Optional[str] = ..., assignee: _Optional[str] = ..., candidateGroups: _Optional[_Iterable[str]] = ..., candidateUsers: _Optional[_Iterable[str]] = ..., changedAttributes: _Optional[_Iterable[str]] = ..., dueDate: _Optional[str] = ..., followUpDate: _Optional[str] = ..., formKey: _Optional[int] = ..., priority: _Optional[int] = ..., userTaskKey: _Optional[int] = ...) -> None: ...
