// Original file: proto/gateway.proto

import type { EvaluatedDecision as _gateway_protocol_EvaluatedDecision, EvaluatedDecision__Output as _gateway_protocol_EvaluatedDecision__Output } from '../gateway_protocol/EvaluatedDecision';
import type { Long } from '@grpc/proto-loader';

export interface EvaluateDecisionResponse {
  'decisionKey'?: (number | string | Long);
  'decisionId'?: (string);
  'decisionName'?: (string);
  'decisionVersion'?: (number);
  'decisionRequirementsId'?: (string);
  'decisionRequirementsKey'?: (number | string | Long);
  'decisionOutput'?: (string);
  'evaluatedDecisions'?: (_gateway_protocol_EvaluatedDecision)[];
  'failedDecisionId'?: (string);
  'failureMessage'?: (string);
  'tenantId'?: (string);
  'decisionInstanceKey'?: (number | string | Long);
  'decisionEvaluationKey'?: (number | string | Long);
}

export interface EvaluateDecisionResponse__Output {
  'decisionKey': (string);
  'decisionId': (string);
  'decisionName': (string);
  'decisionVersion': (number);
  'decisionRequirementsId': (string);
  'decisionRequirementsKey': (string);
  'decisionOutput': (string);
  'evaluatedDecisions': (_gateway_protocol_EvaluatedDecision__Output)[];
  'failedDecisionId': (string);
  'failureMessage': (string);
  'tenantId': (string);
  'decisionInstanceKey': (string);
  'decisionEvaluationKey': (string);
}
