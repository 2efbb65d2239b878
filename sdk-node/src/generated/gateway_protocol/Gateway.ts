// Original file: proto/gateway.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { ActivateJobsRequest as _gateway_protocol_ActivateJobsRequest, ActivateJobsRequest__Output as _gateway_protocol_ActivateJobsRequest__Output } from '../gateway_protocol/ActivateJobsRequest';
import type { ActivateJobsResponse as _gateway_protocol_ActivateJobsResponse, ActivateJobsResponse__Output as _gateway_protocol_ActivateJobsResponse__Output } from '../gateway_protocol/ActivateJobsResponse';
import type { ActivatedJob as _gateway_protocol_ActivatedJob, ActivatedJob__Output as _gateway_protocol_ActivatedJob__Output } from '../gateway_protocol/ActivatedJob';
import type { BroadcastSignalRequest as _gateway_protocol_BroadcastSignalRequest, BroadcastSignalRequest__Output as _gateway_protocol_BroadcastSignalRequest__Output } from '../gateway_protocol/BroadcastSignalRequest';
import type { BroadcastSignalResponse as _gateway_protocol_BroadcastSignalResponse, BroadcastSignalResponse__Output as _gateway_protocol_BroadcastSignalResponse__Output } from '../gateway_protocol/BroadcastSignalResponse';
import type { CancelProcessInstanceRequest as _gateway_protocol_CancelProcessInstanceRequest, CancelProcessInstanceRequest__Output as _gateway_protocol_CancelProcessInstanceRequest__Output } from '../gateway_protocol/CancelProcessInstanceRequest';
import type { CancelProcessInstanceResponse as _gateway_protocol_CancelProcessInstanceResponse, CancelProcessInstanceResponse__Output as _gateway_protocol_CancelProcessInstanceResponse__Output } from '../gateway_protocol/CancelProcessInstanceResponse';
import type { CompleteJobRequest as _gateway_protocol_CompleteJobRequest, CompleteJobRequest__Output as _gateway_protocol_CompleteJobRequest__Output } from '../gateway_protocol/CompleteJobRequest';
import type { CompleteJobResponse as _gateway_protocol_CompleteJobResponse, CompleteJobResponse__Output as _gateway_protocol_CompleteJobResponse__Output } from '../gateway_protocol/CompleteJobResponse';
import type { CreateProcessInstanceRequest as _gateway_protocol_CreateProcessInstanceRequest, CreateProcessInstanceRequest__Output as _gateway_protocol_CreateProcessInstanceRequest__Output } from '../gateway_protocol/CreateProcessInstanceRequest';
import type { CreateProcessInstanceResponse as _gateway_protocol_CreateProcessInstanceResponse, CreateProcessInstanceResponse__Output as _gateway_protocol_CreateProcessInstanceResponse__Output } from '../gateway_protocol/CreateProcessInstanceResponse';
import type { CreateProcessInstanceWithResultRequest as _gateway_protocol_CreateProcessInstanceWithResultRequest, CreateProcessInstanceWithResultRequest__Output as _gateway_protocol_CreateProcessInstanceWithResultRequest__Output } from '../gateway_protocol/CreateProcessInstanceWithResultRequest';
import type { CreateProcessInstanceWithResultResponse as _gateway_protocol_CreateProcessInstanceWithResultResponse, CreateProcessInstanceWithResultResponse__Output as _gateway_protocol_CreateProcessInstanceWithResultResponse__Output } from '../gateway_protocol/CreateProcessInstanceWithResultResponse';
import type { DeleteResourceRequest as _gateway_protocol_DeleteResourceRequest, DeleteResourceRequest__Output as _gateway_protocol_DeleteResourceRequest__Output } from '../gateway_protocol/DeleteResourceRequest';
import type { DeleteResourceResponse as _gateway_protocol_DeleteResourceResponse, DeleteResourceResponse__Output as _gateway_protocol_DeleteResourceResponse__Output } from '../gateway_protocol/DeleteResourceResponse';
import type { DeployResourceRequest as _gateway_protocol_DeployResourceRequest, DeployResourceRequest__Output as _gateway_protocol_DeployResourceRequest__Output } from '../gateway_protocol/DeployResourceRequest';
import type { DeployResourceResponse as _gateway_protocol_DeployResourceResponse, DeployResourceResponse__Output as _gateway_protocol_DeployResourceResponse__Output } from '../gateway_protocol/DeployResourceResponse';
import type { EvaluateDecisionRequest as _gateway_protocol_EvaluateDecisionRequest, EvaluateDecisionRequest__Output as _gateway_protocol_EvaluateDecisionRequest__Output } from '../gateway_protocol/EvaluateDecisionRequest';
import type { EvaluateDecisionResponse as _gateway_protocol_EvaluateDecisionResponse, EvaluateDecisionResponse__Output as _gateway_protocol_EvaluateDecisionResponse__Output } from '../gateway_protocol/EvaluateDecisionResponse';
import type { FailJobRequest as _gateway_protocol_FailJobRequest, FailJobRequest__Output as _gateway_protocol_FailJobRequest__Output } from '../gateway_protocol/FailJobRequest';
import type { FailJobResponse as _gateway_protocol_FailJobResponse, FailJobResponse__Output as _gateway_protocol_FailJobResponse__Output } from '../gateway_protocol/FailJobResponse';
import type { MigrateProcessInstanceRequest as _gateway_protocol_MigrateProcessInstanceRequest, MigrateProcessInstanceRequest__Output as _gateway_protocol_MigrateProcessInstanceRequest__Output } from '../gateway_protocol/MigrateProcessInstanceRequest';
import type { MigrateProcessInstanceResponse as _gateway_protocol_MigrateProcessInstanceResponse, MigrateProcessInstanceResponse__Output as _gateway_protocol_MigrateProcessInstanceResponse__Output } from '../gateway_protocol/MigrateProcessInstanceResponse';
import type { ModifyProcessInstanceRequest as _gateway_protocol_ModifyProcessInstanceRequest, ModifyProcessInstanceRequest__Output as _gateway_protocol_ModifyProcessInstanceRequest__Output } from '../gateway_protocol/ModifyProcessInstanceRequest';
import type { ModifyProcessInstanceResponse as _gateway_protocol_ModifyProcessInstanceResponse, ModifyProcessInstanceResponse__Output as _gateway_protocol_ModifyProcessInstanceResponse__Output } from '../gateway_protocol/ModifyProcessInstanceResponse';
import type { PublishMessageRequest as _gateway_protocol_PublishMessageRequest, PublishMessageRequest__Output as _gateway_protocol_PublishMessageRequest__Output } from '../gateway_protocol/PublishMessageRequest';
import type { PublishMessageResponse as _gateway_protocol_PublishMessageResponse, PublishMessageResponse__Output as _gateway_protocol_PublishMessageResponse__Output } from '../gateway_protocol/PublishMessageResponse';
import type { ResolveIncidentRequest as _gateway_protocol_ResolveIncidentRequest, ResolveIncidentRequest__Output as _gateway_protocol_ResolveIncidentRequest__Output } from '../gateway_protocol/ResolveIncidentRequest';
import type { ResolveIncidentResponse as _gateway_protocol_ResolveIncidentResponse, ResolveIncidentResponse__Output as _gateway_protocol_ResolveIncidentResponse__Output } from '../gateway_protocol/ResolveIncidentResponse';
import type { SetVariablesRequest as _gateway_protocol_SetVariablesRequest, SetVariablesRequest__Output as _gateway_protocol_SetVariablesRequest__Output } from '../gateway_protocol/SetVariablesRequest';
import type { SetVariablesResponse as _gateway_protocol_SetVariablesResponse, SetVariablesResponse__Output as _gateway_protocol_SetVariablesResponse__Output } from '../gateway_protocol/SetVariablesResponse';
import type { StreamActivatedJobsRequest as _gateway_protocol_StreamActivatedJobsRequest, StreamActivatedJobsRequest__Output as _gateway_protocol_StreamActivatedJobsRequest__Output } from '../gateway_protocol/StreamActivatedJobsRequest';
import type { ThrowErrorRequest as _gateway_protocol_ThrowErrorRequest, ThrowErrorRequest__Output as _gateway_protocol_ThrowErrorRequest__Output } from '../gateway_protocol/ThrowErrorRequest';
import type { ThrowErrorResponse as _gateway_protocol_ThrowErrorResponse, ThrowErrorResponse__Output as _gateway_protocol_ThrowErrorResponse__Output } from '../gateway_protocol/ThrowErrorResponse';
import type { TopologyRequest as _gateway_protocol_TopologyRequest, TopologyRequest__Output as _gateway_protocol_TopologyRequest__Output } from '../gateway_protocol/TopologyRequest';
import type { TopologyResponse as _gateway_protocol_TopologyResponse, TopologyResponse__Output as _gateway_protocol_TopologyResponse__Output } from '../gateway_protocol/TopologyResponse';
import type { UpdateJobRetriesRequest as _gateway_protocol_UpdateJobRetriesRequest, UpdateJobRetriesRequest__Output as _gateway_protocol_UpdateJobRetriesRequest__Output } from '../gateway_protocol/UpdateJobRetriesRequest';
import type { UpdateJobRetriesResponse as _gateway_protocol_UpdateJobRetriesResponse, UpdateJobRetriesResponse__Output as _gateway_protocol_UpdateJobRetriesResponse__Output } from '../gateway_protocol/UpdateJobRetriesResponse';
import type { UpdateJobTimeoutRequest as _gateway_protocol_UpdateJobTimeoutRequest, UpdateJobTimeoutRequest__Output as _gateway_protocol_UpdateJobTimeoutRequest__Output } from '../gateway_protocol/UpdateJobTimeoutRequest';
import type { UpdateJobTimeoutResponse as _gateway_protocol_UpdateJobTimeoutResponse, UpdateJobTimeoutResponse__Output as _gateway_protocol_UpdateJobTimeoutResponse__Output } from '../gateway_protocol/UpdateJobTimeoutResponse';

export interface GatewayClient extends grpc.Client {
  ActivateJobs(argument: _gateway_protocol_ActivateJobsRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_gateway_protocol_ActivateJobsResponse__Output>;
  ActivateJobs(argument: _gateway_protocol_ActivateJobsRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_gateway_protocol_ActivateJobsResponse__Output>;
  activateJobs(argument: _gateway_protocol_ActivateJobsRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_gateway_protocol_ActivateJobsResponse__Output>;
  activateJobs(argument: _gateway_protocol_ActivateJobsRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_gateway_protocol_ActivateJobsResponse__Output>;
  
  BroadcastSignal(argument: _gateway_protocol_BroadcastSignalRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_BroadcastSignalResponse__Output>): grpc.ClientUnaryCall;
  BroadcastSignal(argument: _gateway_protocol_BroadcastSignalRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_BroadcastSignalResponse__Output>): grpc.ClientUnaryCall;
  BroadcastSignal(argument: _gateway_protocol_BroadcastSignalRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_BroadcastSignalResponse__Output>): grpc.ClientUnaryCall;
  BroadcastSignal(argument: _gateway_protocol_BroadcastSignalRequest, callback: grpc.requestCallback<_gateway_protocol_BroadcastSignalResponse__Output>): grpc.ClientUnaryCall;
  broadcastSignal(argument: _gateway_protocol_BroadcastSignalRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_BroadcastSignalResponse__Output>): grpc.ClientUnaryCall;
  broadcastSignal(argument: _gateway_protocol_BroadcastSignalRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_BroadcastSignalResponse__Output>): grpc.ClientUnaryCall;
  broadcastSignal(argument: _gateway_protocol_BroadcastSignalRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_BroadcastSignalResponse__Output>): grpc.ClientUnaryCall;
  broadcastSignal(argument: _gateway_protocol_BroadcastSignalRequest, callback: grpc.requestCallback<_gateway_protocol_BroadcastSignalResponse__Output>): grpc.ClientUnaryCall;
  
  CancelProcessInstance(argument: _gateway_protocol_CancelProcessInstanceRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_CancelProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  CancelProcessInstance(argument: _gateway_protocol_CancelProcessInstanceRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_CancelProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  CancelProcessInstance(argument: _gateway_protocol_CancelProcessInstanceRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_CancelProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  CancelProcessInstance(argument: _gateway_protocol_CancelProcessInstanceRequest, callback: grpc.requestCallback<_gateway_protocol_CancelProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  cancelProcessInstance(argument: _gateway_protocol_CancelProcessInstanceRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_CancelProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  cancelProcessInstance(argument: _gateway_protocol_CancelProcessInstanceRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_CancelProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  cancelProcessInstance(argument: _gateway_protocol_CancelProcessInstanceRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_CancelProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  cancelProcessInstance(argument: _gateway_protocol_CancelProcessInstanceRequest, callback: grpc.requestCallback<_gateway_protocol_CancelProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  
  CompleteJob(argument: _gateway_protocol_CompleteJobRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_CompleteJobResponse__Output>): grpc.ClientUnaryCall;
  CompleteJob(argument: _gateway_protocol_CompleteJobRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_CompleteJobResponse__Output>): grpc.ClientUnaryCall;
  CompleteJob(argument: _gateway_protocol_CompleteJobRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_CompleteJobResponse__Output>): grpc.ClientUnaryCall;
  CompleteJob(argument: _gateway_protocol_CompleteJobRequest, callback: grpc.requestCallback<_gateway_protocol_CompleteJobResponse__Output>): grpc.ClientUnaryCall;
  completeJob(argument: _gateway_protocol_CompleteJobRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_CompleteJobResponse__Output>): grpc.ClientUnaryCall;
  completeJob(argument: _gateway_protocol_CompleteJobRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_CompleteJobResponse__Output>): grpc.ClientUnaryCall;
  completeJob(argument: _gateway_protocol_CompleteJobRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_CompleteJobResponse__Output>): grpc.ClientUnaryCall;
  completeJob(argument: _gateway_protocol_CompleteJobRequest, callback: grpc.requestCallback<_gateway_protocol_CompleteJobResponse__Output>): grpc.ClientUnaryCall;
  
  CreateProcessInstance(argument: _gateway_protocol_CreateProcessInstanceRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_CreateProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  CreateProcessInstance(argument: _gateway_protocol_CreateProcessInstanceRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_CreateProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  CreateProcessInstance(argument: _gateway_protocol_CreateProcessInstanceRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_CreateProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  CreateProcessInstance(argument: _gateway_protocol_CreateProcessInstanceRequest, callback: grpc.requestCallback<_gateway_protocol_CreateProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  createProcessInstance(argument: _gateway_protocol_CreateProcessInstanceRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_CreateProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  createProcessInstance(argument: _gateway_protocol_CreateProcessInstanceRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_CreateProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  createProcessInstance(argument: _gateway_protocol_CreateProcessInstanceRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_CreateProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  createProcessInstance(argument: _gateway_protocol_CreateProcessInstanceRequest, callback: grpc.requestCallback<_gateway_protocol_CreateProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  
  CreateProcessInstanceWithResult(argument: _gateway_protocol_CreateProcessInstanceWithResultRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_CreateProcessInstanceWithResultResponse__Output>): grpc.ClientUnaryCall;
  CreateProcessInstanceWithResult(argument: _gateway_protocol_CreateProcessInstanceWithResultRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_CreateProcessInstanceWithResultResponse__Output>): grpc.ClientUnaryCall;
  CreateProcessInstanceWithResult(argument: _gateway_protocol_CreateProcessInstanceWithResultRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_CreateProcessInstanceWithResultResponse__Output>): grpc.ClientUnaryCall;
  CreateProcessInstanceWithResult(argument: _gateway_protocol_CreateProcessInstanceWithResultRequest, callback: grpc.requestCallback<_gateway_protocol_CreateProcessInstanceWithResultResponse__Output>): grpc.ClientUnaryCall;
  createProcessInstanceWithResult(argument: _gateway_protocol_CreateProcessInstanceWithResultRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_CreateProcessInstanceWithResultResponse__Output>): grpc.ClientUnaryCall;
  createProcessInstanceWithResult(argument: _gateway_protocol_CreateProcessInstanceWithResultRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_CreateProcessInstanceWithResultResponse__Output>): grpc.ClientUnaryCall;
  createProcessInstanceWithResult(argument: _gateway_protocol_CreateProcessInstanceWithResultRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_CreateProcessInstanceWithResultResponse__Output>): grpc.ClientUnaryCall;
  createProcessInstanceWithResult(argument: _gateway_protocol_CreateProcessInstanceWithResultRequest, callback: grpc.requestCallback<_gateway_protocol_CreateProcessInstanceWithResultResponse__Output>): grpc.ClientUnaryCall;
  
  DeleteResource(argument: _gateway_protocol_DeleteResourceRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_DeleteResourceResponse__Output>): grpc.ClientUnaryCall;
  DeleteResource(argument: _gateway_protocol_DeleteResourceRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_DeleteResourceResponse__Output>): grpc.ClientUnaryCall;
  DeleteResource(argument: _gateway_protocol_DeleteResourceRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_DeleteResourceResponse__Output>): grpc.ClientUnaryCall;
  DeleteResource(argument: _gateway_protocol_DeleteResourceRequest, callback: grpc.requestCallback<_gateway_protocol_DeleteResourceResponse__Output>): grpc.ClientUnaryCall;
  deleteResource(argument: _gateway_protocol_DeleteResourceRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_DeleteResourceResponse__Output>): grpc.ClientUnaryCall;
  deleteResource(argument: _gateway_protocol_DeleteResourceRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_DeleteResourceResponse__Output>): grpc.ClientUnaryCall;
  deleteResource(argument: _gateway_protocol_DeleteResourceRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_DeleteResourceResponse__Output>): grpc.ClientUnaryCall;
  deleteResource(argument: _gateway_protocol_DeleteResourceRequest, callback: grpc.requestCallback<_gateway_protocol_DeleteResourceResponse__Output>): grpc.ClientUnaryCall;
  
  DeployResource(argument: _gateway_protocol_DeployResourceRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_DeployResourceResponse__Output>): grpc.ClientUnaryCall;
  DeployResource(argument: _gateway_protocol_DeployResourceRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_DeployResourceResponse__Output>): grpc.ClientUnaryCall;
  DeployResource(argument: _gateway_protocol_DeployResourceRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_DeployResourceResponse__Output>): grpc.ClientUnaryCall;
  DeployResource(argument: _gateway_protocol_DeployResourceRequest, callback: grpc.requestCallback<_gateway_protocol_DeployResourceResponse__Output>): grpc.ClientUnaryCall;
  deployResource(argument: _gateway_protocol_DeployResourceRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_DeployResourceResponse__Output>): grpc.ClientUnaryCall;
  deployResource(argument: _gateway_protocol_DeployResourceRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_DeployResourceResponse__Output>): grpc.ClientUnaryCall;
  deployResource(argument: _gateway_protocol_DeployResourceRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_DeployResourceResponse__Output>): grpc.ClientUnaryCall;
  deployResource(argument: _gateway_protocol_DeployResourceRequest, callback: grpc.requestCallback<_gateway_protocol_DeployResourceResponse__Output>): grpc.ClientUnaryCall;
  
  EvaluateDecision(argument: _gateway_protocol_EvaluateDecisionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_EvaluateDecisionResponse__Output>): grpc.ClientUnaryCall;
  EvaluateDecision(argument: _gateway_protocol_EvaluateDecisionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_EvaluateDecisionResponse__Output>): grpc.ClientUnaryCall;
  EvaluateDecision(argument: _gateway_protocol_EvaluateDecisionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_EvaluateDecisionResponse__Output>): grpc.ClientUnaryCall;
  EvaluateDecision(argument: _gateway_protocol_EvaluateDecisionRequest, callback: grpc.requestCallback<_gateway_protocol_EvaluateDecisionResponse__Output>): grpc.ClientUnaryCall;
  evaluateDecision(argument: _gateway_protocol_EvaluateDecisionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_EvaluateDecisionResponse__Output>): grpc.ClientUnaryCall;
  evaluateDecision(argument: _gateway_protocol_EvaluateDecisionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_EvaluateDecisionResponse__Output>): grpc.ClientUnaryCall;
  evaluateDecision(argument: _gateway_protocol_EvaluateDecisionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_EvaluateDecisionResponse__Output>): grpc.ClientUnaryCall;
  evaluateDecision(argument: _gateway_protocol_EvaluateDecisionRequest, callback: grpc.requestCallback<_gateway_protocol_EvaluateDecisionResponse__Output>): grpc.ClientUnaryCall;
  
  FailJob(argument: _gateway_protocol_FailJobRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_FailJobResponse__Output>): grpc.ClientUnaryCall;
  FailJob(argument: _gateway_protocol_FailJobRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_FailJobResponse__Output>): grpc.ClientUnaryCall;
  FailJob(argument: _gateway_protocol_FailJobRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_FailJobResponse__Output>): grpc.ClientUnaryCall;
  FailJob(argument: _gateway_protocol_FailJobRequest, callback: grpc.requestCallback<_gateway_protocol_FailJobResponse__Output>): grpc.ClientUnaryCall;
  failJob(argument: _gateway_protocol_FailJobRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_FailJobResponse__Output>): grpc.ClientUnaryCall;
  failJob(argument: _gateway_protocol_FailJobRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_FailJobResponse__Output>): grpc.ClientUnaryCall;
  failJob(argument: _gateway_protocol_FailJobRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_FailJobResponse__Output>): grpc.ClientUnaryCall;
  failJob(argument: _gateway_protocol_FailJobRequest, callback: grpc.requestCallback<_gateway_protocol_FailJobResponse__Output>): grpc.ClientUnaryCall;
  
  MigrateProcessInstance(argument: _gateway_protocol_MigrateProcessInstanceRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_MigrateProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  MigrateProcessInstance(argument: _gateway_protocol_MigrateProcessInstanceRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_MigrateProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  MigrateProcessInstance(argument: _gateway_protocol_MigrateProcessInstanceRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_MigrateProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  MigrateProcessInstance(argument: _gateway_protocol_MigrateProcessInstanceRequest, callback: grpc.requestCallback<_gateway_protocol_MigrateProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  migrateProcessInstance(argument: _gateway_protocol_MigrateProcessInstanceRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_MigrateProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  migrateProcessInstance(argument: _gateway_protocol_MigrateProcessInstanceRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_MigrateProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  migrateProcessInstance(argument: _gateway_protocol_MigrateProcessInstanceRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_MigrateProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  migrateProcessInstance(argument: _gateway_protocol_MigrateProcessInstanceRequest, callback: grpc.requestCallback<_gateway_protocol_MigrateProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  
  ModifyProcessInstance(argument: _gateway_protocol_ModifyProcessInstanceRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_ModifyProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  ModifyProcessInstance(argument: _gateway_protocol_ModifyProcessInstanceRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_ModifyProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  ModifyProcessInstance(argument: _gateway_protocol_ModifyProcessInstanceRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_ModifyProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  ModifyProcessInstance(argument: _gateway_protocol_ModifyProcessInstanceRequest, callback: grpc.requestCallback<_gateway_protocol_ModifyProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  modifyProcessInstance(argument: _gateway_protocol_ModifyProcessInstanceRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_ModifyProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  modifyProcessInstance(argument: _gateway_protocol_ModifyProcessInstanceRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_ModifyProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  modifyProcessInstance(argument: _gateway_protocol_ModifyProcessInstanceRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_ModifyProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  modifyProcessInstance(argument: _gateway_protocol_ModifyProcessInstanceRequest, callback: grpc.requestCallback<_gateway_protocol_ModifyProcessInstanceResponse__Output>): grpc.ClientUnaryCall;
  
  PublishMessage(argument: _gateway_protocol_PublishMessageRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_PublishMessageResponse__Output>): grpc.ClientUnaryCall;
  PublishMessage(argument: _gateway_protocol_PublishMessageRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_PublishMessageResponse__Output>): grpc.ClientUnaryCall;
  PublishMessage(argument: _gateway_protocol_PublishMessageRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_PublishMessageResponse__Output>): grpc.ClientUnaryCall;
  PublishMessage(argument: _gateway_protocol_PublishMessageRequest, callback: grpc.requestCallback<_gateway_protocol_PublishMessageResponse__Output>): grpc.ClientUnaryCall;
  publishMessage(argument: _gateway_protocol_PublishMessageRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_PublishMessageResponse__Output>): grpc.ClientUnaryCall;
  publishMessage(argument: _gateway_protocol_PublishMessageRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_PublishMessageResponse__Output>): grpc.ClientUnaryCall;
  publishMessage(argument: _gateway_protocol_PublishMessageRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_PublishMessageResponse__Output>): grpc.ClientUnaryCall;
  publishMessage(argument: _gateway_protocol_PublishMessageRequest, callback: grpc.requestCallback<_gateway_protocol_PublishMessageResponse__Output>): grpc.ClientUnaryCall;
  
  ResolveIncident(argument: _gateway_protocol_ResolveIncidentRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_ResolveIncidentResponse__Output>): grpc.ClientUnaryCall;
  ResolveIncident(argument: _gateway_protocol_ResolveIncidentRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_ResolveIncidentResponse__Output>): grpc.ClientUnaryCall;
  ResolveIncident(argument: _gateway_protocol_ResolveIncidentRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_ResolveIncidentResponse__Output>): grpc.ClientUnaryCall;
  ResolveIncident(argument: _gateway_protocol_ResolveIncidentRequest, callback: grpc.requestCallback<_gateway_protocol_ResolveIncidentResponse__Output>): grpc.ClientUnaryCall;
  resolveIncident(argument: _gateway_protocol_ResolveIncidentRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_ResolveIncidentResponse__Output>): grpc.ClientUnaryCall;
  resolveIncident(argument: _gateway_protocol_ResolveIncidentRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_ResolveIncidentResponse__Output>): grpc.ClientUnaryCall;
  resolveIncident(argument: _gateway_protocol_ResolveIncidentRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_ResolveIncidentResponse__Output>): grpc.ClientUnaryCall;
  resolveIncident(argument: _gateway_protocol_ResolveIncidentRequest, callback: grpc.requestCallback<_gateway_protocol_ResolveIncidentResponse__Output>): grpc.ClientUnaryCall;
  
  SetVariables(argument: _gateway_protocol_SetVariablesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_SetVariablesResponse__Output>): grpc.ClientUnaryCall;
  SetVariables(argument: _gateway_protocol_SetVariablesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_SetVariablesResponse__Output>): grpc.ClientUnaryCall;
  SetVariables(argument: _gateway_protocol_SetVariablesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_SetVariablesResponse__Output>): grpc.ClientUnaryCall;
  SetVariables(argument: _gateway_protocol_SetVariablesRequest, callback: grpc.requestCallback<_gateway_protocol_SetVariablesResponse__Output>): grpc.ClientUnaryCall;
  setVariables(argument: _gateway_protocol_SetVariablesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_SetVariablesResponse__Output>): grpc.ClientUnaryCall;
  setVariables(argument: _gateway_protocol_SetVariablesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_SetVariablesResponse__Output>): grpc.ClientUnaryCall;
  setVariables(argument: _gateway_protocol_SetVariablesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_SetVariablesResponse__Output>): grpc.ClientUnaryCall;
  setVariables(argument: _gateway_protocol_SetVariablesRequest, callback: grpc.requestCallback<_gateway_protocol_SetVariablesResponse__Output>): grpc.ClientUnaryCall;
  
  StreamActivatedJobs(argument: _gateway_protocol_StreamActivatedJobsRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_gateway_protocol_ActivatedJob__Output>;
  StreamActivatedJobs(argument: _gateway_protocol_StreamActivatedJobsRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_gateway_protocol_ActivatedJob__Output>;
  streamActivatedJobs(argument: _gateway_protocol_StreamActivatedJobsRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_gateway_protocol_ActivatedJob__Output>;
  streamActivatedJobs(argument: _gateway_protocol_StreamActivatedJobsRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_gateway_protocol_ActivatedJob__Output>;
  
  ThrowError(argument: _gateway_protocol_ThrowErrorRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_ThrowErrorResponse__Output>): grpc.ClientUnaryCall;
  ThrowError(argument: _gateway_protocol_ThrowErrorRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_ThrowErrorResponse__Output>): grpc.ClientUnaryCall;
  ThrowError(argument: _gateway_protocol_ThrowErrorRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_ThrowErrorResponse__Output>): grpc.ClientUnaryCall;
  ThrowError(argument: _gateway_protocol_ThrowErrorRequest, callback: grpc.requestCallback<_gateway_protocol_ThrowErrorResponse__Output>): grpc.ClientUnaryCall;
  throwError(argument: _gateway_protocol_ThrowErrorRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_ThrowErrorResponse__Output>): grpc.ClientUnaryCall;
  throwError(argument: _gateway_protocol_ThrowErrorRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_ThrowErrorResponse__Output>): grpc.ClientUnaryCall;
  throwError(argument: _gateway_protocol_ThrowErrorRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_ThrowErrorResponse__Output>): grpc.ClientUnaryCall;
  throwError(argument: _gateway_protocol_ThrowErrorRequest, callback: grpc.requestCallback<_gateway_protocol_ThrowErrorResponse__Output>): grpc.ClientUnaryCall;
  
  Topology(argument: _gateway_protocol_TopologyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_TopologyResponse__Output>): grpc.ClientUnaryCall;
  Topology(argument: _gateway_protocol_TopologyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_TopologyResponse__Output>): grpc.ClientUnaryCall;
  Topology(argument: _gateway_protocol_TopologyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_TopologyResponse__Output>): grpc.ClientUnaryCall;
  Topology(argument: _gateway_protocol_TopologyRequest, callback: grpc.requestCallback<_gateway_protocol_TopologyResponse__Output>): grpc.ClientUnaryCall;
  topology(argument: _gateway_protocol_TopologyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_TopologyResponse__Output>): grpc.ClientUnaryCall;
  topology(argument: _gateway_protocol_TopologyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_TopologyResponse__Output>): grpc.ClientUnaryCall;
  topology(argument: _gateway_protocol_TopologyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_TopologyResponse__Output>): grpc.ClientUnaryCall;
  topology(argument: _gateway_protocol_TopologyRequest, callback: grpc.requestCallback<_gateway_protocol_TopologyResponse__Output>): grpc.ClientUnaryCall;
  
  UpdateJobRetries(argument: _gateway_protocol_UpdateJobRetriesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_UpdateJobRetriesResponse__Output>): grpc.ClientUnaryCall;
  UpdateJobRetries(argument: _gateway_protocol_UpdateJobRetriesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_UpdateJobRetriesResponse__Output>): grpc.ClientUnaryCall;
  UpdateJobRetries(argument: _gateway_protocol_UpdateJobRetriesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_UpdateJobRetriesResponse__Output>): grpc.ClientUnaryCall;
  UpdateJobRetries(argument: _gateway_protocol_UpdateJobRetriesRequest, callback: grpc.requestCallback<_gateway_protocol_UpdateJobRetriesResponse__Output>): grpc.ClientUnaryCall;
  updateJobRetries(argument: _gateway_protocol_UpdateJobRetriesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_UpdateJobRetriesResponse__Output>): grpc.ClientUnaryCall;
  updateJobRetries(argument: _gateway_protocol_UpdateJobRetriesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_UpdateJobRetriesResponse__Output>): grpc.ClientUnaryCall;
  updateJobRetries(argument: _gateway_protocol_UpdateJobRetriesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_UpdateJobRetriesResponse__Output>): grpc.ClientUnaryCall;
  updateJobRetries(argument: _gateway_protocol_UpdateJobRetriesRequest, callback: grpc.requestCallback<_gateway_protocol_UpdateJobRetriesResponse__Output>): grpc.ClientUnaryCall;
  
  UpdateJobTimeout(argument: _gateway_protocol_UpdateJobTimeoutRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_UpdateJobTimeoutResponse__Output>): grpc.ClientUnaryCall;
  UpdateJobTimeout(argument: _gateway_protocol_UpdateJobTimeoutRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_UpdateJobTimeoutResponse__Output>): grpc.ClientUnaryCall;
  UpdateJobTimeout(argument: _gateway_protocol_UpdateJobTimeoutRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_UpdateJobTimeoutResponse__Output>): grpc.ClientUnaryCall;
  UpdateJobTimeout(argument: _gateway_protocol_UpdateJobTimeoutRequest, callback: grpc.requestCallback<_gateway_protocol_UpdateJobTimeoutResponse__Output>): grpc.ClientUnaryCall;
  updateJobTimeout(argument: _gateway_protocol_UpdateJobTimeoutRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_UpdateJobTimeoutResponse__Output>): grpc.ClientUnaryCall;
  updateJobTimeout(argument: _gateway_protocol_UpdateJobTimeoutRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gateway_protocol_UpdateJobTimeoutResponse__Output>): grpc.ClientUnaryCall;
  updateJobTimeout(argument: _gateway_protocol_UpdateJobTimeoutRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gateway_protocol_UpdateJobTimeoutResponse__Output>): grpc.ClientUnaryCall;
  updateJobTimeout(argument: _gateway_protocol_UpdateJobTimeoutRequest, callback: grpc.requestCallback<_gateway_protocol_UpdateJobTimeoutResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface GatewayHandlers extends grpc.UntypedServiceImplementation {
  ActivateJobs: grpc.handleServerStreamingCall<_gateway_protocol_ActivateJobsRequest__Output, _gateway_protocol_ActivateJobsResponse>;
  
  BroadcastSignal: grpc.handleUnaryCall<_gateway_protocol_BroadcastSignalRequest__Output, _gateway_protocol_BroadcastSignalResponse>;
  
  CancelProcessInstance: grpc.handleUnaryCall<_gateway_protocol_CancelProcessInstanceRequest__Output, _gateway_protocol_CancelProcessInstanceResponse>;
  
  CompleteJob: grpc.handleUnaryCall<_gateway_protocol_CompleteJobRequest__Output, _gateway_protocol_CompleteJobResponse>;
  
  CreateProcessInstance: grpc.handleUnaryCall<_gateway_protocol_CreateProcessInstanceRequest__Output, _gateway_protocol_CreateProcessInstanceResponse>;
  
  CreateProcessInstanceWithResult: grpc.handleUnaryCall<_gateway_protocol_CreateProcessInstanceWithResultRequest__Output, _gateway_protocol_CreateProcessInstanceWithResultResponse>;
  
  DeleteResource: grpc.handleUnaryCall<_gateway_protocol_DeleteResourceRequest__Output, _gateway_protocol_DeleteResourceResponse>;
  
  DeployResource: grpc.handleUnaryCall<_gateway_protocol_DeployResourceRequest__Output, _gateway_protocol_DeployResourceResponse>;
  
  EvaluateDecision: grpc.handleUnaryCall<_gateway_protocol_EvaluateDecisionRequest__Output, _gateway_protocol_EvaluateDecisionResponse>;
  
  FailJob: grpc.handleUnaryCall<_gateway_protocol_FailJobRequest__Output, _gateway_protocol_FailJobResponse>;
  
  MigrateProcessInstance: grpc.handleUnaryCall<_gateway_protocol_MigrateProcessInstanceRequest__Output, _gateway_protocol_MigrateProcessInstanceResponse>;
  
  ModifyProcessInstance: grpc.handleUnaryCall<_gateway_protocol_ModifyProcessInstanceRequest__Output, _gateway_protocol_ModifyProcessInstanceResponse>;
  
  PublishMessage: grpc.handleUnaryCall<_gateway_protocol_PublishMessageRequest__Output, _gateway_protocol_PublishMessageResponse>;
  
  ResolveIncident: grpc.handleUnaryCall<_gateway_protocol_ResolveIncidentRequest__Output, _gateway_protocol_ResolveIncidentResponse>;
  
  SetVariables: grpc.handleUnaryCall<_gateway_protocol_SetVariablesRequest__Output, _gateway_protocol_SetVariablesResponse>;
  
  StreamActivatedJobs: grpc.handleServerStreamingCall<_gateway_protocol_StreamActivatedJobsRequest__Output, _gateway_protocol_ActivatedJob>;
  
  ThrowError: grpc.handleUnaryCall<_gateway_protocol_ThrowErrorRequest__Output, _gateway_protocol_ThrowErrorResponse>;
  
  Topology: grpc.handleUnaryCall<_gateway_protocol_TopologyRequest__Output, _gateway_protocol_TopologyResponse>;
  
  UpdateJobRetries: grpc.handleUnaryCall<_gateway_protocol_UpdateJobRetriesRequest__Output, _gateway_protocol_UpdateJobRetriesResponse>;
  
  UpdateJobTimeout: grpc.handleUnaryCall<_gateway_protocol_UpdateJobTimeoutRequest__Output, _gateway_protocol_UpdateJobTimeoutResponse>;
  
}

export interface GatewayDefinition extends grpc.ServiceDefinition {
  ActivateJobs: MethodDefinition<_gateway_protocol_ActivateJobsRequest, _gateway_protocol_ActivateJobsResponse, _gateway_protocol_ActivateJobsRequest__Output, _gateway_protocol_ActivateJobsResponse__Output>
  BroadcastSignal: MethodDefinition<_gateway_protocol_BroadcastSignalRequest, _gateway_protocol_BroadcastSignalResponse, _gateway_protocol_BroadcastSignalRequest__Output, _gateway_protocol_BroadcastSignalResponse__Output>
  CancelProcessInstance: MethodDefinition<_gateway_protocol_CancelProcessInstanceRequest, _gateway_protocol_CancelProcessInstanceResponse, _gateway_protocol_CancelProcessInstanceRequest__Output, _gateway_protocol_CancelProcessInstanceResponse__Output>
  CompleteJob: MethodDefinition<_gateway_protocol_CompleteJobRequest, _gateway_protocol_CompleteJobResponse, _gateway_protocol_CompleteJobRequest__Output, _gateway_protocol_CompleteJobResponse__Output>
  CreateProcessInstance: MethodDefinition<_gateway_protocol_CreateProcessInstanceRequest, _gateway_protocol_CreateProcessInstanceResponse, _gateway_protocol_CreateProcessInstanceRequest__Output, _gateway_protocol_CreateProcessInstanceResponse__Output>
  CreateProcessInstanceWithResult: MethodDefinition<_gateway_protocol_CreateProcessInstanceWithResultRequest, _gateway_protocol_CreateProcessInstanceWithResultResponse, _gateway_protocol_CreateProcessInstanceWithResultRequest__Output, _gateway_protocol_CreateProcessInstanceWithResultResponse__Output>
  DeleteResource: MethodDefinition<_gateway_protocol_DeleteResourceRequest, _gateway_protocol_DeleteResourceResponse, _gateway_protocol_DeleteResourceRequest__Output, _gateway_protocol_DeleteResourceResponse__Output>
  DeployResource: MethodDefinition<_gateway_protocol_DeployResourceRequest, _gateway_protocol_DeployResourceResponse, _gateway_protocol_DeployResourceRequest__Output, _gateway_protocol_DeployResourceResponse__Output>
  EvaluateDecision: MethodDefinition<_gateway_protocol_EvaluateDecisionRequest, _gateway_protocol_EvaluateDecisionResponse, _gateway_protocol_EvaluateDecisionRequest__Output, _gateway_protocol_EvaluateDecisionResponse__Output>
  FailJob: MethodDefinition<_gateway_protocol_FailJobRequest, _gateway_protocol_FailJobResponse, _gateway_protocol_FailJobRequest__Output, _gateway_protocol_FailJobResponse__Output>
  MigrateProcessInstance: MethodDefinition<_gateway_protocol_MigrateProcessInstanceRequest, _gateway_protocol_MigrateProcessInstanceResponse, _gateway_protocol_MigrateProcessInstanceRequest__Output, _gateway_protocol_MigrateProcessInstanceResponse__Output>
  ModifyProcessInstance: MethodDefinition<_gateway_protocol_ModifyProcessInstanceRequest, _gateway_protocol_ModifyProcessInstanceResponse, _gateway_protocol_ModifyProcessInstanceRequest__Output, _gateway_protocol_ModifyProcessInstanceResponse__Output>
  PublishMessage: MethodDefinition<_gateway_protocol_PublishMessageRequest, _gateway_protocol_PublishMessageResponse, _gateway_protocol_PublishMessageRequest__Output, _gateway_protocol_PublishMessageResponse__Output>
  ResolveIncident: MethodDefinition<_gateway_protocol_ResolveIncidentRequest, _gateway_protocol_ResolveIncidentResponse, _gateway_protocol_ResolveIncidentRequest__Output, _gateway_protocol_ResolveIncidentResponse__Output>
  SetVariables: MethodDefinition<_gateway_protocol_SetVariablesRequest, _gateway_protocol_SetVariablesResponse, _gateway_protocol_SetVariablesRequest__Output, _gateway_protocol_SetVariablesResponse__Output>
  StreamActivatedJobs: MethodDefinition<_gateway_protocol_StreamActivatedJobsRequest, _gateway_protocol_ActivatedJob, _gateway_protocol_StreamActivatedJobsRequest__Output, _gateway_protocol_ActivatedJob__Output>
  ThrowError: MethodDefinition<_gateway_protocol_ThrowErrorRequest, _gateway_protocol_ThrowErrorResponse, _gateway_protocol_ThrowErrorRequest__Output, _gateway_protocol_ThrowErrorResponse__Output>
  Topology: MethodDefinition<_gateway_protocol_TopologyRequest, _gateway_protocol_TopologyResponse, _gateway_protocol_TopologyRequest__Output, _gateway_protocol_TopologyResponse__Output>
  UpdateJobRetries: MethodDefinition<_gateway_protocol_UpdateJobRetriesRequest, _gateway_protocol_UpdateJobRetriesResponse, _gateway_protocol_UpdateJobRetriesRequest__Output, _gateway_protocol_UpdateJobRetriesResponse__Output>
  UpdateJobTimeout: MethodDefinition<_gateway_protocol_UpdateJobTimeoutRequest, _gateway_protocol_UpdateJobTimeoutResponse, _gateway_protocol_UpdateJobTimeoutRequest__Output, _gateway_protocol_UpdateJobTimeoutResponse__Output>
}
