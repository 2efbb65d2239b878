// Original file: proto/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface ListIncidentsRequest {
  'processInstanceKey'?: (number | string | Long);
}

export interface ListIncidentsRequest__Output {
  'processInstanceKey': (string);
}
