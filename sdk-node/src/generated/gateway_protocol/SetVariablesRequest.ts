// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface SetVariablesRequest {
  'elementInstanceKey'?: (number | string | Long);
  'variables'?: (string);
  'local'?: (boolean);
  'operationReference'?: (number | string | Long);
  '_operationReference'?: "operationReference";
}

export interface SetVariablesRequest__Output {
  'elementInstanceKey': (string);
  'variables': (string);
  'local': (boolean);
  'operationReference'?: (string);
  '_operationReference'?: "operationReference";
}
