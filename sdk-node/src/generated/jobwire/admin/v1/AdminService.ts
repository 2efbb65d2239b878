// Original file: proto/admin.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AdvanceClockRequest as _jobwire_admin_v1_AdvanceClockRequest, AdvanceClockRequest__Output as _jobwire_admin_v1_AdvanceClockRequest__Output } from '../../../jobwire/admin/v1/AdvanceClockRequest';
import type { AdvanceClockResponse as _jobwire_admin_v1_AdvanceClockResponse, AdvanceClockResponse__Output as _jobwire_admin_v1_AdvanceClockResponse__Output } from '../../../jobwire/admin/v1/AdvanceClockResponse';
import type { ClearFaultsRequest as _jobwire_admin_v1_ClearFaultsRequest, ClearFaultsRequest__Output as _jobwire_admin_v1_ClearFaultsRequest__Output } from '../../../jobwire/admin/v1/ClearFaultsRequest';
import type { ClearFaultsResponse as _jobwire_admin_v1_ClearFaultsResponse, ClearFaultsResponse__Output as _jobwire_admin_v1_ClearFaultsResponse__Output } from '../../../jobwire/admin/v1/ClearFaultsResponse';
import type { GetClockRequest as _jobwire_admin_v1_GetClockRequest, GetClockRequest__Output as _jobwire_admin_v1_GetClockRequest__Output } from '../../../jobwire/admin/v1/GetClockRequest';
import type { GetClockResponse as _jobwire_admin_v1_GetClockResponse, GetClockResponse__Output as _jobwire_admin_v1_GetClockResponse__Output } from '../../../jobwire/admin/v1/GetClockResponse';
import type { GetClusterRequest as _jobwire_admin_v1_GetClusterRequest, GetClusterRequest__Output as _jobwire_admin_v1_GetClusterRequest__Output } from '../../../jobwire/admin/v1/GetClusterRequest';
import type { GetClusterResponse as _jobwire_admin_v1_GetClusterResponse, GetClusterResponse__Output as _jobwire_admin_v1_GetClusterResponse__Output } from '../../../jobwire/admin/v1/GetClusterResponse';
import type { GetPartitionsRequest as _jobwire_admin_v1_GetPartitionsRequest, GetPartitionsRequest__Output as _jobwire_admin_v1_GetPartitionsRequest__Output } from '../../../jobwire/admin/v1/GetPartitionsRequest';
import type { GetPartitionsResponse as _jobwire_admin_v1_GetPartitionsResponse, GetPartitionsResponse__Output as _jobwire_admin_v1_GetPartitionsResponse__Output } from '../../../jobwire/admin/v1/GetPartitionsResponse';
import type { GetRequestCountsRequest as _jobwire_admin_v1_GetRequestCountsRequest, GetRequestCountsRequest__Output as _jobwire_admin_v1_GetRequestCountsRequest__Output } from '../../../jobwire/admin/v1/GetRequestCountsRequest';
import type { GetRequestCountsResponse as _jobwire_admin_v1_GetRequestCountsResponse, GetRequestCountsResponse__Output as _jobwire_admin_v1_GetRequestCountsResponse__Output } from '../../../jobwire/admin/v1/GetRequestCountsResponse';
import type { InjectFaultRequest as _jobwire_admin_v1_InjectFaultRequest, InjectFaultRequest__Output as _jobwire_admin_v1_InjectFaultRequest__Output } from '../../../jobwire/admin/v1/InjectFaultRequest';
import type { InjectFaultResponse as _jobwire_admin_v1_InjectFaultResponse, InjectFaultResponse__Output as _jobwire_admin_v1_InjectFaultResponse__Output } from '../../../jobwire/admin/v1/InjectFaultResponse';
import type { ListIncidentsRequest as _jobwire_admin_v1_ListIncidentsRequest, ListIncidentsRequest__Output as _jobwire_admin_v1_ListIncidentsRequest__Output } from '../../../jobwire/admin/v1/ListIncidentsRequest';
import type { ListIncidentsResponse as _jobwire_admin_v1_ListIncidentsResponse, ListIncidentsResponse__Output as _jobwire_admin_v1_ListIncidentsResponse__Output } from '../../../jobwire/admin/v1/ListIncidentsResponse';
import type { ListJobsRequest as _jobwire_admin_v1_ListJobsRequest, ListJobsRequest__Output as _jobwire_admin_v1_ListJobsRequest__Output } from '../../../jobwire/admin/v1/ListJobsRequest';
import type { ListJobsResponse as _jobwire_admin_v1_ListJobsResponse, ListJobsResponse__Output as _jobwire_admin_v1_ListJobsResponse__Output } from '../../../jobwire/admin/v1/ListJobsResponse';
import type { ListLongPollsRequest as _jobwire_admin_v1_ListLongPollsRequest, ListLongPollsRequest__Output as _jobwire_admin_v1_ListLongPollsRequest__Output } from '../../../jobwire/admin/v1/ListLongPollsRequest';
import type { ListLongPollsResponse as _jobwire_admin_v1_ListLongPollsResponse, ListLongPollsResponse__Output as _jobwire_admin_v1_ListLongPollsResponse__Output } from '../../../jobwire/admin/v1/ListLongPollsResponse';
import type { ListProcessInstancesRequest as _jobwire_admin_v1_ListProcessInstancesRequest, ListProcessInstancesRequest__Output as _jobwire_admin_v1_ListProcessInstancesRequest__Output } from '../../../jobwire/admin/v1/ListProcessInstancesRequest';
import type { ListProcessInstancesResponse as _jobwire_admin_v1_ListProcessInstancesResponse, ListProcessInstancesResponse__Output as _jobwire_admin_v1_ListProcessInstancesResponse__Output } from '../../../jobwire/admin/v1/ListProcessInstancesResponse';
import type { ListStreamsRequest as _jobwire_admin_v1_ListStreamsRequest, ListStreamsRequest__Output as _jobwire_admin_v1_ListStreamsRequest__Output } from '../../../jobwire/admin/v1/ListStreamsRequest';
import type { ListStreamsResponse as _jobwire_admin_v1_ListStreamsResponse, ListStreamsResponse__Output as _jobwire_admin_v1_ListStreamsResponse__Output } from '../../../jobwire/admin/v1/ListStreamsResponse';
import type { ResetStateRequest as _jobwire_admin_v1_ResetStateRequest, ResetStateRequest__Output as _jobwire_admin_v1_ResetStateRequest__Output } from '../../../jobwire/admin/v1/ResetStateRequest';
import type { ResetStateResponse as _jobwire_admin_v1_ResetStateResponse, ResetStateResponse__Output as _jobwire_admin_v1_ResetStateResponse__Output } from '../../../jobwire/admin/v1/ResetStateResponse';
import type { ResetStreamsRequest as _jobwire_admin_v1_ResetStreamsRequest, ResetStreamsRequest__Output as _jobwire_admin_v1_ResetStreamsRequest__Output } from '../../../jobwire/admin/v1/ResetStreamsRequest';
import type { ResetStreamsResponse as _jobwire_admin_v1_ResetStreamsResponse, ResetStreamsResponse__Output as _jobwire_admin_v1_ResetStreamsResponse__Output } from '../../../jobwire/admin/v1/ResetStreamsResponse';
import type { RestartGatewayRequest as _jobwire_admin_v1_RestartGatewayRequest, RestartGatewayRequest__Output as _jobwire_admin_v1_RestartGatewayRequest__Output } from '../../../jobwire/admin/v1/RestartGatewayRequest';
import type { RestartGatewayResponse as _jobwire_admin_v1_RestartGatewayResponse, RestartGatewayResponse__Output as _jobwire_admin_v1_RestartGatewayResponse__Output } from '../../../jobwire/admin/v1/RestartGatewayResponse';
import type { SetClockRequest as _jobwire_admin_v1_SetClockRequest, SetClockRequest__Output as _jobwire_admin_v1_SetClockRequest__Output } from '../../../jobwire/admin/v1/SetClockRequest';
import type { SetClockResponse as _jobwire_admin_v1_SetClockResponse, SetClockResponse__Output as _jobwire_admin_v1_SetClockResponse__Output } from '../../../jobwire/admin/v1/SetClockResponse';
import type { StartBrokerRequest as _jobwire_admin_v1_StartBrokerRequest, StartBrokerRequest__Output as _jobwire_admin_v1_StartBrokerRequest__Output } from '../../../jobwire/admin/v1/StartBrokerRequest';
import type { StartBrokerResponse as _jobwire_admin_v1_StartBrokerResponse, StartBrokerResponse__Output as _jobwire_admin_v1_StartBrokerResponse__Output } from '../../../jobwire/admin/v1/StartBrokerResponse';
import type { StopBrokerRequest as _jobwire_admin_v1_StopBrokerRequest, StopBrokerRequest__Output as _jobwire_admin_v1_StopBrokerRequest__Output } from '../../../jobwire/admin/v1/StopBrokerRequest';
import type { StopBrokerResponse as _jobwire_admin_v1_StopBrokerResponse, StopBrokerResponse__Output as _jobwire_admin_v1_StopBrokerResponse__Output } from '../../../jobwire/admin/v1/StopBrokerResponse';

export interface AdminServiceClient extends grpc.Client {
  AdvanceClock(argument: _jobwire_admin_v1_AdvanceClockRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_AdvanceClockResponse__Output>): grpc.ClientUnaryCall;
  AdvanceClock(argument: _jobwire_admin_v1_AdvanceClockRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_AdvanceClockResponse__Output>): grpc.ClientUnaryCall;
  AdvanceClock(argument: _jobwire_admin_v1_AdvanceClockRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_AdvanceClockResponse__Output>): grpc.ClientUnaryCall;
  AdvanceClock(argument: _jobwire_admin_v1_AdvanceClockRequest, callback: grpc.requestCallback<_jobwire_admin_v1_AdvanceClockResponse__Output>): grpc.ClientUnaryCall;
  advanceClock(argument: _jobwire_admin_v1_AdvanceClockRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_AdvanceClockResponse__Output>): grpc.ClientUnaryCall;
  advanceClock(argument: _jobwire_admin_v1_AdvanceClockRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_AdvanceClockResponse__Output>): grpc.ClientUnaryCall;
  advanceClock(argument: _jobwire_admin_v1_AdvanceClockRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_AdvanceClockResponse__Output>): grpc.ClientUnaryCall;
  advanceClock(argument: _jobwire_admin_v1_AdvanceClockRequest, callback: grpc.requestCallback<_jobwire_admin_v1_AdvanceClockResponse__Output>): grpc.ClientUnaryCall;
  
  ClearFaults(argument: _jobwire_admin_v1_ClearFaultsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ClearFaultsResponse__Output>): grpc.ClientUnaryCall;
  ClearFaults(argument: _jobwire_admin_v1_ClearFaultsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_ClearFaultsResponse__Output>): grpc.ClientUnaryCall;
  ClearFaults(argument: _jobwire_admin_v1_ClearFaultsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ClearFaultsResponse__Output>): grpc.ClientUnaryCall;
  ClearFaults(argument: _jobwire_admin_v1_ClearFaultsRequest, callback: grpc.requestCallback<_jobwire_admin_v1_ClearFaultsResponse__Output>): grpc.ClientUnaryCall;
  clearFaults(argument: _jobwire_admin_v1_ClearFaultsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ClearFaultsResponse__Output>): grpc.ClientUnaryCall;
  clearFaults(argument: _jobwire_admin_v1_ClearFaultsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_ClearFaultsResponse__Output>): grpc.ClientUnaryCall;
  clearFaults(argument: _jobwire_admin_v1_ClearFaultsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ClearFaultsResponse__Output>): grpc.ClientUnaryCall;
  clearFaults(argument: _jobwire_admin_v1_ClearFaultsRequest, callback: grpc.requestCallback<_jobwire_admin_v1_ClearFaultsResponse__Output>): grpc.ClientUnaryCall;
  
  GetClock(argument: _jobwire_admin_v1_GetClockRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_GetClockResponse__Output>): grpc.ClientUnaryCall;
  GetClock(argument: _jobwire_admin_v1_GetClockRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_GetClockResponse__Output>): grpc.ClientUnaryCall;
  GetClock(argument: _jobwire_admin_v1_GetClockRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_GetClockResponse__Output>): grpc.ClientUnaryCall;
  GetClock(argument: _jobwire_admin_v1_GetClockRequest, callback: grpc.requestCallback<_jobwire_admin_v1_GetClockResponse__Output>): grpc.ClientUnaryCall;
  getClock(argument: _jobwire_admin_v1_GetClockRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_GetClockResponse__Output>): grpc.ClientUnaryCall;
  getClock(argument: _jobwire_admin_v1_GetClockRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_GetClockResponse__Output>): grpc.ClientUnaryCall;
  getClock(argument: _jobwire_admin_v1_GetClockRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_GetClockResponse__Output>): grpc.ClientUnaryCall;
  getClock(argument: _jobwire_admin_v1_GetClockRequest, callback: grpc.requestCallback<_jobwire_admin_v1_GetClockResponse__Output>): grpc.ClientUnaryCall;
  
  GetCluster(argument: _jobwire_admin_v1_GetClusterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_GetClusterResponse__Output>): grpc.ClientUnaryCall;
  GetCluster(argument: _jobwire_admin_v1_GetClusterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_GetClusterResponse__Output>): grpc.ClientUnaryCall;
  GetCluster(argument: _jobwire_admin_v1_GetClusterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_GetClusterResponse__Output>): grpc.ClientUnaryCall;
  GetCluster(argument: _jobwire_admin_v1_GetClusterRequest, callback: grpc.requestCallback<_jobwire_admin_v1_GetClusterResponse__Output>): grpc.ClientUnaryCall;
  getCluster(argument: _jobwire_admin_v1_GetClusterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_GetClusterResponse__Output>): grpc.ClientUnaryCall;
  getCluster(argument: _jobwire_admin_v1_GetClusterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_GetClusterResponse__Output>): grpc.ClientUnaryCall;
  getCluster(argument: _jobwire_admin_v1_GetClusterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_GetClusterResponse__Output>): grpc.ClientUnaryCall;
  getCluster(argument: _jobwire_admin_v1_GetClusterRequest, callback: grpc.requestCallback<_jobwire_admin_v1_GetClusterResponse__Output>): grpc.ClientUnaryCall;
  
  GetPartitions(argument: _jobwire_admin_v1_GetPartitionsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_GetPartitionsResponse__Output>): grpc.ClientUnaryCall;
  GetPartitions(argument: _jobwire_admin_v1_GetPartitionsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_GetPartitionsResponse__Output>): grpc.ClientUnaryCall;
  GetPartitions(argument: _jobwire_admin_v1_GetPartitionsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_GetPartitionsResponse__Output>): grpc.ClientUnaryCall;
  GetPartitions(argument: _jobwire_admin_v1_GetPartitionsRequest, callback: grpc.requestCallback<_jobwire_admin_v1_GetPartitionsResponse__Output>): grpc.ClientUnaryCall;
  getPartitions(argument: _jobwire_admin_v1_GetPartitionsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_GetPartitionsResponse__Output>): grpc.ClientUnaryCall;
  getPartitions(argument: _jobwire_admin_v1_GetPartitionsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_GetPartitionsResponse__Output>): grpc.ClientUnaryCall;
  getPartitions(argument: _jobwire_admin_v1_GetPartitionsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_GetPartitionsResponse__Output>): grpc.ClientUnaryCall;
  getPartitions(argument: _jobwire_admin_v1_GetPartitionsRequest, callback: grpc.requestCallback<_jobwire_admin_v1_GetPartitionsResponse__Output>): grpc.ClientUnaryCall;
  
  GetRequestCounts(argument: _jobwire_admin_v1_GetRequestCountsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_GetRequestCountsResponse__Output>): grpc.ClientUnaryCall;
  GetRequestCounts(argument: _jobwire_admin_v1_GetRequestCountsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_GetRequestCountsResponse__Output>): grpc.ClientUnaryCall;
  GetRequestCounts(argument: _jobwire_admin_v1_GetRequestCountsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_GetRequestCountsResponse__Output>): grpc.ClientUnaryCall;
  GetRequestCounts(argument: _jobwire_admin_v1_GetRequestCountsRequest, callback: grpc.requestCallback<_jobwire_admin_v1_GetRequestCountsResponse__Output>): grpc.ClientUnaryCall;
  getRequestCounts(argument: _jobwire_admin_v1_GetRequestCountsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_GetRequestCountsResponse__Output>): grpc.ClientUnaryCall;
  getRequestCounts(argument: _jobwire_admin_v1_GetRequestCountsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_GetRequestCountsResponse__Output>): grpc.ClientUnaryCall;
  getRequestCounts(argument: _jobwire_admin_v1_GetRequestCountsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_GetRequestCountsResponse__Output>): grpc.ClientUnaryCall;
  getRequestCounts(argument: _jobwire_admin_v1_GetRequestCountsRequest, callback: grpc.requestCallback<_jobwire_admin_v1_GetRequestCountsResponse__Output>): grpc.ClientUnaryCall;
  
  InjectFault(argument: _jobwire_admin_v1_InjectFaultRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_InjectFaultResponse__Output>): grpc.ClientUnaryCall;
  InjectFault(argument: _jobwire_admin_v1_InjectFaultRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_InjectFaultResponse__Output>): grpc.ClientUnaryCall;
  InjectFault(argument: _jobwire_admin_v1_InjectFaultRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_InjectFaultResponse__Output>): grpc.ClientUnaryCall;
  InjectFault(argument: _jobwire_admin_v1_InjectFaultRequest, callback: grpc.requestCallback<_jobwire_admin_v1_InjectFaultResponse__Output>): grpc.ClientUnaryCall;
  injectFault(argument: _jobwire_admin_v1_InjectFaultRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_InjectFaultResponse__Output>): grpc.ClientUnaryCall;
  injectFault(argument: _jobwire_admin_v1_InjectFaultRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_InjectFaultResponse__Output>): grpc.ClientUnaryCall;
  injectFault(argument: _jobwire_admin_v1_InjectFaultRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_InjectFaultResponse__Output>): grpc.ClientUnaryCall;
  injectFault(argument: _jobwire_admin_v1_InjectFaultRequest, callback: grpc.requestCallback<_jobwire_admin_v1_InjectFaultResponse__Output>): grpc.ClientUnaryCall;
  
  ListIncidents(argument: _jobwire_admin_v1_ListIncidentsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ListIncidentsResponse__Output>): grpc.ClientUnaryCall;
  ListIncidents(argument: _jobwire_admin_v1_ListIncidentsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_ListIncidentsResponse__Output>): grpc.ClientUnaryCall;
  ListIncidents(argument: _jobwire_admin_v1_ListIncidentsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ListIncidentsResponse__Output>): grpc.ClientUnaryCall;
  ListIncidents(argument: _jobwire_admin_v1_ListIncidentsRequest, callback: grpc.requestCallback<_jobwire_admin_v1_ListIncidentsResponse__Output>): grpc.ClientUnaryCall;
  listIncidents(argument: _jobwire_admin_v1_ListIncidentsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ListIncidentsResponse__Output>): grpc.ClientUnaryCall;
  listIncidents(argument: _jobwire_admin_v1_ListIncidentsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_ListIncidentsResponse__Output>): grpc.ClientUnaryCall;
  listIncidents(argument: _jobwire_admin_v1_ListIncidentsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ListIncidentsResponse__Output>): grpc.ClientUnaryCall;
  listIncidents(argument: _jobwire_admin_v1_ListIncidentsRequest, callback: grpc.requestCallback<_jobwire_admin_v1_ListIncidentsResponse__Output>): grpc.ClientUnaryCall;
  
  ListJobs(argument: _jobwire_admin_v1_ListJobsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ListJobsResponse__Output>): grpc.ClientUnaryCall;
  ListJobs(argument: _jobwire_admin_v1_ListJobsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_ListJobsResponse__Output>): grpc.ClientUnaryCall;
  ListJobs(argument: _jobwire_admin_v1_ListJobsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ListJobsResponse__Output>): grpc.ClientUnaryCall;
  ListJobs(argument: _jobwire_admin_v1_ListJobsRequest, callback: grpc.requestCallback<_jobwire_admin_v1_ListJobsResponse__Output>): grpc.ClientUnaryCall;
  listJobs(argument: _jobwire_admin_v1_ListJobsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ListJobsResponse__Output>): grpc.ClientUnaryCall;
  listJobs(argument: _jobwire_admin_v1_ListJobsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_ListJobsResponse__Output>): grpc.ClientUnaryCall;
  listJobs(argument: _jobwire_admin_v1_ListJobsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ListJobsResponse__Output>): grpc.ClientUnaryCall;
  listJobs(argument: _jobwire_admin_v1_ListJobsRequest, callback: grpc.requestCallback<_jobwire_admin_v1_ListJobsResponse__Output>): grpc.ClientUnaryCall;
  
  ListLongPolls(argument: _jobwire_admin_v1_ListLongPollsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ListLongPollsResponse__Output>): grpc.ClientUnaryCall;
  ListLongPolls(argument: _jobwire_admin_v1_ListLongPollsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_ListLongPollsResponse__Output>): grpc.ClientUnaryCall;
  ListLongPolls(argument: _jobwire_admin_v1_ListLongPollsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ListLongPollsResponse__Output>): grpc.ClientUnaryCall;
  ListLongPolls(argument: _jobwire_admin_v1_ListLongPollsRequest, callback: grpc.requestCallback<_jobwire_admin_v1_ListLongPollsResponse__Output>): grpc.ClientUnaryCall;
  listLongPolls(argument: _jobwire_admin_v1_ListLongPollsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ListLongPollsResponse__Output>): grpc.ClientUnaryCall;
  listLongPolls(argument: _jobwire_admin_v1_ListLongPollsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_ListLongPollsResponse__Output>): grpc.ClientUnaryCall;
  listLongPolls(argument: _jobwire_admin_v1_ListLongPollsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ListLongPollsResponse__Output>): grpc.ClientUnaryCall;
  listLongPolls(argument: _jobwire_admin_v1_ListLongPollsRequest, callback: grpc.requestCallback<_jobwire_admin_v1_ListLongPollsResponse__Output>): grpc.ClientUnaryCall;
  
  ListProcessInstances(argument: _jobwire_admin_v1_ListProcessInstancesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ListProcessInstancesResponse__Output>): grpc.ClientUnaryCall;
  ListProcessInstances(argument: _jobwire_admin_v1_ListProcessInstancesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_ListProcessInstancesResponse__Output>): grpc.ClientUnaryCall;
  ListProcessInstances(argument: _jobwire_admin_v1_ListProcessInstancesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ListProcessInstancesResponse__Output>): grpc.ClientUnaryCall;
  ListProcessInstances(argument: _jobwire_admin_v1_ListProcessInstancesRequest, callback: grpc.requestCallback<_jobwire_admin_v1_ListProcessInstancesResponse__Output>): grpc.ClientUnaryCall;
  listProcessInstances(argument: _jobwire_admin_v1_ListProcessInstancesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ListProcessInstancesResponse__Output>): grpc.ClientUnaryCall;
  listProcessInstances(argument: _jobwire_admin_v1_ListProcessInstancesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_ListProcessInstancesResponse__Output>): grpc.ClientUnaryCall;
  listProcessInstances(argument: _jobwire_admin_v1_ListProcessInstancesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ListProcessInstancesResponse__Output>): grpc.ClientUnaryCall;
  listProcessInstances(argument: _jobwire_admin_v1_ListProcessInstancesRequest, callback: grpc.requestCallback<_jobwire_admin_v1_ListProcessInstancesResponse__Output>): grpc.ClientUnaryCall;
  
  ListStreams(argument: _jobwire_admin_v1_ListStreamsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ListStreamsResponse__Output>): grpc.ClientUnaryCall;
  ListStreams(argument: _jobwire_admin_v1_ListStreamsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_ListStreamsResponse__Output>): grpc.ClientUnaryCall;
  ListStreams(argument: _jobwire_admin_v1_ListStreamsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ListStreamsResponse__Output>): grpc.ClientUnaryCall;
  ListStreams(argument: _jobwire_admin_v1_ListStreamsRequest, callback: grpc.requestCallback<_jobwire_admin_v1_ListStreamsResponse__Output>): grpc.ClientUnaryCall;
  listStreams(argument: _jobwire_admin_v1_ListStreamsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ListStreamsResponse__Output>): grpc.ClientUnaryCall;
  listStreams(argument: _jobwire_admin_v1_ListStreamsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_ListStreamsResponse__Output>): grpc.ClientUnaryCall;
  listStreams(argument: _jobwire_admin_v1_ListStreamsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ListStreamsResponse__Output>): grpc.ClientUnaryCall;
  listStreams(argument: _jobwire_admin_v1_ListStreamsRequest, callback: grpc.requestCallback<_jobwire_admin_v1_ListStreamsResponse__Output>): grpc.ClientUnaryCall;
  
  ResetState(argument: _jobwire_admin_v1_ResetStateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ResetStateResponse__Output>): grpc.ClientUnaryCall;
  ResetState(argument: _jobwire_admin_v1_ResetStateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_ResetStateResponse__Output>): grpc.ClientUnaryCall;
  ResetState(argument: _jobwire_admin_v1_ResetStateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ResetStateResponse__Output>): grpc.ClientUnaryCall;
  ResetState(argument: _jobwire_admin_v1_ResetStateRequest, callback: grpc.requestCallback<_jobwire_admin_v1_ResetStateResponse__Output>): grpc.ClientUnaryCall;
  resetState(argument: _jobwire_admin_v1_ResetStateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ResetStateResponse__Output>): grpc.ClientUnaryCall;
  resetState(argument: _jobwire_admin_v1_ResetStateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_ResetStateResponse__Output>): grpc.ClientUnaryCall;
  resetState(argument: _jobwire_admin_v1_ResetStateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ResetStateResponse__Output>): grpc.ClientUnaryCall;
  resetState(argument: _jobwire_admin_v1_ResetStateRequest, callback: grpc.requestCallback<_jobwire_admin_v1_ResetStateResponse__Output>): grpc.ClientUnaryCall;
  
  ResetStreams(argument: _jobwire_admin_v1_ResetStreamsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ResetStreamsResponse__Output>): grpc.ClientUnaryCall;
  ResetStreams(argument: _jobwire_admin_v1_ResetStreamsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_ResetStreamsResponse__Output>): grpc.ClientUnaryCall;
  ResetStreams(argument: _jobwire_admin_v1_ResetStreamsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ResetStreamsResponse__Output>): grpc.ClientUnaryCall;
  ResetStreams(argument: _jobwire_admin_v1_ResetStreamsRequest, callback: grpc.requestCallback<_jobwire_admin_v1_ResetStreamsResponse__Output>): grpc.ClientUnaryCall;
  resetStreams(argument: _jobwire_admin_v1_ResetStreamsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ResetStreamsResponse__Output>): grpc.ClientUnaryCall;
  resetStreams(argument: _jobwire_admin_v1_ResetStreamsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_ResetStreamsResponse__Output>): grpc.ClientUnaryCall;
  resetStreams(argument: _jobwire_admin_v1_ResetStreamsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_ResetStreamsResponse__Output>): grpc.ClientUnaryCall;
  resetStreams(argument: _jobwire_admin_v1_ResetStreamsRequest, callback: grpc.requestCallback<_jobwire_admin_v1_ResetStreamsResponse__Output>): grpc.ClientUnaryCall;
  
  RestartGateway(argument: _jobwire_admin_v1_RestartGatewayRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_RestartGatewayResponse__Output>): grpc.ClientUnaryCall;
  RestartGateway(argument: _jobwire_admin_v1_RestartGatewayRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_RestartGatewayResponse__Output>): grpc.ClientUnaryCall;
  RestartGateway(argument: _jobwire_admin_v1_RestartGatewayRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_RestartGatewayResponse__Output>): grpc.ClientUnaryCall;
  RestartGateway(argument: _jobwire_admin_v1_RestartGatewayRequest, callback: grpc.requestCallback<_jobwire_admin_v1_RestartGatewayResponse__Output>): grpc.ClientUnaryCall;
  restartGateway(argument: _jobwire_admin_v1_RestartGatewayRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_RestartGatewayResponse__Output>): grpc.ClientUnaryCall;
  restartGateway(argument: _jobwire_admin_v1_RestartGatewayRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_RestartGatewayResponse__Output>): grpc.ClientUnaryCall;
  restartGateway(argument: _jobwire_admin_v1_RestartGatewayRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_RestartGatewayResponse__Output>): grpc.ClientUnaryCall;
  restartGateway(argument: _jobwire_admin_v1_RestartGatewayRequest, callback: grpc.requestCallback<_jobwire_admin_v1_RestartGatewayResponse__Output>): grpc.ClientUnaryCall;
  
  SetClock(argument: _jobwire_admin_v1_SetClockRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_SetClockResponse__Output>): grpc.ClientUnaryCall;
  SetClock(argument: _jobwire_admin_v1_SetClockRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_SetClockResponse__Output>): grpc.ClientUnaryCall;
  SetClock(argument: _jobwire_admin_v1_SetClockRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_SetClockResponse__Output>): grpc.ClientUnaryCall;
  SetClock(argument: _jobwire_admin_v1_SetClockRequest, callback: grpc.requestCallback<_jobwire_admin_v1_SetClockResponse__Output>): grpc.ClientUnaryCall;
  setClock(argument: _jobwire_admin_v1_SetClockRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_SetClockResponse__Output>): grpc.ClientUnaryCall;
  setClock(argument: _jobwire_admin_v1_SetClockRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_SetClockResponse__Output>): grpc.ClientUnaryCall;
  setClock(argument: _jobwire_admin_v1_SetClockRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_SetClockResponse__Output>): grpc.ClientUnaryCall;
  setClock(argument: _jobwire_admin_v1_SetClockRequest, callback: grpc.requestCallback<_jobwire_admin_v1_SetClockResponse__Output>): grpc.ClientUnaryCall;
  
  StartBroker(argument: _jobwire_admin_v1_StartBrokerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_StartBrokerResponse__Output>): grpc.ClientUnaryCall;
  StartBroker(argument: _jobwire_admin_v1_StartBrokerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_StartBrokerResponse__Output>): grpc.ClientUnaryCall;
  StartBroker(argument: _jobwire_admin_v1_StartBrokerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_StartBrokerResponse__Output>): grpc.ClientUnaryCall;
  StartBroker(argument: _jobwire_admin_v1_StartBrokerRequest, callback: grpc.requestCallback<_jobwire_admin_v1_StartBrokerResponse__Output>): grpc.ClientUnaryCall;
  startBroker(argument: _jobwire_admin_v1_StartBrokerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_StartBrokerResponse__Output>): grpc.ClientUnaryCall;
  startBroker(argument: _jobwire_admin_v1_StartBrokerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_StartBrokerResponse__Output>): grpc.ClientUnaryCall;
  startBroker(argument: _jobwire_admin_v1_StartBrokerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_StartBrokerResponse__Output>): grpc.ClientUnaryCall;
  startBroker(argument: _jobwire_admin_v1_StartBrokerRequest, callback: grpc.requestCallback<_jobwire_admin_v1_StartBrokerResponse__Output>): grpc.ClientUnaryCall;
  
  StopBroker(argument: _jobwire_admin_v1_StopBrokerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_StopBrokerResponse__Output>): grpc.ClientUnaryCall;
  StopBroker(argument: _jobwire_admin_v1_StopBrokerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_StopBrokerResponse__Output>): grpc.ClientUnaryCall;
  StopBroker(argument: _jobwire_admin_v1_StopBrokerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_StopBrokerResponse__Output>): grpc.ClientUnaryCall;
  StopBroker(argument: _jobwire_admin_v1_StopBrokerRequest, callback: grpc.requestCallback<_jobwire_admin_v1_StopBrokerResponse__Output>): grpc.ClientUnaryCall;
  stopBroker(argument: _jobwire_admin_v1_StopBrokerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_StopBrokerResponse__Output>): grpc.ClientUnaryCall;
  stopBroker(argument: _jobwire_admin_v1_StopBrokerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_admin_v1_StopBrokerResponse__Output>): grpc.ClientUnaryCall;
  stopBroker(argument: _jobwire_admin_v1_StopBrokerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_admin_v1_StopBrokerResponse__Output>): grpc.ClientUnaryCall;
  stopBroker(argument: _jobwire_admin_v1_StopBrokerRequest, callback: grpc.requestCallback<_jobwire_admin_v1_StopBrokerResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface AdminServiceHandlers extends grpc.UntypedServiceImplementation {
  AdvanceClock: grpc.handleUnaryCall<_jobwire_admin_v1_AdvanceClockRequest__Output, _jobwire_admin_v1_AdvanceClockResponse>;
  
  ClearFaults: grpc.handleUnaryCall<_jobwire_admin_v1_ClearFaultsRequest__Output, _jobwire_admin_v1_ClearFaultsResponse>;
  
  GetClock: grpc.handleUnaryCall<_jobwire_admin_v1_GetClockRequest__Output, _jobwire_admin_v1_GetClockResponse>;
  
  GetCluster: grpc.handleUnaryCall<_jobwire_admin_v1_GetClusterRequest__Output, _jobwire_admin_v1_GetClusterResponse>;
  
  GetPartitions: grpc.handleUnaryCall<_jobwire_admin_v1_GetPartitionsRequest__Output, _jobwire_admin_v1_GetPartitionsResponse>;
  
  GetRequestCounts: grpc.handleUnaryCall<_jobwire_admin_v1_GetRequestCountsRequest__Output, _jobwire_admin_v1_GetRequestCountsResponse>;
  
  InjectFault: grpc.handleUnaryCall<_jobwire_admin_v1_InjectFaultRequest__Output, _jobwire_admin_v1_InjectFaultResponse>;
  
  ListIncidents: grpc.handleUnaryCall<_jobwire_admin_v1_ListIncidentsRequest__Output, _jobwire_admin_v1_ListIncidentsResponse>;
  
  ListJobs: grpc.handleUnaryCall<_jobwire_admin_v1_ListJobsRequest__Output, _jobwire_admin_v1_ListJobsResponse>;
  
  ListLongPolls: grpc.handleUnaryCall<_jobwire_admin_v1_ListLongPollsRequest__Output, _jobwire_admin_v1_ListLongPollsResponse>;
  
  ListProcessInstances: grpc.handleUnaryCall<_jobwire_admin_v1_ListProcessInstancesRequest__Output, _jobwire_admin_v1_ListProcessInstancesResponse>;
  
  ListStreams: grpc.handleUnaryCall<_jobwire_admin_v1_ListStreamsRequest__Output, _jobwire_admin_v1_ListStreamsResponse>;
  
  ResetState: grpc.handleUnaryCall<_jobwire_admin_v1_ResetStateRequest__Output, _jobwire_admin_v1_ResetStateResponse>;
  
  ResetStreams: grpc.handleUnaryCall<_jobwire_admin_v1_ResetStreamsRequest__Output, _jobwire_admin_v1_ResetStreamsResponse>;
  
  RestartGateway: grpc.handleUnaryCall<_jobwire_admin_v1_RestartGatewayRequest__Output, _jobwire_admin_v1_RestartGatewayResponse>;
  
  SetClock: grpc.handleUnaryCall<_jobwire_admin_v1_SetClockRequest__Output, _jobwire_admin_v1_SetClockResponse>;
  
  StartBroker: grpc.handleUnaryCall<_jobwire_admin_v1_StartBrokerRequest__Output, _jobwire_admin_v1_StartBrokerResponse>;
  
  StopBroker: grpc.handleUnaryCall<_jobwire_admin_v1_StopBrokerRequest__Output, _jobwire_admin_v1_StopBrokerResponse>;
  
}

export interface AdminServiceDefinition extends grpc.ServiceDefinition {
  AdvanceClock: MethodDefinition<_jobwire_admin_v1_AdvanceClockRequest, _jobwire_admin_v1_AdvanceClockResponse, _jobwire_admin_v1_AdvanceClockRequest__Output, _jobwire_admin_v1_AdvanceClockResponse__Output>
  ClearFaults: MethodDefinition<_jobwire_admin_v1_ClearFaultsRequest, _jobwire_admin_v1_ClearFaultsResponse, _jobwire_admin_v1_ClearFaultsRequest__Output, _jobwire_admin_v1_ClearFaultsResponse__Output>
  GetClock: MethodDefinition<_jobwire_admin_v1_GetClockRequest, _jobwire_admin_v1_GetClockResponse, _jobwire_admin_v1_GetClockRequest__Output, _jobwire_admin_v1_GetClockResponse__Output>
  GetCluster: MethodDefinition<_jobwire_admin_v1_GetClusterRequest, _jobwire_admin_v1_GetClusterResponse, _jobwire_admin_v1_GetClusterRequest__Output, _jobwire_admin_v1_GetClusterResponse__Output>
  GetPartitions: MethodDefinition<_jobwire_admin_v1_GetPartitionsRequest, _jobwire_admin_v1_GetPartitionsResponse, _jobwire_admin_v1_GetPartitionsRequest__Output, _jobwire_admin_v1_GetPartitionsResponse__Output>
  GetRequestCounts: MethodDefinition<_jobwire_admin_v1_GetRequestCountsRequest, _jobwire_admin_v1_GetRequestCountsResponse, _jobwire_admin_v1_GetRequestCountsRequest__Output, _jobwire_admin_v1_GetRequestCountsResponse__Output>
  InjectFault: MethodDefinition<_jobwire_admin_v1_InjectFaultRequest, _jobwire_admin_v1_InjectFaultResponse, _jobwire_admin_v1_InjectFaultRequest__Output, _jobwire_admin_v1_InjectFaultResponse__Output>
  ListIncidents: MethodDefinition<_jobwire_admin_v1_ListIncidentsRequest, _jobwire_admin_v1_ListIncidentsResponse, _jobwire_admin_v1_ListIncidentsRequest__Output, _jobwire_admin_v1_ListIncidentsResponse__Output>
  ListJobs: MethodDefinition<_jobwire_admin_v1_ListJobsRequest, _jobwire_admin_v1_ListJobsResponse, _jobwire_admin_v1_ListJobsRequest__Output, _jobwire_admin_v1_ListJobsResponse__Output>
  ListLongPolls: MethodDefinition<_jobwire_admin_v1_ListLongPollsRequest, _jobwire_admin_v1_ListLongPollsResponse, _jobwire_admin_v1_ListLongPollsRequest__Output, _jobwire_admin_v1_ListLongPollsResponse__Output>
  ListProcessInstances: MethodDefinition<_jobwire_admin_v1_ListProcessInstancesRequest, _jobwire_admin_v1_ListProcessInstancesResponse, _jobwire_admin_v1_ListProcessInstancesRequest__Output, _jobwire_admin_v1_ListProcessInstancesResponse__Output>
  ListStreams: MethodDefinition<_jobwire_admin_v1_ListStreamsRequest, _jobwire_admin_v1_ListStreamsResponse, _jobwire_admin_v1_ListStreamsRequest__Output, _jobwire_admin_v1_ListStreamsResponse__Output>
  ResetState: MethodDefinition<_jobwire_admin_v1_ResetStateRequest, _jobwire_admin_v1_ResetStateResponse, _jobwire_admin_v1_ResetStateRequest__Output, _jobwire_admin_v1_ResetStateResponse__Output>
  ResetStreams: MethodDefinition<_jobwire_admin_v1_ResetStreamsRequest, _jobwire_admin_v1_ResetStreamsResponse, _jobwire_admin_v1_ResetStreamsRequest__Output, _jobwire_admin_v1_ResetStreamsResponse__Output>
  RestartGateway: MethodDefinition<_jobwire_admin_v1_RestartGatewayRequest, _jobwire_admin_v1_RestartGatewayResponse, _jobwire_admin_v1_RestartGatewayRequest__Output, _jobwire_admin_v1_RestartGatewayResponse__Output>
  SetClock: MethodDefinition<_jobwire_admin_v1_SetClockRequest, _jobwire_admin_v1_SetClockResponse, _jobwire_admin_v1_SetClockRequest__Output, _jobwire_admin_v1_SetClockResponse__Output>
  StartBroker: MethodDefinition<_jobwire_admin_v1_StartBrokerRequest, _jobwire_admin_v1_StartBrokerResponse, _jobwire_admin_v1_StartBrokerRequest__Output, _jobwire_admin_v1_StartBrokerResponse__Output>
  StopBroker: MethodDefinition<_jobwire_admin_v1_StopBrokerRequest, _jobwire_admin_v1_StopBrokerResponse, _jobwire_admin_v1_StopBrokerRequest__Output, _jobwire_admin_v1_StopBrokerResponse__Output>
}
