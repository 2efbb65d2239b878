// Original file: proto/gateway.proto


export interface ProcessInstanceCreationStartInstruction {
  'elementId'?: (string);
}

export interface ProcessInstanceCreationStartInstruction__Output {
  'elementId': (string);
}
