// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface CreateProcessInstanceResponse {
  'processDefinitionKey'?: (number | string | Long);
  'bpmnProcessId'?: (string);
  'version'?: (number);
  'processInstanceKey'?: (number | string | Long);
  'tenantId'?: (string);
  'tags'?: (string)[];
}

export interface CreateProcessInstanceResponse__Output {
  'processDefinitionKey': (string);
  'bpmnProcessId': (string);
  'version': (number);
  'processInstanceKey': (string);
  'tenantId': (string);
  'tags': (string)[];
}
