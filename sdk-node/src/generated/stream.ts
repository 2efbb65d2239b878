import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { ReleaseUnreadRequest as _jobwire_stream_v1_ReleaseUnreadRequest, ReleaseUnreadRequest__Output as _jobwire_stream_v1_ReleaseUnreadRequest__Output } from './jobwire/stream/v1/ReleaseUnreadRequest';
import type { ReleaseUnreadResponse as _jobwire_stream_v1_ReleaseUnreadResponse, ReleaseUnreadResponse__Output as _jobwire_stream_v1_ReleaseUnreadResponse__Output } from './jobwire/stream/v1/ReleaseUnreadResponse';
import type { StreamControlServiceClient as _jobwire_stream_v1_StreamControlServiceClient, StreamControlServiceDefinition as _jobwire_stream_v1_StreamControlServiceDefinition } from './jobwire/stream/v1/StreamControlService';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  jobwire: {
    stream: {
      v1: {
        ReleaseUnreadRequest: MessageTypeDefinition<_jobwire_stream_v1_ReleaseUnreadRequest, _jobwire_stream_v1_ReleaseUnreadRequest__Output>
        ReleaseUnreadResponse: MessageTypeDefinition<_jobwire_stream_v1_ReleaseUnreadResponse, _jobwire_stream_v1_ReleaseUnreadResponse__Output>
        StreamControlService: SubtypeConstructor<typeof grpc.Client, _jobwire_stream_v1_StreamControlServiceClient> & { service: _jobwire_stream_v1_StreamControlServiceDefinition }
      }
    }
  }
}

