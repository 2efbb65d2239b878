// Original file: proto/gateway.proto


export interface EvaluatedDecisionOutput {
  'outputId'?: (string);
  'outputName'?: (string);
  'outputValue'?: (string);
}

export interface EvaluatedDecisionOutput__Output {
  'outputId': (string);
  'outputName': (string);
  'outputValue': (string);
}
