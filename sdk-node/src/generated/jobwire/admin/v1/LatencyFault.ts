// Original file: proto/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface LatencyFault {
  'method'?: (string);
  'delayMs'?: (number | string | Long);
}

export interface LatencyFault__Output {
  'method': (string);
  'delayMs': (string);
}
