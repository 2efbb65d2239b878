// Original file: proto/stream.proto

import type { Long } from '@grpc/proto-loader';

export interface ReleaseUnreadRequest {
  'streamId'?: (string);
  'messagesRead'?: (number | string | Long);
}

export interface ReleaseUnreadRequest__Output {
  'streamId': (string);
  'messagesRead': (string);
}
