// Original file: proto/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface StreamInfo {
  'id'?: (string);
  'type'?: (string);
  'worker'?: (string);
  'peer'?: (string);
  'jobsPushed'?: (number | string | Long);
  'jobsYielded'?: (number | string | Long);
  'ready'?: (boolean);
  'aggregateId'?: (string);
}

export interface StreamInfo__Output {
  'id': (string);
  'type': (string);
  'worker': (string);
  'peer': (string);
  'jobsPushed': (string);
  'jobsYielded': (string);
  'ready': (boolean);
  'aggregateId': (string);
}
