// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface FormMetadata {
  'formId'?: (string);
  'version'?: (number);
  'formKey'?: (number | string | Long);
  'resourceName'?: (string);
  'tenantId'?: (string);
}

export interface FormMetadata__Output {
  'formId': (string);
  'version': (number);
  'formKey': (string);
  'resourceName': (string);
  'tenantId': (string);
}
