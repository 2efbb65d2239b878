// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface UpdateJobRetriesRequest {
  'jobKey'?: (number | string | Long);
  'retries'?: (number);
  'operationReference'?: (number | string | Long);
  '_operationReference'?: "operationReference";
}

export interface UpdateJobRetriesRequest__Output {
  'jobKey': (string);
  'retries': (number);
  'operationReference'?: (string);
  '_operationReference'?: "operationReference";
}
