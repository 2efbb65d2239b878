// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface BroadcastSignalResponse {
  'key'?: (number | string | Long);
  'tenantId'?: (string);
}

export interface BroadcastSignalResponse__Output {
  'key': (string);
  'tenantId': (string);
}
