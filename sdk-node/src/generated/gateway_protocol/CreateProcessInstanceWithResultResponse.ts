// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface CreateProcessInstanceWithResultResponse {
  'processDefinitionKey'?: (number | string | Long);
  'bpmnProcessId'?: (string);
  'version'?: (number);
  'processInstanceKey'?: (number | string | Long);
  'variables'?: (string);
  'tenantId'?: (string);
  'tags'?: (string)[];
}

export interface CreateProcessInstanceWithResultResponse__Output {
  'processDefinitionKey': (string);
  'bpmnProcessId': (string);
  'version': (number);
  'processInstanceKey': (string);
  'variables': (string);
  'tenantId': (string);
  'tags': (string)[];
}
