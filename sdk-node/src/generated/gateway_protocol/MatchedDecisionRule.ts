// Original file: proto/gateway.proto

import type { EvaluatedDecisionOutput as _gateway_protocol_EvaluatedDecisionOutput, EvaluatedDecisionOutput__Output as _gateway_protocol_EvaluatedDecisionOutput__Output } from '../gateway_protocol/EvaluatedDecisionOutput';

export interface MatchedDecisionRule {
  'ruleId'?: (string);
  'ruleIndex'?: (number);
  'evaluatedOutputs'?: (_gateway_protocol_EvaluatedDecisionOutput)[];
}

export interface MatchedDecisionRule__Output {
  'ruleId': (string);
  'ruleIndex': (number);
  'evaluatedOutputs': (_gateway_protocol_EvaluatedDecisionOutput__Output)[];
}
