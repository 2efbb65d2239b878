// Original file: proto/stream.proto

import type { Long } from '@grpc/proto-loader';

export interface ReleaseUnreadResponse {
  'messagesSent'?: (number | string | Long);
  'released'?: (number | string | Long);
}

export interface ReleaseUnreadResponse__Output {
  'messagesSent': (string);
  'released': (string);
}
