// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface ResolveIncidentRequest {
  'incidentKey'?: (number | string | Long);
  'operationReference'?: (number | string | Long);
  '_operationReference'?: "operationReference";
}

export interface ResolveIncidentRequest__Output {
  'incidentKey': (string);
  'operationReference'?: (string);
  '_operationReference'?: "operationReference";
}
