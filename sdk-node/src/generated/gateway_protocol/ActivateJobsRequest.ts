// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface ActivateJobsRequest {
  'type'?: (string);
  'worker'?: (string);
  'timeout'?: (number | string | Long);
  'maxJobsToActivate'?: (number);
  'fetchVariable'?: (string)[];
  'requestTimeout'?: (number | string | Long);
  'tenantIds'?: (string)[];
}

export interface ActivateJobsRequest__Output {
  'type': (string);
  'worker': (string);
  'timeout': (string);
  'maxJobsToActivate': (number);
  'fetchVariable': (string)[];
  'requestTimeout': (string);
  'tenantIds': (string)[];
}
