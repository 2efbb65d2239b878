// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface EvaluateDecisionRequest {
  'decisionKey'?: (number | string | Long);
  'decisionId'?: (string);
  'variables'?: (string);
  'tenantId'?: (string);
}

export interface EvaluateDecisionRequest__Output {
  'decisionKey': (string);
  'decisionId': (string);
  'variables': (string);
  'tenantId': (string);
}
