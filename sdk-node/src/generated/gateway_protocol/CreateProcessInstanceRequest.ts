// Original file: proto/gateway.proto

import type { ProcessInstanceCreationStartInstruction as _gateway_protocol_ProcessInstanceCreationStartInstruction, ProcessInstanceCreationStartInstruction__Output as _gateway_protocol_ProcessInstanceCreationStartInstruction__Output } from '../gateway_protocol/ProcessInstanceCreationStartInstruction';
import type { ProcessInstanceCreationRuntimeInstruction as _gateway_protocol_ProcessInstanceCreationRuntimeInstruction, ProcessInstanceCreationRuntimeInstruction__Output as _gateway_protocol_ProcessInstanceCreationRuntimeInstruction__Output } from '../gateway_protocol/ProcessInstanceCreationRuntimeInstruction';
import type { Long } from '@grpc/proto-loader';

export interface CreateProcessInstanceRequest {
  'processDefinitionKey'?: (number | string | Long);
  'bpmnProcessId'?: (string);
  'version'?: (number);
  'variables'?: (string);
  'startInstructions'?: (_gateway_protocol_ProcessInstanceCreationStartInstruction)[];
  'tenantId'?: (string);
  'operationReference'?: (number | string | Long);
  'runtimeInstructions'?: (_gateway_protocol_ProcessInstanceCreationRuntimeInstruction)[];
  'tags'?: (string)[];
  '_operationReference'?: "operationReference";
}

export interface CreateProcessInstanceRequest__Output {
  'processDefinitionKey': (string);
  'bpmnProcessId': (string);
  'version': (number);
  'variables': (string);
  'startInstructions': (_gateway_protocol_ProcessInstanceCreationStartInstruction__Output)[];
  'tenantId': (string);
  'operationReference'?: (string);
  'runtimeInstructions': (_gateway_protocol_ProcessInstanceCreationRuntimeInstruction__Output)[];
  'tags': (string)[];
  '_operationReference'?: "operationReference";
}
