// Original file: proto/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface AdvanceClockRequest {
  'durationMs'?: (number | string | Long);
}

export interface AdvanceClockRequest__Output {
  'durationMs': (string);
}
