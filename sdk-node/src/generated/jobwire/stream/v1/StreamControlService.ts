// Original file: proto/stream.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { ReleaseUnreadRequest as _jobwire_stream_v1_ReleaseUnreadRequest, ReleaseUnreadRequest__Output as _jobwire_stream_v1_ReleaseUnreadRequest__Output } from '../../../jobwire/stream/v1/ReleaseUnreadRequest';
import type { ReleaseUnreadResponse as _jobwire_stream_v1_ReleaseUnreadResponse, ReleaseUnreadResponse__Output as _jobwire_stream_v1_ReleaseUnreadResponse__Output } from '../../../jobwire/stream/v1/ReleaseUnreadResponse';

export interface StreamControlServiceClient extends grpc.Client {
  ReleaseUnread(argument: _jobwire_stream_v1_ReleaseUnreadRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_stream_v1_ReleaseUnreadResponse__Output>): grpc.ClientUnaryCall;
  ReleaseUnread(argument: _jobwire_stream_v1_ReleaseUnreadRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_stream_v1_ReleaseUnreadResponse__Output>): grpc.ClientUnaryCall;
  ReleaseUnread(argument: _jobwire_stream_v1_ReleaseUnreadRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_stream_v1_ReleaseUnreadResponse__Output>): grpc.ClientUnaryCall;
  ReleaseUnread(argument: _jobwire_stream_v1_ReleaseUnreadRequest, callback: grpc.requestCallback<_jobwire_stream_v1_ReleaseUnreadResponse__Output>): grpc.ClientUnaryCall;
  releaseUnread(argument: _jobwire_stream_v1_ReleaseUnreadRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_stream_v1_ReleaseUnreadResponse__Output>): grpc.ClientUnaryCall;
  releaseUnread(argument: _jobwire_stream_v1_ReleaseUnreadRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_jobwire_stream_v1_ReleaseUnreadResponse__Output>): grpc.ClientUnaryCall;
  releaseUnread(argument: _jobwire_stream_v1_ReleaseUnreadRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_jobwire_stream_v1_ReleaseUnreadResponse__Output>): grpc.ClientUnaryCall;
  releaseUnread(argument: _jobwire_stream_v1_ReleaseUnreadRequest, callback: grpc.requestCallback<_jobwire_stream_v1_ReleaseUnreadResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface StreamControlServiceHandlers extends grpc.UntypedServiceImplementation {
  ReleaseUnread: grpc.handleUnaryCall<_jobwire_stream_v1_ReleaseUnreadRequest__Output, _jobwire_stream_v1_ReleaseUnreadResponse>;
  
}

export interface StreamControlServiceDefinition extends grpc.ServiceDefinition {
  ReleaseUnread: MethodDefinition<_jobwire_stream_v1_ReleaseUnreadRequest, _jobwire_stream_v1_ReleaseUnreadResponse, _jobwire_stream_v1_ReleaseUnreadRequest__Output, _jobwire_stream_v1_ReleaseUnreadResponse__Output>
}
