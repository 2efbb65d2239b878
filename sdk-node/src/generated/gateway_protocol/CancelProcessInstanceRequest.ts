// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface CancelProcessInstanceRequest {
  'processInstanceKey'?: (number | string | Long);
  'operationReference'?: (number | string | Long);
  '_operationReference'?: "operationReference";
}

export interface CancelProcessInstanceRequest__Output {
  'processInstanceKey': (string);
  'operationReference'?: (string);
  '_operationReference'?: "operationReference";
}
