// Original file: proto/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface GetClockResponse {
  'nowMs'?: (number | string | Long);
  'offsetMs'?: (number | string | Long);
}

export interface GetClockResponse__Output {
  'nowMs': (string);
  'offsetMs': (string);
}
