// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface FailJobRequest {
  'jobKey'?: (number | string | Long);
  'retries'?: (number);
  'errorMessage'?: (string);
  'retryBackOff'?: (number | string | Long);
  'variables'?: (string);
}

export interface FailJobRequest__Output {
  'jobKey': (string);
  'retries': (number);
  'errorMessage': (string);
  'retryBackOff': (string);
  'variables': (string);
}
