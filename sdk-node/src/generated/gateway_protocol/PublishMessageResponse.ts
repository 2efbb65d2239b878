// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface PublishMessageResponse {
  'key'?: (number | string | Long);
  'tenantId'?: (string);
}

export interface PublishMessageResponse__Output {
  'key': (string);
  'tenantId': (string);
}
