// Original file: proto/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface GoAwayFault {
  'graceMs'?: (number | string | Long);
}

export interface GoAwayFault__Output {
  'graceMs': (string);
}
