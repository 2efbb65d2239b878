// Original file: proto/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface StallStreamsFault {
  'type'?: (string);
  'durationMs'?: (number | string | Long);
}

export interface StallStreamsFault__Output {
  'type': (string);
  'durationMs': (string);
}
