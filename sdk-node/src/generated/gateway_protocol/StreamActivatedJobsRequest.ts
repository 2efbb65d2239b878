// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface StreamActivatedJobsRequest {
  'type'?: (string);
  'worker'?: (string);
  'timeout'?: (number | string | Long);
  'fetchVariable'?: (string)[];
  'tenantIds'?: (string)[];
}

export interface StreamActivatedJobsRequest__Output {
  'type': (string);
  'worker': (string);
  'timeout': (string);
  'fetchVariable': (string)[];
  'tenantIds': (string)[];
}
