// Original file: proto/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface LongPollInfo {
  'type'?: (string);
  'worker'?: (string);
  'peer'?: (string);
  'maxJobsToActivate'?: (number);
  'parkedAt'?: (number | string | Long);
}

export interface LongPollInfo__Output {
  'type': (string);
  'worker': (string);
  'peer': (string);
  'maxJobsToActivate': (number);
  'parkedAt': (string);
}
