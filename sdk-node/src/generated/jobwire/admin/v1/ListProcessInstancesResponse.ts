// Original file: proto/admin.proto

import type { ProcessInstanceInfo as _jobwire_admin_v1_ProcessInstanceInfo, ProcessInstanceInfo__Output as _jobwire_admin_v1_ProcessInstanceInfo__Output } from '../../../jobwire/admin/v1/ProcessInstanceInfo';
import type { Long } from '@grpc/proto-loader';

export interface ListProcessInstancesResponse {
  'countsByState'?: ({[key: string]: number | string | Long});
  'instances'?: (_jobwire_admin_v1_ProcessInstanceInfo)[];
}

export interface ListProcessInstancesResponse__Output {
  'countsByState': ({[key: string]: string});
  'instances': (_jobwire_admin_v1_ProcessInstanceInfo__Output)[];
}
