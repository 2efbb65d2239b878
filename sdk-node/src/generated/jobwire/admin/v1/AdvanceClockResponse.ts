// Original file: proto/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface AdvanceClockResponse {
  'nowMs'?: (number | string | Long);
  'offsetMs'?: (number | string | Long);
  'fired'?: (number);
}

export interface AdvanceClockResponse__Output {
  'nowMs': (string);
  'offsetMs': (string);
  'fired': (number);
}
