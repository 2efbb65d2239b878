// Original file: proto/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface ExpireTokensFault {
  'issuedUpToUnixS'?: (number | string | Long);
}

export interface ExpireTokensFault__Output {
  'issuedUpToUnixS': (string);
}
