// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface SetVariablesResponse {
  'key'?: (number | string | Long);
}

export interface SetVariablesResponse__Output {
  'key': (string);
}
