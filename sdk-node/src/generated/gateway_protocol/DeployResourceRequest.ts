// Original file: proto/gateway.proto

import type { Resource as _gateway_protocol_Resource, Resource__Output as _gateway_protocol_Resource__Output } from '../gateway_protocol/Resource';

export interface DeployResourceRequest {
  'resources'?: (_gateway_protocol_Resource)[];
  'tenantId'?: (string);
}

export interface DeployResourceRequest__Output {
  'resources': (_gateway_protocol_Resource__Output)[];
  'tenantId': (string);
}
