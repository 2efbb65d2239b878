// Original file: proto/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface SetClockRequest {
  'epochMs'?: (number | string | Long);
}

export interface SetClockRequest__Output {
  'epochMs': (string);
}
