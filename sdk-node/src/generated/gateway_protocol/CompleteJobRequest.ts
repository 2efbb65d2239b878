// Original file: proto/gateway.proto

import type { JobResult as _gateway_protocol_JobResult, JobResult__Output as _gateway_protocol_JobResult__Output } from '../gateway_protocol/JobResult';
import type { Long } from '@grpc/proto-loader';

export interface CompleteJobRequest {
  'jobKey'?: (number | string | Long);
  'variables'?: (string);
  'result'?: (_gateway_protocol_JobResult | null);
  '_result'?: "result";
}

export interface CompleteJobRequest__Output {
  'jobKey': (string);
  'variables': (string);
  'result'?: (_gateway_protocol_JobResult__Output | null);
  '_result'?: "result";
}
