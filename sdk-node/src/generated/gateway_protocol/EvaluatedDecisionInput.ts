// Original file: proto/gateway.proto


export interface EvaluatedDecisionInput {
  'inputId'?: (string);
  'inputName'?: (string);
  'inputValue'?: (string);
}

export interface EvaluatedDecisionInput__Output {
  'inputId': (string);
  'inputName': (string);
  'inputValue': (string);
}
