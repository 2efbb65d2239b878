// Original file: proto/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface IncidentInfo {
  'key'?: (number | string | Long);
  'processInstanceKey'?: (number | string | Long);
  'elementInstanceKey'?: (number | string | Long);
  'jobKey'?: (number | string | Long);
  'type'?: (string);
  'message'?: (string);
}

export interface IncidentInfo__Output {
  'key': (string);
  'processInstanceKey': (string);
  'elementInstanceKey': (string);
  'jobKey': (string);
  'type': (string);
  'message': (string);
}
