// Original file: proto/admin.proto

import type { PartitionInfo as _jobwire_admin_v1_PartitionInfo, PartitionInfo__Output as _jobwire_admin_v1_PartitionInfo__Output } from '../../../jobwire/admin/v1/PartitionInfo';

export interface GetPartitionsResponse {
  'partitions'?: (_jobwire_admin_v1_PartitionInfo)[];
}

export interface GetPartitionsResponse__Output {
  'partitions': (_jobwire_admin_v1_PartitionInfo__Output)[];
}
