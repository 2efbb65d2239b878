// Original file: proto/gateway.proto

import type { UserTaskProperties as _gateway_protocol_UserTaskProperties, UserTaskProperties__Output as _gateway_protocol_UserTaskProperties__Output } from '../gateway_protocol/UserTaskProperties';
import type { Long } from '@grpc/proto-loader';

// Original file: proto/gateway.proto

export const _gateway_protocol_ActivatedJob_JobKind = {
  BPMN_ELEMENT: 'BPMN_ELEMENT',
  EXECUTION_LISTENER: 'EXECUTION_LISTENER',
  TASK_LISTENER: 'TASK_LISTENER',
  AD_HOC_SUB_PROCESS: 'AD_HOC_SUB_PROCESS',
} as const;

export type _gateway_protocol_ActivatedJob_JobKind =
  | 'BPMN_ELEMENT'
  | 0
  | 'EXECUTION_LISTENER'
  | 1
  | 'TASK_LISTENER'
  | 2
  | 'AD_HOC_SUB_PROCESS'
  | 3

export type _gateway_protocol_ActivatedJob_JobKind__Output = typeof _gateway_protocol_ActivatedJob_JobKind[keyof typeof _gateway_protocol_ActivatedJob_JobKind]

// Original file: proto/gateway.proto

export const _gateway_protocol_ActivatedJob_ListenerEventType = {
  ASSIGNING: 'ASSIGNING',
  CANCELING: 'CANCELING',
  COMPLETING: 'COMPLETING',
  CREATING: 'CREATING',
  END: 'END',
  START: 'START',
  UNSPECIFIED: 'UNSPECIFIED',
  UPDATING: 'UPDATING',
} as const;

export type _gateway_protocol_ActivatedJob_ListenerEventType =
  | 'ASSIGNING'
  | 0
  | 'CANCELING'
  | 1
  | 'COMPLETING'
  | 2
  | 'CREATING'
  | 3
  | 'END'
  | 4
  | 'START'
  | 5
  | 'UNSPECIFIED'
  | 6
  | 'UPDATING'
  | 7

export type _gateway_protocol_ActivatedJob_ListenerEventType__Output = typeof _gateway_protocol_ActivatedJob_ListenerEventType[keyof typeof _gateway_protocol_ActivatedJob_ListenerEventType]

export interface ActivatedJob {
  'key'?: (number | string | Long);
  'type'?: (string);
  'processInstanceKey'?: (number | string | Long);
  'bpmnProcessId'?: (string);
  'processDefinitionVersion'?: (number);
  'processDefinitionKey'?: (number | string | Long);
  'elementId'?: (string);
  'elementInstanceKey'?: (number | string | Long);
  'customHeaders'?: (string);
  'worker'?: (string);
  'retries'?: (number);
  'deadline'?: (number | string | Long);
  'variables'?: (string);
  'tenantId'?: (string);
  'userTask'?: (_gateway_protocol_UserTaskProperties | null);
  'kind'?: (_gateway_protocol_ActivatedJob_JobKind);
  'listenerEventType'?: (_gateway_protocol_ActivatedJob_ListenerEventType);
  'tags'?: (string)[];
  '_userTask'?: "userTask";
}

export interface ActivatedJob__Output {
  'key': (string);
  'type': (string);
  'processInstanceKey': (string);
  'bpmnProcessId': (string);
  'processDefinitionVersion': (number);
  'processDefinitionKey': (string);
  'elementId': (string);
  'elementInstanceKey': (string);
  'customHeaders': (string);
  'worker': (string);
  'retries': (number);
  'deadline': (string);
  'variables': (string);
  'tenantId': (string);
  'userTask'?: (_gateway_protocol_UserTaskProperties__Output | null);
  'kind': (_gateway_protocol_ActivatedJob_JobKind__Output);
  'listenerEventType': (_gateway_protocol_ActivatedJob_ListenerEventType__Output);
  'tags': (string)[];
  '_userTask'?: "userTask";
}
