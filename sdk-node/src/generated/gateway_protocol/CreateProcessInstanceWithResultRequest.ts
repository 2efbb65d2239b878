// Original file: proto/gateway.proto

import type { CreateProcessInstanceRequest as _gateway_protocol_CreateProcessInstanceRequest, CreateProcessInstanceRequest__Output as _gateway_protocol_CreateProcessInstanceRequest__Output } from '../gateway_protocol/CreateProcessInstanceRequest';
import type { Long } from '@grpc/proto-loader';

export interface CreateProcessInstanceWithResultRequest {
  'request'?: (_gateway_protocol_CreateProcessInstanceRequest | null);
  'requestTimeout'?: (number | string | Long);
  'fetchVariables'?: (string)[];
}

export interface CreateProcessInstanceWithResultRequest__Output {
  'request': (_gateway_protocol_CreateProcessInstanceRequest__Output | null);
  'requestTimeout': (string);
  'fetchVariables': (string)[];
}
