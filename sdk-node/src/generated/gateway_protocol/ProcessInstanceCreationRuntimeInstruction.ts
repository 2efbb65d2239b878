// Original file: proto/gateway.proto

import type { TerminateProcessInstanceInstruction as _gateway_protocol_TerminateProcessInstanceInstruction, TerminateProcessInstanceInstruction__Output as _gateway_protocol_TerminateProcessInstanceInstruction__Output } from '../gateway_protocol/TerminateProcessInstanceInstruction';

export interface ProcessInstanceCreationRuntimeInstruction {
  'terminate'?: (_gateway_protocol_TerminateProcessInstanceInstruction | null);
  'instruction'?: "terminate";
}

export interface ProcessInstanceCreationRuntimeInstruction__Output {
  'terminate'?: (_gateway_protocol_TerminateProcessInstanceInstruction__Output | null);
  'instruction'?: "terminate";
}
