// Original file: proto/gateway.proto

import type { MatchedDecisionRule as _gateway_protocol_MatchedDecisionRule, MatchedDecisionRule__Output as _gateway_protocol_MatchedDecisionRule__Output } from '../gateway_protocol/MatchedDecisionRule';
import type { EvaluatedDecisionInput as _gateway_protocol_EvaluatedDecisionInput, EvaluatedDecisionInput__Output as _gateway_protocol_EvaluatedDecisionInput__Output } from '../gateway_protocol/EvaluatedDecisionInput';
import type { Long } from '@grpc/proto-loader';

export interface EvaluatedDecision {
  'decisionKey'?: (number | string | Long);
  'decisionId'?: (string);
  'decisionName'?: (string);
  'decisionVersion'?: (number);
  'decisionType'?: (string);
  'decisionOutput'?: (string);
  'matchedRules'?: (_gateway_protocol_MatchedDecisionRule)[];
  'evaluatedInputs'?: (_gateway_protocol_EvaluatedDecisionInput)[];
  'tenantId'?: (string);
  'decisionEvaluationInstanceKey'?: (string);
}

export interface EvaluatedDecision__Output {
  'decisionKey': (string);
  'decisionId': (string);
  'decisionName': (string);
  'decisionVersion': (number);
  'decisionType': (string);
  'decisionOutput': (string);
  'matchedRules': (_gateway_protocol_MatchedDecisionRule__Output)[];
  'evaluatedInputs': (_gateway_protocol_EvaluatedDecisionInput__Output)[];
  'tenantId': (string);
  'decisionEvaluationInstanceKey': (string);
}
