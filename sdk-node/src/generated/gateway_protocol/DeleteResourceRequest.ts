// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface DeleteResourceRequest {
  'resourceKey'?: (number | string | Long);
  'operationReference'?: (number | string | Long);
  '_operationReference'?: "operationReference";
}

export interface DeleteResourceRequest__Output {
  'resourceKey': (string);
  'operationReference'?: (string);
  '_operationReference'?: "operationReference";
}
