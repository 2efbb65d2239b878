// Original file: proto/gateway.proto

import type { Deployment as _gateway_protocol_Deployment, Deployment__Output as _gateway_protocol_Deployment__Output } from '../gateway_protocol/Deployment';
import type { Long } from '@grpc/proto-loader';

export interface DeployResourceResponse {
  'key'?: (number | string | Long);
  'deployments'?: (_gateway_protocol_Deployment)[];
  'tenantId'?: (string);
}

export interface DeployResourceResponse__Output {
  'key': (string);
  'deployments': (_gateway_protocol_Deployment__Output)[];
  'tenantId': (string);
}
