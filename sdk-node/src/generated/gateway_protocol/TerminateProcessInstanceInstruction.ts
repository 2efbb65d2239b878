// Original file: proto/gateway.proto


export interface TerminateProcessInstanceInstruction {
  'afterElementId'?: (string);
}

export interface TerminateProcessInstanceInstruction__Output {
  'afterElementId': (string);
}
