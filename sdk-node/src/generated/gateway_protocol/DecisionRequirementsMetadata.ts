// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface DecisionRequirementsMetadata {
  'dmnDecisionRequirementsId'?: (string);
  'dmnDecisionRequirementsName'?: (string);
  'version'?: (number);
  'decisionRequirementsKey'?: (number | string | Long);
  'resourceName'?: (string);
  'tenantId'?: (string);
}

export interface DecisionRequirementsMetadata__Output {
  'dmnDecisionRequirementsId': (string);
  'dmnDecisionRequirementsName': (string);
  'version': (number);
  'decisionRequirementsKey': (string);
  'resourceName': (string);
  'tenantId': (string);
}
