from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ActivateJobsRequest(_message.Message):
    __slots__ = ("type", "worker", "timeout", "maxJobsToActivate", "fetchVariable", "requestTimeout", "tenantIds")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    MAXJOBSTOACTIVATE_FIELD_NUMBER: _ClassVar[int]
    FETCHVARIABLE_FIELD_NUMBER: _ClassVar[int]
    REQUESTTIMEOUT_FIELD_NUMBER: _ClassVar[int]
    TENANTIDS_FIELD_NUMBER: _ClassVar[int]
    type: str
    worker: str
    timeout: int
    maxJobsToActivate: int
    fetchVariable: _containers.RepeatedScalarFieldContainer[str]
    requestTimeout: int
    tenantIds: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, type: _Optional[str] = ..., worker: _Optional[str] = ..., timeout: _Optional[int] = ..., maxJobsToActivate: _Optional[int] = ..., fetchVariable: _Optional[_Iterable[str]] = ..., requestTimeout: _Optional[int] = ..., tenantIds: _Optional[_Iterable[str]] = ...) -> None: ...

class ActivateJobsResponse(_message.Message):
    __slots__ = ("jobs",)
    JOBS_FIELD_NUMBER: _ClassVar[int]
    jobs: _containers.RepeatedCompositeFieldContainer[ActivatedJob]
    def __init__(self, jobs: _Optional[_Iterable[_Union[ActivatedJob, _Mapping]]] = ...) -> None: ...

class StreamActivatedJobsRequest(_message.Message):
    __slots__ = ("type", "worker", "timeout", "fetchVariable", "tenantIds")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    FETCHVARIABLE_FIELD_NUMBER: _ClassVar[int]
    TENANTIDS_FIELD_NUMBER: _ClassVar[int]
    type: str
    worker: str
    timeout: int
    fetchVariable: _containers.RepeatedScalarFieldContainer[str]
    tenantIds: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, type: _Optional[str] = ..., worker: _Optional[str] = ..., timeout: _Optional[int] = ..., fetchVariable: _Optional[_Iterable[str]] = ..., tenantIds: _Optional[_Iterable[str]] = ...) -> None: ...

class ActivatedJob(_message.Message):
    __slots__ = ("key", "type", "processInstanceKey", "bpmnProcessId", "processDefinitionVersion", "processDefinitionKey", "elementId", "elementInstanceKey", "customHeaders", "worker", "retries", "deadline", "variables", "tenantId", "userTask", "kind", "listenerEventType", "tags")
    class JobKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        BPMN_ELEMENT: _ClassVar[ActivatedJob.JobKind]
        EXECUTION_LISTENER: _ClassVar[ActivatedJob.JobKind]
        TASK_LISTENER: _ClassVar[ActivatedJob.JobKind]
        AD_HOC_SUB_PROCESS: _ClassVar[ActivatedJob.JobKind]
    BPMN_ELEMENT: ActivatedJob.JobKind
    EXECUTION_LISTENER: ActivatedJob.JobKind
    TASK_LISTENER: ActivatedJob.JobKind
    AD_HOC_SUB_PROCESS: ActivatedJob.JobKind
    class ListenerEventType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        ASSIGNING: _ClassVar[ActivatedJob.ListenerEventType]
        CANCELING: _ClassVar[ActivatedJob.ListenerEventType]
        COMPLETING: _ClassVar[ActivatedJob.ListenerEventType]
        CREATING: _ClassVar[ActivatedJob.ListenerEventType]
        END: _ClassVar[ActivatedJob.ListenerEventType]
        START: _ClassVar[ActivatedJob.ListenerEventType]
        UNSPECIFIED: _ClassVar[ActivatedJob.ListenerEventType]
        UPDATING: _ClassVar[ActivatedJob.ListenerEventType]
    ASSIGNING: ActivatedJob.ListenerEventType
    CANCELING: ActivatedJob.ListenerEventType
    COMPLETING: ActivatedJob.ListenerEventType
    CREATING: ActivatedJob.ListenerEventType
    END: ActivatedJob.ListenerEventType
    START: ActivatedJob.ListenerEventType
    UNSPECIFIED: ActivatedJob.ListenerEventType
    UPDATING: ActivatedJob.ListenerEventType
    KEY_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    PROCESSINSTANCEKEY_FIELD_NUMBER: _ClassVar[int]
    BPMNPROCESSID_FIELD_NUMBER: _ClassVar[int]
    PROCESSDEFINITIONVERSION_FIELD_NUMBER: _ClassVar[int]
    PROCESSDEFINITIONKEY_FIELD_NUMBER: _ClassVar[int]
    ELEMENTID_FIELD_NUMBER: _ClassVar[int]
    ELEMENTINSTANCEKEY_FIELD_NUMBER: _ClassVar[int]
    CUSTOMHEADERS_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    RETRIES_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    USERTASK_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    LISTENEREVENTTYPE_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    key: int
    type: str
    processInstanceKey: int
    bpmnProcessId: str
    processDefinitionVersion: int
    processDefinitionKey: int
    elementId: str
    elementInstanceKey: int
    customHeaders: str
    worker: str
    retries: int
    deadline: int
    variables: str
    tenantId: str
    userTask: UserTaskProperties
    kind: ActivatedJob.JobKind
    listenerEventType: ActivatedJob.ListenerEventType
    tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, key: _Optional[int] = ..., type: _Optional[str] = ..., processInstanceKey: _Optional[int] = ..., bpmnProcessId: _Optional[str] = ..., processDefinitionVersion: _Optional[int] = ..., processDefinitionKey: _Optional[int] = ..., elementId: _Optional[str] = ..., elementInstanceKey: _Optional[int] = ..., customHeaders: _Optional[str] = ..., worker: _Optional[str] = ..., retries: _Optional[int] = ..., deadline: _Optional[int] = ..., variables: _Optional[str] = ..., tenantId: _Optional[str] = ..., userTask: _Optional[_Union[UserTaskProperties, _Mapping]] = ..., kind: _Optional[_Union[ActivatedJob.JobKind, str]] = ..., listenerEventType: _Optional[_Union[ActivatedJob.ListenerEventType, str]] = ..., tags: _Optional[_Iterable[str]] = ...) -> None: ...

class UserTaskProperties(_message.Message):
    __slots__ = ("action", "assignee", "candidateGroups", "candidateUsers", "changedAttributes", "dueDate", "followUpDate", "formKey", "priority", "userTaskKey")
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

class CompleteJobRequest(_message.Message):
    __slots__ = ("jobKey", "variables", "result")
    JOBKEY_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    jobKey: int
    variables: str
    result: JobResult
    def __init__(self, jobKey: _Optional[int] = ..., variables: _Optional[str] = ..., result: _Optional[_Union[JobResult, _Mapping]] = ...) -> None: ...

class JobResult(_message.Message):
    __slots__ = ("denied", "corrections", "deniedReason", "type", "activateElements", "isCompletionConditionFulfilled", "isCancelRemainingInstances")
    DENIED_FIELD_NUMBER: _ClassVar[int]
    CORRECTIONS_FIELD_NUMBER: _ClassVar[int]
    DENIEDREASON_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    ACTIVATEELEMENTS_FIELD_NUMBER: _ClassVar[int]
    ISCOMPLETIONCONDITIONFULFILLED_FIELD_NUMBER: _ClassVar[int]
    ISCANCELREMAININGINSTANCES_FIELD_NUMBER: _ClassVar[int]
    denied: bool
    corrections: JobResultCorrections
    deniedReason: str
    type: str
    activateElements: _containers.RepeatedCompositeFieldContainer[JobResultActivateElement]
    isCompletionConditionFulfilled: bool
    isCancelRemainingInstances: bool
    def __init__(self, denied: bool = ..., corrections: _Optional[_Union[JobResultCorrections, _Mapping]] = ..., deniedReason: _Optional[str] = ..., type: _Optional[str] = ..., activateElements: _Optional[_Iterable[_Union[JobResultActivateElement, _Mapping]]] = ..., isCompletionConditionFulfilled: bool = ..., isCancelRemainingInstances: bool = ...) -> None: ...

class JobResultCorrections(_message.Message):
    __slots__ = ("assignee", "dueDate", "followUpDate", "candidateUsers", "candidateGroups", "priority")
    ASSIGNEE_FIELD_NUMBER: _ClassVar[int]
    DUEDATE_FIELD_NUMBER: _ClassVar[int]
    FOLLOWUPDATE_FIELD_NUMBER: _ClassVar[int]
    CANDIDATEUSERS_FIELD_NUMBER: _ClassVar[int]
    CANDIDATEGROUPS_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    assignee: str
    dueDate: str
    followUpDate: str
    candidateUsers: StringList
    candidateGroups: StringList
    priority: int
    def __init__(self, assignee: _Optional[str] = ..., dueDate: _Optional[str] = ..., followUpDate: _Optional[str] = ..., candidateUsers: _Optional[_Union[StringList, _Mapping]] = ..., candidateGroups: _Optional[_Union[StringList, _Mapping]] = ..., priority: _Optional[int] = ...) -> None: ...

class JobResultActivateElement(_message.Message):
    __slots__ = ("elementId", "variables")
    ELEMENTID_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    elementId: str
    variables: str
    def __init__(self, elementId: _Optional[str] = ..., variables: _Optional[str] = ...) -> None: ...

class StringList(_message.Message):
    __slots__ = ("values",)
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, values: _Optional[_Iterable[str]] = ...) -> None: ...

class CompleteJobResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class FailJobRequest(_message.Message):
    __slots__ = ("jobKey", "retries", "errorMessage", "retryBackOff", "variables")
    JOBKEY_FIELD_NUMBER: _ClassVar[int]
    RETRIES_FIELD_NUMBER: _ClassVar[int]
    ERRORMESSAGE_FIELD_NUMBER: _ClassVar[int]
    RETRYBACKOFF_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    jobKey: int
    retries: int
    errorMessage: str
    retryBackOff: int
    variables: str
    def __init__(self, jobKey: _Optional[int] = ..., retries: _Optional[int] = ..., errorMessage: _Optional[str] = ..., retryBackOff: _Optional[int] = ..., variables: _Optional[str] = ...) -> None: ...

class FailJobResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ThrowErrorRequest(_message.Message):
    __slots__ = ("jobKey", "errorCode", "errorMessage", "variables")
    JOBKEY_FIELD_NUMBER: _ClassVar[int]
    ERRORCODE_FIELD_NUMBER: _ClassVar[int]
    ERRORMESSAGE_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    jobKey: int
    errorCode: str
    errorMessage: str
    variables: str
    def __init__(self, jobKey: _Optional[int] = ..., errorCode: _Optional[str] = ..., errorMessage: _Optional[str] = ..., variables: _Optional[str] = ...) -> None: ...

class ThrowErrorResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class UpdateJobRetriesRequest(_message.Message):
    __slots__ = ("jobKey", "retries", "operationReference")
    JOBKEY_FIELD_NUMBER: _ClassVar[int]
    RETRIES_FIELD_NUMBER: _ClassVar[int]
    OPERATIONREFERENCE_FIELD_NUMBER: _ClassVar[int]
    jobKey: int
    retries: int
    operationReference: int
    def __init__(self, jobKey: _Optional[int] = ..., retries: _Optional[int] = ..., operationReference: _Optional[int] = ...) -> None: ...

class UpdateJobRetriesResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class UpdateJobTimeoutRequest(_message.Message):
    __slots__ = ("jobKey", "timeout", "operationReference")
    JOBKEY_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    OPERATIONREFERENCE_FIELD_NUMBER: _ClassVar[int]
    jobKey: int
    timeout: int
    operationReference: int
    def __init__(self, jobKey: _Optional[int] = ..., timeout: _Optional[int] = ..., operationReference: _Optional[int] = ...) -> None: ...

class UpdateJobTimeoutResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CreateProcessInstanceRequest(_message.Message):
    __slots__ = ("processDefinitionKey", "bpmnProcessId", "version", "variables", "startInstructions", "tenantId", "operationReference", "runtimeInstructions", "tags")
    PROCESSDEFINITIONKEY_FIELD_NUMBER: _ClassVar[int]
    BPMNPROCESSID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    STARTINSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    OPERATIONREFERENCE_FIELD_NUMBER: _ClassVar[int]
    RUNTIMEINSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    processDefinitionKey: int
    bpmnProcessId: str
    version: int
    variables: str
    startInstructions: _containers.RepeatedCompositeFieldContainer[ProcessInstanceCreationStartInstruction]
    tenantId: str
    operationReference: int
    runtimeInstructions: _containers.RepeatedCompositeFieldContainer[ProcessInstanceCreationRuntimeInstruction]
    tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, processDefinitionKey: _Optional[int] = ..., bpmnProcessId: _Optional[str] = ..., version: _Optional[int] = ..., variables: _Optional[str] = ..., startInstructions: _Optional[_Iterable[_Union[ProcessInstanceCreationStartInstruction, _Mapping]]] = ..., tenantId: _Optional[str] = ..., operationReference: _Optional[int] = ..., runtimeInstructions: _Optional[_Iterable[_Union[ProcessInstanceCreationRuntimeInstruction, _Mapping]]] = ..., tags: _Optional[_Iterable[str]] = ...) -> None: ...

class ProcessInstanceCreationStartInstruction(_message.Message):
    __slots__ = ("elementId",)
    ELEMENTID_FIELD_NUMBER: _ClassVar[int]
    elementId: str
    def __init__(self, elementId: _Optional[str] = ...) -> None: ...

class ProcessInstanceCreationRuntimeInstruction(_message.Message):
    __slots__ = ("terminate",)
    TERMINATE_FIELD_NUMBER: _ClassVar[int]
    terminate: TerminateProcessInstanceInstruction
    def __init__(self, terminate: _Optional[_Union[TerminateProcessInstanceInstruction, _Mapping]] = ...) -> None: ...

class TerminateProcessInstanceInstruction(_message.Message):
    __slots__ = ("afterElementId",)
    AFTERELEMENTID_FIELD_NUMBER: _ClassVar[int]
    afterElementId: str
    def __init__(self, afterElementId: _Optional[str] = ...) -> None: ...

class CreateProcessInstanceResponse(_message.Message):
    __slots__ = ("processDefinitionKey", "bpmnProcessId", "version", "processInstanceKey", "tenantId", "tags")
    PROCESSDEFINITIONKEY_FIELD_NUMBER: _ClassVar[int]
    BPMNPROCESSID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PROCESSINSTANCEKEY_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    processDefinitionKey: int
    bpmnProcessId: str
    version: int
    processInstanceKey: int
    tenantId: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, processDefinitionKey: _Optional[int] = ..., bpmnProcessId: _Optional[str] = ..., version: _Optional[int] = ..., processInstanceKey: _Optional[int] = ..., tenantId: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ...) -> None: ...

class CreateProcessInstanceWithResultRequest(_message.Message):
    __slots__ = ("request", "requestTimeout", "fetchVariables")
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    REQUESTTIMEOUT_FIELD_NUMBER: _ClassVar[int]
    FETCHVARIABLES_FIELD_NUMBER: _ClassVar[int]
    request: CreateProcessInstanceRequest
    requestTimeout: int
    fetchVariables: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, request: _Optional[_Union[CreateProcessInstanceRequest, _Mapping]] = ..., requestTimeout: _Optional[int] = ..., fetchVariables: _Optional[_Iterable[str]] = ...) -> None: ...

class CreateProcessInstanceWithResultResponse(_message.Message):
    __slots__ = ("processDefinitionKey", "bpmnProcessId", "version", "processInstanceKey", "variables", "tenantId", "tags")
    PROCESSDEFINITIONKEY_FIELD_NUMBER: _ClassVar[int]
    BPMNPROCESSID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PROCESSINSTANCEKEY_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    processDefinitionKey: int
    bpmnProcessId: str
    version: int
    processInstanceKey: int
    variables: str
    tenantId: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, processDefinitionKey: _Optional[int] = ..., bpmnProcessId: _Optional[str] = ..., version: _Optional[int] = ..., processInstanceKey: _Optional[int] = ..., variables: _Optional[str] = ..., tenantId: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ...) -> None: ...

class CancelProcessInstanceRequest(_message.Message):
    __slots__ = ("processInstanceKey", "operationReference")
    PROCESSINSTANCEKEY_FIELD_NUMBER: _ClassVar[int]
    OPERATIONREFERENCE_FIELD_NUMBER: _ClassVar[int]
    processInstanceKey: int
    operationReference: int
    def __init__(self, processInstanceKey: _Optional[int] = ..., operationReference: _Optional[int] = ...) -> None: ...

class CancelProcessInstanceResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SetVariablesRequest(_message.Message):
    __slots__ = ("elementInstanceKey", "variables", "local", "operationReference")
    ELEMENTINSTANCEKEY_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    LOCAL_FIELD_NUMBER: _ClassVar[int]
    OPERATIONREFERENCE_FIELD_NUMBER: _ClassVar[int]
    elementInstanceKey: int
    variables: str
    local: bool
    operationReference: int
    def __init__(self, elementInstanceKey: _Optional[int] = ..., variables: _Optional[str] = ..., local: bool = ..., operationReference: _Optional[int] = ...) -> None: ...

class SetVariablesResponse(_message.Message):
    __slots__ = ("key",)
    KEY_FIELD_NUMBER: _ClassVar[int]
    key: int
    def __init__(self, key: _Optional[int] = ...) -> None: ...

class ResolveIncidentRequest(_message.Message):
    __slots__ = ("incidentKey", "operationReference")
    INCIDENTKEY_FIELD_NUMBER: _ClassVar[int]
    OPERATIONREFERENCE_FIELD_NUMBER: _ClassVar[int]
    incidentKey: int
    operationReference: int
    def __init__(self, incidentKey: _Optional[int] = ..., operationReference: _Optional[int] = ...) -> None: ...

class ResolveIncidentResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DeployResourceRequest(_message.Message):
    __slots__ = ("resources", "tenantId")
    RESOURCES_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    resources: _containers.RepeatedCompositeFieldContainer[Resource]
    tenantId: str
    def __init__(self, resources: _Optional[_Iterable[_Union[Resource, _Mapping]]] = ..., tenantId: _Optional[str] = ...) -> None: ...

class Resource(_message.Message):
    __slots__ = ("name", "content")
    NAME_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    name: str
    content: bytes
    def __init__(self, name: _Optional[str] = ..., content: _Optional[bytes] = ...) -> None: ...

class DeployResourceResponse(_message.Message):
    __slots__ = ("key", "deployments", "tenantId")
    KEY_FIELD_NUMBER: _ClassVar[int]
    DEPLOYMENTS_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    key: int
    deployments: _containers.RepeatedCompositeFieldContainer[Deployment]
    tenantId: str
    def __init__(self, key: _Optional[int] = ..., deployments: _Optional[_Iterable[_Union[Deployment, _Mapping]]] = ..., tenantId: _Optional[str] = ...) -> None: ...

class Deployment(_message.Message):
    __slots__ = ("process", "decision", "decisionRequirements", "form")
    PROCESS_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    DECISIONREQUIREMENTS_FIELD_NUMBER: _ClassVar[int]
    FORM_FIELD_NUMBER: _ClassVar[int]
    process: ProcessMetadata
    decision: DecisionMetadata
    decisionRequirements: DecisionRequirementsMetadata
    form: FormMetadata
    def __init__(self, process: _Optional[_Union[ProcessMetadata, _Mapping]] = ..., decision: _Optional[_Union[DecisionMetadata, _Mapping]] = ..., decisionRequirements: _Optional[_Union[DecisionRequirementsMetadata, _Mapping]] = ..., form: _Optional[_Union[FormMetadata, _Mapping]] = ...) -> None: ...

class ProcessMetadata(_message.Message):
    __slots__ = ("bpmnProcessId", "version", "processDefinitionKey", "resourceName", "tenantId")
    BPMNPROCESSID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PROCESSDEFINITIONKEY_FIELD_NUMBER: _ClassVar[int]
    RESOURCENAME_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    bpmnProcessId: str
    version: int
    processDefinitionKey: int
    resourceName: str
    tenantId: str
    def __init__(self, bpmnProcessId: _Optional[str] = ..., version: _Optional[int] = ..., processDefinitionKey: _Optional[int] = ..., resourceName: _Optional[str] = ..., tenantId: _Optional[str] = ...) -> None: ...

class DecisionMetadata(_message.Message):
    __slots__ = ("dmnDecisionId", "dmnDecisionName", "version", "decisionKey", "dmnDecisionRequirementsId", "decisionRequirementsKey", "tenantId")
    DMNDECISIONID_FIELD_NUMBER: _ClassVar[int]
    DMNDECISIONNAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DECISIONKEY_FIELD_NUMBER: _ClassVar[int]
    DMNDECISIONREQUIREMENTSID_FIELD_NUMBER: _ClassVar[int]
    DECISIONREQUIREMENTSKEY_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    dmnDecisionId: str
    dmnDecisionName: str
    version: int
    decisionKey: int
    dmnDecisionRequirementsId: str
    decisionRequirementsKey: int
    tenantId: str
    def __init__(self, dmnDecisionId: _Optional[str] = ..., dmnDecisionName: _Optional[str] = ..., version: _Optional[int] = ..., decisionKey: _Optional[int] = ..., dmnDecisionRequirementsId: _Optional[str] = ..., decisionRequirementsKey: _Optional[int] = ..., tenantId: _Optional[str] = ...) -> None: ...

class DecisionRequirementsMetadata(_message.Message):
    __slots__ = ("dmnDecisionRequirementsId", "dmnDecisionRequirementsName", "version", "decisionRequirementsKey", "resourceName", "tenantId")
    DMNDECISIONREQUIREMENTSID_FIELD_NUMBER: _ClassVar[int]
    DMNDECISIONREQUIREMENTSNAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DECISIONREQUIREMENTSKEY_FIELD_NUMBER: _ClassVar[int]
    RESOURCENAME_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    dmnDecisionRequirementsId: str
    dmnDecisionRequirementsName: str
    version: int
    decisionRequirementsKey: int
    resourceName: str
    tenantId: str
    def __init__(self, dmnDecisionRequirementsId: _Optional[str] = ..., dmnDecisionRequirementsName: _Optional[str] = ..., version: _Optional[int] = ..., decisionRequirementsKey: _Optional[int] = ..., resourceName: _Optional[str] = ..., tenantId: _Optional[str] = ...) -> None: ...

class FormMetadata(_message.Message):
    __slots__ = ("formId", "version", "formKey", "resourceName", "tenantId")
    FORMID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    FORMKEY_FIELD_NUMBER: _ClassVar[int]
    RESOURCENAME_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    formId: str
    version: int
    formKey: int
    resourceName: str
    tenantId: str
    def __init__(self, formId: _Optional[str] = ..., version: _Optional[int] = ..., formKey: _Optional[int] = ..., resourceName: _Optional[str] = ..., tenantId: _Optional[str] = ...) -> None: ...

class PublishMessageRequest(_message.Message):
    __slots__ = ("name", "correlationKey", "timeToLive", "messageId", "variables", "tenantId")
    NAME_FIELD_NUMBER: _ClassVar[int]
    CORRELATIONKEY_FIELD_NUMBER: _ClassVar[int]
    TIMETOLIVE_FIELD_NUMBER: _ClassVar[int]
    MESSAGEID_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    name: str
    correlationKey: str
    timeToLive: int
    messageId: str
    variables: str
    tenantId: str
    def __init__(self, name: _Optional[str] = ..., correlationKey: _Optional[str] = ..., timeToLive: _Optional[int] = ..., messageId: _Optional[str] = ..., variables: _Optional[str] = ..., tenantId: _Optional[str] = ...) -> None: ...

class PublishMessageResponse(_message.Message):
    __slots__ = ("key", "tenantId")
    KEY_FIELD_NUMBER: _ClassVar[int]
    TENANTID_FIELD_NUMBER: _ClassVar[int]
    key: int
    tenantId: str
    def __init__(self, key: _Optional[int] = ..., tenantId: _Optional[str] = ...) -> None: ...

class TopologyRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TopologyResponse(_message.Message):
    __slots__ = ("brokers", "clusterSize", "partitionsCount", "replicationFactor", "gatewayVersion")
    BROKERS_FIELD_NUMBER: _ClassVar[int]
    CLUSTERSIZE_FIELD_NUMBER: _ClassVar[int]
    PARTITIONSCOUNT_FIELD_NUMBER: _ClassVar[int]
    REPLICATIONFACTOR_FIELD_NUMBER: _ClassVar[int]
    GATEWAYVERSION_FIELD_NUMBER: _ClassVar[int]
    brokers: _containers.RepeatedCompositeFieldContainer[BrokerInfo]
    clusterSize: int
    partitionsCount: int
    replicationFactor: int
    gatewayVersion: str
    def __init__(self, brokers: _Optional[_Iterable[_Union[BrokerInfo, _Mapping]]] = ..., clusterSize: _Optional[int] = ..., partitionsCount: _Optional[int] = ..., replicationFactor: _Optional[int] = ..., gatewayVersion: _Optional[str] = ...) -> None: ...

class BrokerInfo(_message.Message):
    __slots__ = ("nodeId", "host", "port", "partitions", "version")
    NODEID_FIELD_NUMBER: _ClassVar[int]
    HOST_FIELD_NUMBER: _ClassVar[int]
    PORT_FIELD_NUMBER: _ClassVar[int]
    PARTITIONS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    nodeId: int
    host: str
    port: int
    partitions: _containers.RepeatedCompositeFieldContainer[Partition]
    version: str
    def __init__(self, nodeId: _Optional[int] = ..., host: _Optional[str] = ..., port: _Optional[int] = ..., partitions: _Optional[_Iterable[_Union[Partition, _Mapping]]] = ..., version: _Optional[str] = ...) -> None: ...

class Partition(_message.Message):
    __slots__ = ("partitionId", "role", "health")
    class PartitionBrokerRole(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        LEADER: _ClassVar[Partition.PartitionBrokerRole]
        FOLLOWER: _ClassVar[Partition.PartitionBrokerRole]
        INACTIVE: _ClassVar[Partition.PartitionBrokerRole]
    LEADER: Partition.PartitionBrokerRole
    FOLLOWER: Partition.PartitionBrokerRole
    INACTIVE: Partition.PartitionBrokerRole
    class PartitionBrokerHealth(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        HEALTHY: _ClassVar[Partition.PartitionBrokerHealth]
        UNHEALTHY: _ClassVar[Partition.PartitionBrokerHealth]
        DEAD: _ClassVar[Partition.PartitionBrokerHealth]
    HEALTHY: Partition.PartitionBrokerHealth
    UNHEALTHY: Partition.PartitionBrokerHealth
    DEAD: Partition.PartitionBrokerHealth
    PARTITIONID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    HEALTH_FIELD_NUMBER: _ClassVar[int]
    partitionId: int
    role: Partition.PartitionBrokerRole
    health: Partition.PartitionBrokerHealth
    def __init__(self, partitionId: _Optional[int] = ..., role: _Optional[_Union[Partition.PartitionBrokerRole, str]] = ..., health: _Optional[_Union[Partition.PartitionBrokerHealth, str]] = ...) -> None: ...
