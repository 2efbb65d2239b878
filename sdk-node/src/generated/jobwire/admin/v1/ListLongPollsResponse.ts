// Original file: proto/admin.proto

import type { LongPollInfo as _jobwire_admin_v1_LongPollInfo, LongPollInfo__Output as _jobwire_admin_v1_LongPollInfo__Output } from '../../../jobwire/admin/v1/LongPollInfo';

export interface ListLongPollsResponse {
  'longPolls'?: (_jobwire_admin_v1_LongPollInfo)[];
}

export interface ListLongPollsResponse__Output {
  'longPolls': (_jobwire_admin_v1_LongPollInfo__Output)[];
}
