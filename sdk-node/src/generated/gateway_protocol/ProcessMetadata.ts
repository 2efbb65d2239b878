// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface ProcessMetadata {
  'bpmnProcessId'?: (string);
  'version'?: (number);
  'processDefinitionKey'?: (number | string | Long);
  'resourceName'?: (string);
  'tenantId'?: (string);
}

export interface ProcessMetadata__Output {
  'bpmnProcessId': (string);
  'version': (number);
  'processDefinitionKey': (string);
  'resourceName': (string);
  'tenantId': (string);
}
