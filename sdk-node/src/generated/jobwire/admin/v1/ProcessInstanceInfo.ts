// Original file: proto/admin.proto

import type { ProcessInstanceState as _jobwire_admin_v1_ProcessInstanceState, ProcessInstanceState__Output as _jobwire_admin_v1_ProcessInstanceState__Output } from '../../../jobwire/admin/v1/ProcessInstanceState';
import type { ElementInstanceInfo as _jobwire_admin_v1_ElementInstanceInfo, ElementInstanceInfo__Output as _jobwire_admin_v1_ElementInstanceInfo__Output } from '../../../jobwire/admin/v1/ElementInstanceInfo';
import type { Long } from '@grpc/proto-loader';

export interface ProcessInstanceInfo {
  'key'?: (number | string | Long);
  'bpmnProcessId'?: (string);
  'state'?: (_jobwire_admin_v1_ProcessInstanceState);
  'variables'?: (string);
  'completionCount'?: (number);
  'processDefinitionKey'?: (number | string | Long);
  'version'?: (number);
  'incidentCount'?: (number);
  'activeElements'?: (_jobwire_admin_v1_ElementInstanceInfo)[];
}

export interface ProcessInstanceInfo__Output {
  'key': (string);
  'bpmnProcessId': (string);
  'state': (_jobwire_admin_v1_ProcessInstanceState__Output);
  'variables': (string);
  'completionCount': (number);
  'processDefinitionKey': (string);
  'version': (number);
  'incidentCount': (number);
  'activeElements': (_jobwire_admin_v1_ElementInstanceInfo__Output)[];
}
