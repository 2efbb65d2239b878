// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface ThrowErrorRequest {
  'jobKey'?: (number | string | Long);
  'errorCode'?: (string);
  'errorMessage'?: (string);
  'variables'?: (string);
}

export interface ThrowErrorRequest__Output {
  'jobKey': (string);
  'errorCode': (string);
  'errorMessage': (string);
  'variables': (string);
}
