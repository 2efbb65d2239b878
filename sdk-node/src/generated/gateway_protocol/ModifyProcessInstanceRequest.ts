// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface _gateway_protocol_ModifyProcessInstanceRequest_ActivateInstruction {
  'elementId'?: (string);
  'ancestorElementInstanceKey'?: (number | string | Long);
  'variableInstructions'?: (_gateway_protocol_ModifyProcessInstanceRequest_VariableInstruction)[];
}

export interface _gateway_protocol_ModifyProcessInstanceRequest_ActivateInstruction__Output {
  'elementId': (string);
  'ancestorElementInstanceKey': (string);
  'variableInstructions': (_gateway_protocol_ModifyProcessInstanceRequest_VariableInstruction__Output)[];
}

export interface _gateway_protocol_ModifyProcessInstanceRequest_TerminateInstruction {
  'elementInstanceKey'?: (number | string | Long);
}

export interface _gateway_protocol_ModifyProcessInstanceRequest_TerminateInstruction__Output {
  'elementInstanceKey': (string);
}

export interface _gateway_protocol_ModifyProcessInstanceRequest_VariableInstruction {
  'variables'?: (string);
  'scopeId'?: (string);
}

export interface _gateway_protocol_ModifyProcessInstanceRequest_VariableInstruction__Output {
  'variables': (string);
  'scopeId': (string);
}

export interface ModifyProcessInstanceRequest {
  'processInstanceKey'?: (number | string | Long);
  'activateInstructions'?: (_gateway_protocol_ModifyProcessInstanceRequest_ActivateInstruction)[];
  'terminateInstructions'?: (_gateway_protocol_ModifyProcessInstanceRequest_TerminateInstruction)[];
  'operationReference'?: (number | string | Long);
  '_operationReference'?: "operationReference";
}

export interface ModifyProcessInstanceRequest__Output {
  'processInstanceKey': (string);
  'activateInstructions': (_gateway_protocol_ModifyProcessInstanceRequest_ActivateInstruction__Output)[];
  'terminateInstructions': (_gateway_protocol_ModifyProcessInstanceRequest_TerminateInstruction__Output)[];
  'operationReference'?: (string);
  '_operationReference'?: "operationReference";
}
