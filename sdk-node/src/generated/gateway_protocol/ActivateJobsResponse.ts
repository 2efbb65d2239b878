// Original file: proto/gateway.proto

import type { ActivatedJob as _gateway_protocol_ActivatedJob, ActivatedJob__Output as _gateway_protocol_ActivatedJob__Output } from '../gateway_protocol/ActivatedJob';

export interface ActivateJobsResponse {
  'jobs'?: (_gateway_protocol_ActivatedJob)[];
}

export interface ActivateJobsResponse__Output {
  'jobs': (_gateway_protocol_ActivatedJob__Output)[];
}
