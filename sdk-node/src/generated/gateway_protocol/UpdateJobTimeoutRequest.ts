// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface UpdateJobTimeoutRequest {
  'jobKey'?: (number | string | Long);
  'timeout'?: (number | string | Long);
  'operationReference'?: (number | string | Long);
  '_operationReference'?: "operationReference";
}

export interface UpdateJobTimeoutRequest__Output {
  'jobKey': (string);
  'timeout': (string);
  'operationReference'?: (string);
  '_operationReference'?: "operationReference";
}
