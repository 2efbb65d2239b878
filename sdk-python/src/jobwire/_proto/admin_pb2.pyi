from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
JOB_STATE_ACTIVATABLE: JobState
JOB_STATE_ACTIVATED: JobState
JOB_STATE_CANCELED: JobState
JOB_STATE_COMPLETED: JobState
JOB_STATE_ERROR_THROWN: JobState
JOB_STATE_FAILED_BACKOFF: JobState
JOB_STATE_INCIDENT: JobState
JOB_STATE_UNSPECIFIED: JobState
PROCESS_INSTANCE_STATE_ACTIVE: ProcessInstanceState
PROCESS_INSTANCE_STATE_CANCELED: ProcessInstanceState
PROCESS_INSTANCE_STATE_COMPLETED: ProcessInstanceState
PROCESS_INSTANCE_STATE_INCIDENT: ProcessInstanceState
PROCESS_INSTANCE_STATE_UNSPECIFIED: ProcessInstanceState

class AdvanceClockRequest(_message.Message):
    __slots__ = ["duration_ms"]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    duration_ms: int
    def __init__(self, duration_ms: _Optional[int] = ...) -> None: ...

class AdvanceClockResponse(_message.Message):
    __slots__ = ["fired", "now_ms", "offset_ms"]
    FIRED_FIELD_NUMBER: _ClassVar[int]
    NOW_MS_FIELD_NUMBER: _ClassVar[int]
    OFFSET_MS_FIELD_NUMBER: _ClassVar[int]
    fired: int
    now_ms: int
    offset_ms: int
    def __init__(self, now_ms: _Optional[int] = ..., offset_ms: _Optional[int] = ..., fired: _Optional[int] = ...) -> None: ...

class BrokerProcess(_message.Message):
    __slots__ = ["address", "data_dir", "node_id", "partition_ids", "pid", "running"]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    DATA_DIR_FIELD_NUMBER: _ClassVar[int]
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    PARTITION_IDS_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    RUNNING_FIELD_NUMBER: _ClassVar[int]
    address: str
    data_dir: str
    node_id: int
    partition_ids: _containers.RepeatedScalarFieldContainer[int]
    pid: int
    running: bool
    def __init__(self, node_id: _Optional[int] = ..., address: _Optional[str] = ..., running: bool = ..., pid: _Optional[int] = ..., partition_ids: _Optional[_Iterable[int]] = ..., data_dir: _Optional[str] = ...) -> None: ...

class ClearFaultsRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ClearFaultsResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ElementInstanceInfo(_message.Message):
    __slots__ = ["element_id", "key", "scope_key", "variables"]
    ELEMENT_ID_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    SCOPE_KEY_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    element_id: str
    key: int
    scope_key: int
    variables: str
    def __init__(self, key: _Optional[int] = ..., element_id: _Optional[str] = ..., scope_key: _Optional[int] = ..., variables: _Optional[str] = ...) -> None: ...

class ExpireTokensFault(_message.Message):
    __slots__ = ["issued_up_to_unix_s"]
    ISSUED_UP_TO_UNIX_S_FIELD_NUMBER: _ClassVar[int]
    issued_up_to_unix_s: int
    def __init__(self, issued_up_to_unix_s: _Optional[int] = ...) -> None: ...

class GatewayProcess(_message.Message):
    __slots__ = ["address", "index", "pid", "running"]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    RUNNING_FIELD_NUMBER: _ClassVar[int]
    address: str
    index: int
    pid: int
    running: bool
    def __init__(self, index: _Optional[int] = ..., address: _Optional[str] = ..., running: bool = ..., pid: _Optional[int] = ...) -> None: ...

class GetClockRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class GetClockResponse(_message.Message):
    __slots__ = ["now_ms", "offset_ms"]
    NOW_MS_FIELD_NUMBER: _ClassVar[int]
    OFFSET_MS_FIELD_NUMBER: _ClassVar[int]
    now_ms: int
    offset_ms: int
    def __init__(self, now_ms: _Optional[int] = ..., offset_ms: _Optional[int] = ...) -> None: ...

class GetClusterRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class GetClusterResponse(_message.Message):
    __slots__ = ["brokers", "gateways", "partition_count"]
    BROKERS_FIELD_NUMBER: _ClassVar[int]
    GATEWAYS_FIELD_NUMBER: _ClassVar[int]
    PARTITION_COUNT_FIELD_NUMBER: _ClassVar[int]
    brokers: _containers.RepeatedCompositeFieldContainer[BrokerProcess]
    gateways: _containers.RepeatedCompositeFieldContainer[GatewayProcess]
    partition_count: int
    def __init__(self, gateways: _Optional[_Iterable[_Union[GatewayProcess, _Mapping]]] = ..., brokers: _Optional[_Iterable[_Union[BrokerProcess, _Mapping]]] = ..., partition_count: _Optional[int] = ...) -> None: ...

class GetPartitionsRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class GetPartitionsResponse(_message.Message):
    __slots__ = ["partitions"]
    PARTITIONS_FIELD_NUMBER: _ClassVar[int]
    partitions: _containers.RepeatedCompositeFieldContainer[PartitionInfo]
    def __init__(self, partitions: _Optional[_Iterable[_Union[PartitionInfo, _Mapping]]] = ...) -> None: ...

class GetRequestCountsRequest(_message.Message):
    __slots__ = ["method"]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    method: str
    def __init__(self, method: _Optional[str] = ...) -> None: ...

class GetRequestCountsResponse(_message.Message):
    __slots__ = ["counts"]
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    counts: _containers.RepeatedCompositeFieldContainer[RequestCount]
    def __init__(self, counts: _Optional[_Iterable[_Union[RequestCount, _Mapping]]] = ...) -> None: ...

class GoAwayFault(_message.Message):
    __slots__ = ["grace_ms"]
    GRACE_MS_FIELD_NUMBER: _ClassVar[int]
    grace_ms: int
    def __init__(self, grace_ms: _Optional[int] = ...) -> None: ...

class IncidentInfo(_message.Message):
    __slots__ = ["element_instance_key", "job_key", "key", "message", "process_instance_key", "type"]
    ELEMENT_INSTANCE_KEY_FIELD_NUMBER: _ClassVar[int]
    JOB_KEY_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    PROCESS_INSTANCE_KEY_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    element_instance_key: int
    job_key: int
    key: int
    message: str
    process_instance_key: int
    type: str
    def __init__(self, key: _Optional[int] = ..., process_instance_key: _Optional[int] = ..., element_instance_key: _Optional[int] = ..., job_key: _Optional[int] = ..., type: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class InjectFaultRequest(_message.Message):
    __slots__ = ["expire_tokens", "go_away", "latency", "long_poll", "reject", "stall_streams"]
    EXPIRE_TOKENS_FIELD_NUMBER: _ClassVar[int]
    GO_AWAY_FIELD_NUMBER: _ClassVar[int]
    LATENCY_FIELD_NUMBER: _ClassVar[int]
    LONG_POLL_FIELD_NUMBER: _ClassVar[int]
    REJECT_FIELD_NUMBER: _ClassVar[int]
    STALL_STREAMS_FIELD_NUMBER: _ClassVar[int]
    expire_tokens: ExpireTokensFault
    go_away: GoAwayFault
    latency: LatencyFault
    long_poll: LongPollFault
    reject: RejectFault
    stall_streams: StallStreamsFault
    def __init__(self, reject: _Optional[_Union[RejectFault, _Mapping]] = ..., latency: _Optional[_Union[LatencyFault, _Mapping]] = ..., stall_streams: _Optional[_Union[StallStreamsFault, _Mapping]] = ..., long_poll: _Optional[_Union[LongPollFault, _Mapping]] = ..., go_away: _Optional[_Union[GoAwayFault, _Mapping]] = ..., expire_tokens: _Optional[_Union[ExpireTokensFault, _Mapping]] = ...) -> None: ...

class InjectFaultResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class JobInfo(_message.Message):
    __slots__ = ["activation_count", "complete_count", "deadline", "element_instance_key", "error_code", "error_message", "error_variables", "fail_count", "fetch_variables", "fetch_variables_all", "incident_key", "key", "last_retry_backoff_ms", "process_instance_key", "retries", "retry_at", "state", "timeout_count", "type", "variables", "worker", "yield_count"]
    ACTIVATION_COUNT_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_COUNT_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    ELEMENT_INSTANCE_KEY_FIELD_NUMBER: _ClassVar[int]
    ERROR_CODE_FIELD_NUMBER: _ClassVar[int]
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    ERROR_VARIABLES_FIELD_NUMBER: _ClassVar[int]
    FAIL_COUNT_FIELD_NUMBER: _ClassVar[int]
    FETCH_VARIABLES_ALL_FIELD_NUMBER: _ClassVar[int]
    FETCH_VARIABLES_FIELD_NUMBER: _ClassVar[int]
    INCIDENT_KEY_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    LAST_RETRY_BACKOFF_MS_FIELD_NUMBER: _ClassVar[int]
    PROCESS_INSTANCE_KEY_FIELD_NUMBER: _ClassVar[int]
    RETRIES_FIELD_NUMBER: _ClassVar[int]
    RETRY_AT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_COUNT_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    YIELD_COUNT_FIELD_NUMBER: _ClassVar[int]
    activation_count: int
    complete_count: int
    deadline: int
    element_instance_key: int
    error_code: str
    error_message: str
    error_variables: str
    fail_count: int
    fetch_variables: _containers.RepeatedScalarFieldContainer[str]
    fetch_variables_all: bool
    incident_key: int
    key: int
    last_retry_backoff_ms: int
    process_instance_key: int
    retries: int
    retry_at: int
    state: JobState
    timeout_count: int
    type: str
    variables: str
    worker: str
    yield_count: int
    def __init__(self, key: _Optional[int] = ..., type: _Optional[str] = ..., state: _Optional[_Union[JobState, str]] = ..., retries: _Optional[int] = ..., worker: _Optional[str] = ..., deadline: _Optional[int] = ..., process_instance_key: _Optional[int] = ..., activation_count: _Optional[int] = ..., yield_count: _Optional[int] = ..., timeout_count: _Optional[int] = ..., complete_count: _Optional[int] = ..., fail_count: _Optional[int] = ..., error_message: _Optional[str] = ..., element_instance_key: _Optional[int] = ..., incident_key: _Optional[int] = ..., retry_at: _Optional[int] = ..., error_code: _Optional[str] = ..., error_variables: _Optional[str] = ..., variables: _Optional[str] = ..., fetch_variables: _Optional[_Iterable[str]] = ..., fetch_variables_all: bool = ..., last_retry_backoff_ms: _Optional[int] = ...) -> None: ...

class LatencyFault(_message.Message):
    __slots__ = ["delay_ms", "method"]
    DELAY_MS_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    delay_ms: int
    method: str
    def __init__(self, method: _Optional[str] = ..., delay_ms: _Optional[int] = ...) -> None: ...

class ListIncidentsRequest(_message.Message):
    __slots__ = ["process_instance_key"]
    PROCESS_INSTANCE_KEY_FIELD_NUMBER: _ClassVar[int]
    process_instance_key: int
    def __init__(self, process_instance_key: _Optional[int] = ...) -> None: ...

class ListIncidentsResponse(_message.Message):
    __slots__ = ["incidents"]
    INCIDENTS_FIELD_NUMBER: _ClassVar[int]
    incidents: _containers.RepeatedCompositeFieldContainer[IncidentInfo]
    def __init__(self, incidents: _Optional[_Iterable[_Union[IncidentInfo, _Mapping]]] = ...) -> None: ...

class ListJobsRequest(_message.Message):
    __slots__ = ["include_jobs", "include_variables", "type"]
    INCLUDE_JOBS_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_VARIABLES_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    include_jobs: bool
    include_variables: bool
    type: str
    def __init__(self, type: _Optional[str] = ..., include_jobs: bool = ..., include_variables: bool = ...) -> None: ...

class ListJobsResponse(_message.Message):
    __slots__ = ["counts_by_state", "jobs"]
    class CountsByStateEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    COUNTS_BY_STATE_FIELD_NUMBER: _ClassVar[int]
    JOBS_FIELD_NUMBER: _ClassVar[int]
    counts_by_state: _containers.ScalarMap[str, int]
    jobs: _containers.RepeatedCompositeFieldContainer[JobInfo]
    def __init__(self, counts_by_state: _Optional[_Mapping[str, int]] = ..., jobs: _Optional[_Iterable[_Union[JobInfo, _Mapping]]] = ...) -> None: ...

class ListLongPollsRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListLongPollsResponse(_message.Message):
    __slots__ = ["long_polls"]
    LONG_POLLS_FIELD_NUMBER: _ClassVar[int]
    long_polls: _containers.RepeatedCompositeFieldContainer[LongPollInfo]
    def __init__(self, long_polls: _Optional[_Iterable[_Union[LongPollInfo, _Mapping]]] = ...) -> None: ...

class ListProcessInstancesRequest(_message.Message):
    __slots__ = ["bpmn_process_id", "include_elements", "include_instances"]
    BPMN_PROCESS_ID_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_ELEMENTS_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_INSTANCES_FIELD_NUMBER: _ClassVar[int]
    bpmn_process_id: str
    include_elements: bool
    include_instances: bool
    def __init__(self, bpmn_process_id: _Optional[str] = ..., include_instances: bool = ..., include_elements: bool = ...) -> None: ...

class ListProcessInstancesResponse(_message.Message):
    __slots__ = ["counts_by_state", "instances"]
    class CountsByStateEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    COUNTS_BY_STATE_FIELD_NUMBER: _ClassVar[int]
    INSTANCES_FIELD_NUMBER: _ClassVar[int]
    counts_by_state: _containers.ScalarMap[str, int]
    instances: _containers.RepeatedCompositeFieldContainer[ProcessInstanceInfo]
    def __init__(self, counts_by_state: _Optional[_Mapping[str, int]] = ..., instances: _Optional[_Iterable[_Union[ProcessInstanceInfo, _Mapping]]] = ...) -> None: ...

class ListStreamsRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListStreamsResponse(_message.Message):
    __slots__ = ["streams"]
    STREAMS_FIELD_NUMBER: _ClassVar[int]
    streams: _containers.RepeatedCompositeFieldContainer[StreamInfo]
    def __init__(self, streams: _Optional[_Iterable[_Union[StreamInfo, _Mapping]]] = ...) -> None: ...

class LongPollFault(_message.Message):
    __slots__ = ["after_ms", "code", "count"]
    AFTER_MS_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    after_ms: int
    code: int
    count: int
    def __init__(self, code: _Optional[int] = ..., count: _Optional[int] = ..., after_ms: _Optional[int] = ...) -> None: ...

class LongPollInfo(_message.Message):
    __slots__ = ["max_jobs_to_activate", "parked_at", "peer", "type", "worker"]
    MAX_JOBS_TO_ACTIVATE_FIELD_NUMBER: _ClassVar[int]
    PARKED_AT_FIELD_NUMBER: _ClassVar[int]
    PEER_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    max_jobs_to_activate: int
    parked_at: int
    peer: str
    type: str
    worker: str
    def __init__(self, type: _Optional[str] = ..., worker: _Optional[str] = ..., peer: _Optional[str] = ..., max_jobs_to_activate: _Optional[int] = ..., parked_at: _Optional[int] = ...) -> None: ...

class PartitionInfo(_message.Message):
    __slots__ = ["active_process_instances", "committed_batches", "fsyncs", "healthy", "jobs_activatable", "jobs_activated", "log_position", "partition_id"]
    ACTIVE_PROCESS_INSTANCES_FIELD_NUMBER: _ClassVar[int]
    COMMITTED_BATCHES_FIELD_NUMBER: _ClassVar[int]
    FSYNCS_FIELD_NUMBER: _ClassVar[int]
    HEALTHY_FIELD_NUMBER: _ClassVar[int]
    JOBS_ACTIVATABLE_FIELD_NUMBER: _ClassVar[int]
    JOBS_ACTIVATED_FIELD_NUMBER: _ClassVar[int]
    LOG_POSITION_FIELD_NUMBER: _ClassVar[int]
    PARTITION_ID_FIELD_NUMBER: _ClassVar[int]
    active_process_instances: int
    committed_batches: int
    fsyncs: int
    healthy: bool
    jobs_activatable: int
    jobs_activated: int
    log_position: int
    partition_id: int
    def __init__(self, partition_id: _Optional[int] = ..., log_position: _Optional[int] = ..., committed_batches: _Optional[int] = ..., fsyncs: _Optional[int] = ..., active_process_instances: _Optional[int] = ..., jobs_activatable: _Optional[int] = ..., jobs_activated: _Optional[int] = ..., healthy: bool = ...) -> None: ...

class ProcessInstanceInfo(_message.Message):
    __slots__ = ["active_elements", "bpmn_process_id", "completion_count", "incident_count", "key", "process_definition_key", "state", "variables", "version"]
    ACTIVE_ELEMENTS_FIELD_NUMBER: _ClassVar[int]
    BPMN_PROCESS_ID_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_COUNT_FIELD_NUMBER: _ClassVar[int]
    INCIDENT_COUNT_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    PROCESS_DEFINITION_KEY_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    active_elements: _containers.RepeatedCompositeFieldContainer[ElementInstanceInfo]
    bpmn_process_id: str
    completion_count: int
    incident_count: int
    key: int
    process_definition_key: int
    state: ProcessInstanceState
    variables: str
    version: int
    def __init__(self, key: _Optional[int] = ..., bpmn_process_id: _Optional[str] = ..., state: _Optional[_Union[ProcessInstanceState, str]] = ..., variables: _Optional[str] = ..., completion_count: _Optional[int] = ..., process_definition_key: _Optional[int] = ..., version: _Optional[int] = ..., incident_count: _Optional[int] = ..., active_elements: _Optional[_Iterable[_Union[ElementInstanceInfo, _Mapping]]] = ...) -> None: ...

class RejectFault(_message.Message):
    __slots__ = ["after_apply", "code", "count", "message", "method", "partition_id"]
    AFTER_APPLY_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    PARTITION_ID_FIELD_NUMBER: _ClassVar[int]
    after_apply: bool
    code: int
    count: int
    message: str
    method: str
    partition_id: int
    def __init__(self, method: _Optional[str] = ..., code: _Optional[int] = ..., count: _Optional[int] = ..., message: _Optional[str] = ..., partition_id: _Optional[int] = ..., after_apply: bool = ...) -> None: ...

class RequestCount(_message.Message):
    __slots__ = ["by_code", "count", "method", "peer", "timestamps"]
    class ByCodeEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    BY_CODE_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    PEER_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMPS_FIELD_NUMBER: _ClassVar[int]
    by_code: _containers.ScalarMap[str, int]
    count: int
    method: str
    peer: str
    timestamps: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, method: _Optional[str] = ..., peer: _Optional[str] = ..., count: _Optional[int] = ..., by_code: _Optional[_Mapping[str, int]] = ..., timestamps: _Optional[_Iterable[int]] = ...) -> None: ...

class ResetStateRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ResetStateResponse(_message.Message):
    __slots__ = ["partitions_reset"]
    PARTITIONS_RESET_FIELD_NUMBER: _ClassVar[int]
    partitions_reset: int
    def __init__(self, partitions_reset: _Optional[int] = ...) -> None: ...

class ResetStreamsRequest(_message.Message):
    __slots__ = ["code", "include_long_polls"]
    CODE_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_LONG_POLLS_FIELD_NUMBER: _ClassVar[int]
    code: int
    include_long_polls: bool
    def __init__(self, code: _Optional[int] = ..., include_long_polls: bool = ...) -> None: ...

class ResetStreamsResponse(_message.Message):
    __slots__ = ["long_polls_closed", "streams_closed"]
    LONG_POLLS_CLOSED_FIELD_NUMBER: _ClassVar[int]
    STREAMS_CLOSED_FIELD_NUMBER: _ClassVar[int]
    long_polls_closed: int
    streams_closed: int
    def __init__(self, streams_closed: _Optional[int] = ..., long_polls_closed: _Optional[int] = ...) -> None: ...

class RestartGatewayRequest(_message.Message):
    __slots__ = ["graceful", "index"]
    GRACEFUL_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    graceful: bool
    index: int
    def __init__(self, index: _Optional[int] = ..., graceful: bool = ...) -> None: ...

class RestartGatewayResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class SetClockRequest(_message.Message):
    __slots__ = ["epoch_ms"]
    EPOCH_MS_FIELD_NUMBER: _ClassVar[int]
    epoch_ms: int
    def __init__(self, epoch_ms: _Optional[int] = ...) -> None: ...

class SetClockResponse(_message.Message):
    __slots__ = ["fired", "now_ms", "offset_ms"]
    FIRED_FIELD_NUMBER: _ClassVar[int]
    NOW_MS_FIELD_NUMBER: _ClassVar[int]
    OFFSET_MS_FIELD_NUMBER: _ClassVar[int]
    fired: int
    now_ms: int
    offset_ms: int
    def __init__(self, now_ms: _Optional[int] = ..., offset_ms: _Optional[int] = ..., fired: _Optional[int] = ...) -> None: ...

class StallStreamsFault(_message.Message):
    __slots__ = ["duration_ms", "type"]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    duration_ms: int
    type: str
    def __init__(self, type: _Optional[str] = ..., duration_ms: _Optional[int] = ...) -> None: ...

class StartBrokerRequest(_message.Message):
    __slots__ = ["node_id"]
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    node_id: int
    def __init__(self, node_id: _Optional[int] = ...) -> None: ...

class StartBrokerResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class StopBrokerRequest(_message.Message):
    __slots__ = ["graceful", "node_id"]
    GRACEFUL_FIELD_NUMBER: _ClassVar[int]
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    graceful: bool
    node_id: int
    def __init__(self, node_id: _Optional[int] = ..., graceful: bool = ...) -> None: ...

class StopBrokerResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class StreamInfo(_message.Message):
    __slots__ = ["aggregate_id", "id", "jobs_pushed", "jobs_yielded", "peer", "ready", "type", "worker"]
    AGGREGATE_ID_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    JOBS_PUSHED_FIELD_NUMBER: _ClassVar[int]
    JOBS_YIELDED_FIELD_NUMBER: _ClassVar[int]
    PEER_FIELD_NUMBER: _ClassVar[int]
    READY_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    aggregate_id: str
    id: str
    jobs_pushed: int
    jobs_yielded: int
    peer: str
    ready: bool
    type: str
    worker: str
    def __init__(self, id: _Optional[str] = ..., type: _Optional[str] = ..., worker: _Optional[str] = ..., peer: _Optional[str] = ..., jobs_pushed: _Optional[int] = ..., jobs_yielded: _Optional[int] = ..., ready: bool = ..., aggregate_id: _Optional[str] = ...) -> None: ...

class JobState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class ProcessInstanceState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
