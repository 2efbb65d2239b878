// Original file: proto/admin.proto

import type { JobInfo as _jobwire_admin_v1_JobInfo, JobInfo__Output as _jobwire_admin_v1_JobInfo__Output } from '../../../jobwire/admin/v1/JobInfo';
import type { Long } from '@grpc/proto-loader';

export interface ListJobsResponse {
  'countsByState'?: ({[key: string]: number | string | Long});
  'jobs'?: (_jobwire_admin_v1_JobInfo)[];
}

export interface ListJobsResponse__Output {
  'countsByState': ({[key: string]: string});
  'jobs': (_jobwire_admin_v1_JobInfo__Output)[];
}
