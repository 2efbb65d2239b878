import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AdminServiceClient as _jobwire_admin_v1_AdminServiceClient, AdminServiceDefinition as _jobwire_admin_v1_AdminServiceDefinition } from './jobwire/admin/v1/AdminService';
import type { AdvanceClockRequest as _jobwire_admin_v1_AdvanceClockRequest, AdvanceClockRequest__Output as _jobwire_admin_v1_AdvanceClockRequest__Output } from './jobwire/admin/v1/AdvanceClockRequest';
import type { AdvanceClockResponse as _jobwire_admin_v1_AdvanceClockResponse, AdvanceClockResponse__Output as _jobwire_admin_v1_AdvanceClockResponse__Output } from './jobwire/admin/v1/AdvanceClockResponse';
import type { BrokerProcess as _jobwire_admin_v1_BrokerProcess, BrokerProcess__Output as _jobwire_admin_v1_BrokerProcess__Output } from './jobwire/admin/v1/BrokerProcess';
import type { ClearFaultsRequest as _jobwire_admin_v1_ClearFaultsRequest, ClearFaultsRequest__Output as _jobwire_admin_v1_ClearFaultsRequest__Output } from './jobwire/admin/v1/ClearFaultsRequest';
import type { ClearFaultsResponse as _jobwire_admin_v1_ClearFaultsResponse, ClearFaultsResponse__Output as _jobwire_admin_v1_ClearFaultsResponse__Output } from './jobwire/admin/v1/ClearFaultsResponse';
import type { ElementInstanceInfo as _jobwire_admin_v1_ElementInstanceInfo, ElementInstanceInfo__Output as _jobwire_admin_v1_ElementInstanceInfo__Output } from './jobwire/admin/v1/ElementInstanceInfo';
import type { ExpireTokensFault as _jobwire_admin_v1_ExpireTokensFault, ExpireTokensFault__Output as _jobwire_admin_v1_ExpireTokensFault__Output } from './jobwire/admin/v1/ExpireTokensFault';
import type { GatewayProcess as _jobwire_admin_v1_GatewayProcess, GatewayProcess__Output as _jobwire_admin_v1_GatewayProcess__Output } from './jobwire/admin/v1/GatewayProcess';
import type { GetClockRequest as _jobwire_admin_v1_GetClockRequest, GetClockRequest__Output as _jobwire_admin_v1_GetClockRequest__Output } from './jobwire/admin/v1/GetClockRequest';
import type { GetClockResponse as _jobwire_admin_v1_GetClockResponse, GetClockResponse__Output as _jobwire_admin_v1_GetClockResponse__Output } from './jobwire/admin/v1/GetClockResponse';
import type { GetClusterRequest as _jobwire_admin_v1_GetClusterRequest, GetClusterRequest__Output as _jobwire_admin_v1_GetClusterRequest__Output } from './jobwire/admin/v1/GetClusterRequest';
import type { GetClusterResponse as _jobwire_admin_v1_GetClusterResponse, GetClusterResponse__Output as _jobwire_admin_v1_GetClusterResponse__Output } from './jobwire/admin/v1/GetClusterResponse';
import type { GetPartitionsRequest as _jobwire_admin_v1_GetPartitionsRequest, GetPartitionsRequest__Output as _jobwire_admin_v1_GetPartitionsRequest__Output } from './jobwire/admin/v1/GetPartitionsRequest';
import type { GetPartitionsResponse as _jobwire_admin_v1_GetPartitionsResponse, GetPartitionsResponse__Output as _jobwire_admin_v1_GetPartitionsResponse__Output } from './jobwire/admin/v1/GetPartitionsResponse';
import type { GetRequestCountsRequest as _jobwire_admin_v1_GetRequestCountsRequest, GetRequestCountsRequest__Output as _jobwire_admin_v1_GetRequestCountsRequest__Output } from './jobwire/admin/v1/GetRequestCountsRequest';
import type { GetRequestCountsResponse as _jobwire_admin_v1_GetRequestCountsResponse, GetRequestCountsResponse__Output as _jobwire_admin_v1_GetRequestCountsResponse__Output } from './jobwire/admin/v1/GetRequestCountsResponse';
import type { GoAwayFault as _jobwire_admin_v1_GoAwayFault, GoAwayFault__Output as _jobwire_admin_v1_GoAwayFault__Output } from './jobwire/admin/v1/GoAwayFault';
import type { IncidentInfo as _jobwire_admin_v1_IncidentInfo, IncidentInfo__Output as _jobwire_admin_v1_IncidentInfo__Output } from './jobwire/admin/v1/IncidentInfo';
import type { InjectFaultRequest as _jobwire_admin_v1_InjectFaultRequest, InjectFaultRequest__Output as _jobwire_admin_v1_InjectFaultRequest__Output } from './jobwire/admin/v1/InjectFaultRequest';
import type { InjectFaultResponse as _jobwire_admin_v1_InjectFaultResponse, InjectFaultResponse__Output as _jobwire_admin_v1_InjectFaultResponse__Output } from './jobwire/admin/v1/InjectFaultResponse';
import type { JobInfo as _jobwire_admin_v1_JobInfo, JobInfo__Output as _jobwire_admin_v1_JobInfo__Output } from './jobwire/admin/v1/JobInfo';
import type { LatencyFault as _jobwire_admin_v1_LatencyFault, LatencyFault__Output as _jobwire_admin_v1_LatencyFault__Output } from './jobwire/admin/v1/LatencyFault';
import type { ListIncidentsRequest as _jobwire_admin_v1_ListIncidentsRequest, ListIncidentsRequest__Output as _jobwire_admin_v1_ListIncidentsRequest__Output } from './jobwire/admin/v1/ListIncidentsRequest';
import type { ListIncidentsResponse as _jobwire_admin_v1_ListIncidentsResponse, ListIncidentsResponse__Output as _jobwire_admin_v1_ListIncidentsResponse__Output } from './jobwire/admin/v1/ListIncidentsResponse';
import type { ListJobsRequest as _jobwire_admin_v1_ListJobsRequest, ListJobsRequest__Output as _jobwire_admin_v1_ListJobsRequest__Output } from './jobwire/admin/v1/ListJobsRequest';
import type { ListJobsResponse as _jobwire_admin_v1_ListJobsResponse, ListJobsResponse__Output as _jobwire_admin_v1_ListJobsResponse__Output } from './jobwire/admin/v1/ListJobsResponse';
import type { ListLongPollsRequest as _jobwire_admin_v1_ListLongPollsRequest, ListLongPollsRequest__Output as _jobwire_admin_v1_ListLongPollsRequest__Output } from './jobwire/admin/v1/ListLongPollsRequest';
import type { ListLongPollsResponse as _jobwire_admin_v1_ListLongPollsResponse, ListLongPollsResponse__Output as _jobwire_admin_v1_ListLongPollsResponse__Output } from './jobwire/admin/v1/ListLongPollsResponse';
import type { ListProcessInstancesRequest as _jobwire_admin_v1_ListProcessInstancesRequest, ListProcessInstancesRequest__Output as _jobwire_admin_v1_ListProcessInstancesRequest__Output } from './jobwire/admin/v1/ListProcessInstancesRequest';
import type { ListProcessInstancesResponse as _jobwire_admin_v1_ListProcessInstancesResponse, ListProcessInstancesResponse__Output as _jobwire_admin_v1_ListProcessInstancesResponse__Output } from './jobwire/admin/v1/ListProcessInstancesResponse';
import type { ListStreamsRequest as _jobwire_admin_v1_ListStreamsRequest, ListStreamsRequest__Output as _jobwire_admin_v1_ListStreamsRequest__Output } from './jobwire/admin/v1/ListStreamsRequest';
import type { ListStreamsResponse as _jobwire_admin_v1_ListStreamsResponse, ListStreamsResponse__Output as _jobwire_admin_v1_ListStreamsResponse__Output } from './jobwire/admin/v1/ListStreamsResponse';
import type { LongPollFault as _jobwire_admin_v1_LongPollFault, LongPollFault__Output as _jobwire_admin_v1_LongPollFault__Output } from './jobwire/admin/v1/LongPollFault';
import type { LongPollInfo as _jobwire_admin_v1_LongPollInfo, LongPollInfo__Output as _jobwire_admin_v1_LongPollInfo__Output } from './jobwire/admin/v1/LongPollInfo';
import type { PartitionInfo as _jobwire_admin_v1_PartitionInfo, PartitionInfo__Output as _jobwire_admin_v1_PartitionInfo__Output } from './jobwire/admin/v1/PartitionInfo';
import type { ProcessInstanceInfo as _jobwire_admin_v1_ProcessInstanceInfo, ProcessInstanceInfo__Output as _jobwire_admin_v1_ProcessInstanceInfo__Output } from './jobwire/admin/v1/ProcessInstanceInfo';
import type { RejectFault as _jobwire_admin_v1_RejectFault, RejectFault__Output as _jobwire_admin_v1_RejectFault__Output } from './jobwire/admin/v1/RejectFault';
import type { RequestCount as _jobwire_admin_v1_RequestCount, RequestCount__Output as _jobwire_admin_v1_RequestCount__Output } from './jobwire/admin/v1/RequestCount';
import type { ResetStateRequest as _jobwire_admin_v1_ResetStateRequest, ResetStateRequest__Output as _jobwire_admin_v1_ResetStateRequest__Output } from './jobwire/admin/v1/ResetStateRequest';
import type { ResetStateResponse as _jobwire_admin_v1_ResetStateResponse, ResetStateResponse__Output as _jobwire_admin_v1_ResetStateResponse__Output } from './jobwire/admin/v1/ResetStateResponse';
import type { ResetStreamsRequest as _jobwire_admin_v1_ResetStreamsRequest, ResetStreamsRequest__Output as _jobwire_admin_v1_ResetStreamsRequest__Output } from './jobwire/admin/v1/ResetStreamsRequest';
import type { ResetStreamsResponse as _jobwire_admin_v1_ResetStreamsResponse, ResetStreamsResponse__Output as _jobwire_admin_v1_ResetStreamsResponse__Output } from './jobwire/admin/v1/ResetStreamsResponse';
import type { RestartGatewayRequest as _jobwire_admin_v1_RestartGatewayRequest, RestartGatewayRequest__Output as _jobwire_admin_v1_RestartGatewayRequest__Output } from './jobwire/admin/v1/RestartGatewayRequest';
import type { RestartGatewayResponse as _jobwire_admin_v1_RestartGatewayResponse, RestartGatewayResponse__Output as _jobwire_admin_v1_RestartGatewayResponse__Output } from './jobwire/admin/v1/RestartGatewayResponse';
import type { SetClockRequest as _jobwire_admin_v1_SetClockRequest, SetClockRequest__Output as _jobwire_admin_v1_SetClockRequest__Output } from './jobwire/admin/v1/SetClockRequest';
import type { SetClockResponse as _jobwire_admin_v1_SetClockResponse, SetClockResponse__Output as _jobwire_admin_v1_SetClockResponse__Output } from './jobwire/admin/v1/SetClockResponse';
import type { StallStreamsFault as _jobwire_admin_v1_StallStreamsFault, StallStreamsFault__Output as _jobwire_admin_v1_StallStreamsFault__Output } from './jobwire/admin/v1/StallStreamsFault';
import type { StartBrokerRequest as _jobwire_admin_v1_StartBrokerRequest, StartBrokerRequest__Output as _jobwire_admin_v1_StartBrokerRequest__Output } from './jobwire/admin/v1/StartBrokerRequest';
import type { StartBrokerResponse as _jobwire_admin_v1_StartBrokerResponse, StartBrokerResponse__Output as _jobwire_admin_v1_StartBrokerResponse__Output } from './jobwire/admin/v1/StartBrokerResponse';
import type { StopBrokerRequest as _jobwire_admin_v1_StopBrokerRequest, StopBrokerRequest__Output as _jobwire_admin_v1_StopBrokerRequest__Output } from './jobwire/admin/v1/StopBrokerRequest';
import type { StopBrokerResponse as _jobwire_admin_v1_StopBrokerResponse, StopBrokerResponse__Output as _jobwire_admin_v1_StopBrokerResponse__Output } from './jobwire/admin/v1/StopBrokerResponse';
import type { StreamInfo as _jobwire_admin_v1_StreamInfo, StreamInfo__Output as _jobwire_admin_v1_StreamInfo__Output } from './jobwire/admin/v1/StreamInfo';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  jobwire: {
    admin: {
      v1: {
        AdminService: SubtypeConstructor<typeof grpc.Client, _jobwire_admin_v1_AdminServiceClient> & { service: _jobwire_admin_v1_AdminServiceDefinition }
        AdvanceClockRequest: MessageTypeDefinition<_jobwire_admin_v1_AdvanceClockRequest, _jobwire_admin_v1_AdvanceClockRequest__Output>
        AdvanceClockResponse: MessageTypeDefinition<_jobwire_admin_v1_AdvanceClockResponse, _jobwire_admin_v1_AdvanceClockResponse__Output>
        BrokerProcess: MessageTypeDefinition<_jobwire_admin_v1_BrokerProcess, _jobwire_admin_v1_BrokerProcess__Output>
        ClearFaultsRequest: MessageTypeDefinition<_jobwire_admin_v1_ClearFaultsRequest, _jobwire_admin_v1_ClearFaultsRequest__Output>
        ClearFaultsResponse: MessageTypeDefinition<_jobwire_admin_v1_ClearFaultsResponse, _jobwire_admin_v1_ClearFaultsResponse__Output>
        ElementInstanceInfo: MessageTypeDefinition<_jobwire_admin_v1_ElementInstanceInfo, _jobwire_admin_v1_ElementInstanceInfo__Output>
        ExpireTokensFault: MessageTypeDefinition<_jobwire_admin_v1_ExpireTokensFault, _jobwire_admin_v1_ExpireTokensFault__Output>
        GatewayProcess: MessageTypeDefinition<_jobwire_admin_v1_GatewayProcess, _jobwire_admin_v1_GatewayProcess__Output>
        GetClockRequest: MessageTypeDefinition<_jobwire_admin_v1_GetClockRequest, _jobwire_admin_v1_GetClockRequest__Output>
        GetClockResponse: MessageTypeDefinition<_jobwire_admin_v1_GetClockResponse, _jobwire_admin_v1_GetClockResponse__Output>
        GetClusterRequest: MessageTypeDefinition<_jobwire_admin_v1_GetClusterRequest, _jobwire_admin_v1_GetClusterRequest__Output>
        GetClusterResponse: MessageTypeDefinition<_jobwire_admin_v1_GetClusterResponse, _jobwire_admin_v1_GetClusterResponse__Output>
        GetPartitionsRequest: MessageTypeDefinition<_jobwire_admin_v1_GetPartitionsRequest, _jobwire_admin_v1_GetPartitionsRequest__Output>
        GetPartitionsResponse: MessageTypeDefinition<_jobwire_admin_v1_GetPartitionsResponse, _jobwire_admin_v1_GetPartitionsResponse__Output>
        GetRequestCountsRequest: MessageTypeDefinition<_jobwire_admin_v1_GetRequestCountsRequest, _jobwire_admin_v1_GetRequestCountsRequest__Output>
        GetRequestCountsResponse: MessageTypeDefinition<_jobwire_admin_v1_GetRequestCountsResponse, _jobwire_admin_v1_GetRequestCountsResponse__Output>
        GoAwayFault: MessageTypeDefinition<_jobwire_admin_v1_GoAwayFault, _jobwire_admin_v1_GoAwayFault__Output>
        IncidentInfo: MessageTypeDefinition<_jobwire_admin_v1_IncidentInfo, _jobwire_admin_v1_IncidentInfo__Output>
        InjectFaultRequest: MessageTypeDefinition<_jobwire_admin_v1_InjectFaultRequest, _jobwire_admin_v1_InjectFaultRequest__Output>
        InjectFaultResponse: MessageTypeDefinition<_jobwire_admin_v1_InjectFaultResponse, _jobwire_admin_v1_InjectFaultResponse__Output>
        JobInfo: MessageTypeDefinition<_jobwire_admin_v1_JobInfo, _jobwire_admin_v1_JobInfo__Output>
        JobState: EnumTypeDefinition
        LatencyFault: MessageTypeDefinition<_jobwire_admin_v1_LatencyFault, _jobwire_admin_v1_LatencyFault__Output>
        ListIncidentsRequest: MessageTypeDefinition<_jobwire_admin_v1_ListIncidentsRequest, _jobwire_admin_v1_ListIncidentsRequest__Output>
        ListIncidentsResponse: MessageTypeDefinition<_jobwire_admin_v1_ListIncidentsResponse, _jobwire_admin_v1_ListIncidentsResponse__Output>
        ListJobsRequest: MessageTypeDefinition<_jobwire_admin_v1_ListJobsRequest, _jobwire_admin_v1_ListJobsRequest__Output>
        ListJobsResponse: MessageTypeDefinition<_jobwire_admin_v1_ListJobsResponse, _jobwire_admin_v1_ListJobsResponse__Output>
        ListLongPollsRequest: MessageTypeDefinition<_jobwire_admin_v1_ListLongPollsRequest, _jobwire_admin_v1_ListLongPollsRequest__Output>
        ListLongPollsResponse: MessageTypeDefinition<_jobwire_admin_v1_ListLongPollsResponse, _jobwire_admin_v1_ListLongPollsResponse__Output>
        ListProcessInstancesRequest: MessageTypeDefinition<_jobwire_admin_v1_ListProcessInstancesRequest, _jobwire_admin_v1_ListProcessInstancesRequest__Output>
        ListProcessInstancesResponse: MessageTypeDefinition<_jobwire_admin_v1_ListProcessInstancesResponse, _jobwire_admin_v1_ListProcessInstancesResponse__Output>
        ListStreamsRequest: MessageTypeDefinition<_jobwire_admin_v1_ListStreamsRequest, _jobwire_admin_v1_ListStreamsRequest__Output>
        ListStreamsResponse: MessageTypeDefinition<_jobwire_admin_v1_ListStreamsResponse, _jobwire_admin_v1_ListStreamsResponse__Output>
        LongPollFault: MessageTypeDefinition<_jobwire_admin_v1_LongPollFault, _jobwire_admin_v1_LongPollFault__Output>
        LongPollInfo: MessageTypeDefinition<_jobwire_admin_v1_LongPollInfo, _jobwire_admin_v1_LongPollInfo__Output>
        PartitionInfo: MessageTypeDefinition<_jobwire_admin_v1_PartitionInfo, _jobwire_admin_v1_PartitionInfo__Output>
        ProcessInstanceInfo: MessageTypeDefinition<_jobwire_admin_v1_ProcessInstanceInfo, _jobwire_admin_v1_ProcessInstanceInfo__Output>
        ProcessInstanceState: EnumTypeDefinition
        RejectFault: MessageTypeDefinition<_jobwire_admin_v1_RejectFault, _jobwire_admin_v1_RejectFault__Output>
        RequestCount: MessageTypeDefinition<_jobwire_admin_v1_RequestCount, _jobwire_admin_v1_RequestCount__Output>
        ResetStateRequest: MessageTypeDefinition<_jobwire_admin_v1_ResetStateRequest, _jobwire_admin_v1_ResetStateRequest__Output>
        ResetStateResponse: MessageTypeDefinition<_jobwire_admin_v1_ResetStateResponse, _jobwire_admin_v1_ResetStateResponse__Output>
        ResetStreamsRequest: MessageTypeDefinition<_jobwire_admin_v1_ResetStreamsRequest, _jobwire_admin_v1_ResetStreamsRequest__Output>
        ResetStreamsResponse: MessageTypeDefinition<_jobwire_admin_v1_ResetStreamsResponse, _jobwire_admin_v1_ResetStreamsResponse__Output>
        RestartGatewayRequest: MessageTypeDefinition<_jobwire_admin_v1_RestartGatewayRequest, _jobwire_admin_v1_RestartGatewayRequest__Output>
        RestartGatewayResponse: MessageTypeDefinition<_jobwire_admin_v1_RestartGatewayResponse, _jobwire_admin_v1_RestartGatewayResponse__Output>
        SetClockRequest: MessageTypeDefinition<_jobwire_admin_v1_SetClockRequest, _jobwire_admin_v1_SetClockRequest__Output>
        SetClockResponse: MessageTypeDefinition<_jobwire_admin_v1_SetClockResponse, _jobwire_admin_v1_SetClockResponse__Output>
        StallStreamsFault: MessageTypeDefinition<_jobwire_admin_v1_StallStreamsFault, _jobwire_admin_v1_StallStreamsFault__Output>
        StartBrokerRequest: MessageTypeDefinition<_jobwire_admin_v1_StartBrokerRequest, _jobwire_admin_v1_StartBrokerRequest__Output>
        StartBrokerResponse: MessageTypeDefinition<_jobwire_admin_v1_StartBrokerResponse, _jobwire_admin_v1_StartBrokerResponse__Output>
        StopBrokerRequest: MessageTypeDefinition<_jobwire_admin_v1_StopBrokerRequest, _jobwire_admin_v1_StopBrokerRequest__Output>
        StopBrokerResponse: MessageTypeDefinition<_jobwire_admin_v1_StopBrokerResponse, _jobwire_admin_v1_StopBrokerResponse__Output>
        StreamInfo: MessageTypeDefinition<_jobwire_admin_v1_StreamInfo, _jobwire_admin_v1_StreamInfo__Output>
      }
    }
  }
}

