// Original file: proto/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface RequestCount {
  'method'?: (string);
  'peer'?: (string);
  'count'?: (number | string | Long);
  'byCode'?: ({[key: string]: number | string | Long});
  'timestamps'?: (number | string | Long)[];
}

export interface RequestCount__Output {
  'method': (string);
  'peer': (string);
  'count': (string);
  'byCode': ({[key: string]: string});
  'timestamps': (string)[];
}
