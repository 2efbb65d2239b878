// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface PublishMessageRequest {
  'name'?: (string);
  'correlationKey'?: (string);
  'timeToLive'?: (number | string | Long);
  'messageId'?: (string);
  'variables'?: (string);
  'tenantId'?: (string);
}

export interface PublishMessageRequest__Output {
  'name': (string);
  'correlationKey': (string);
  'timeToLive': (string);
  'messageId': (string);
  'variables': (string);
  'tenantId': (string);
}
