// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface DecisionMetadata {
  'dmnDecisionId'?: (string);
  'dmnDecisionName'?: (string);
  'version'?: (number);
  'decisionKey'?: (number | string | Long);
  'dmnDecisionRequirementsId'?: (string);
  'decisionRequirementsKey'?: (number | string | Long);
  'tenantId'?: (string);
}

export interface DecisionMetadata__Output {
  'dmnDecisionId': (string);
  'dmnDecisionName': (string);
  'version': (number);
  'decisionKey': (string);
  'dmnDecisionRequirementsId': (string);
  'decisionRequirementsKey': (string);
  'tenantId': (string);
}
