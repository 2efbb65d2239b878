// Original file: proto/admin.proto

import type { RequestCount as _jobwire_admin_v1_RequestCount, RequestCount__Output as _jobwire_admin_v1_RequestCount__Output } from '../../../jobwire/admin/v1/RequestCount';

export interface GetRequestCountsResponse {
  'counts'?: (_jobwire_admin_v1_RequestCount)[];
}

export interface GetRequestCountsResponse__Output {
  'counts': (_jobwire_admin_v1_RequestCount__Output)[];
}
