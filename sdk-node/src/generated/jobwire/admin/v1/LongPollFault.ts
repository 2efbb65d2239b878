// Original file: proto/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface LongPollFault {
  'code'?: (number);
  'count'?: (number);
  'afterMs'?: (number | string | Long);
}

export interface LongPollFault__Output {
  'code': (number);
  'count': (number);
  'afterMs': (string);
}
