// Original file: proto/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface ElementInstanceInfo {
  'key'?: (number | string | Long);
  'elementId'?: (string);
  'scopeKey'?: (number | string | Long);
  'variables'?: (string);
}

export interface ElementInstanceInfo__Output {
  'key': (string);
  'elementId': (string);
  'scopeKey': (string);
  'variables': (string);
}
