// Original file: proto/admin.proto

import type { Long } from '@grpc/proto-loader';

export interface PartitionInfo {
  'partitionId'?: (number);
  'logPosition'?: (number | string | Long);
  'committedBatches'?: (number | string | Long);
  'fsyncs'?: (number | string | Long);
  'activeProcessInstances'?: (number | string | Long);
  'jobsActivatable'?: (number | string | Long);
  'jobsActivated'?: (number | string | Long);
  'healthy'?: (boolean);
}

export interface PartitionInfo__Output {
  'partitionId': (number);
  'logPosition': (string);
  'committedBatches': (string);
  'fsyncs': (string);
  'activeProcessInstances': (string);
  'jobsActivatable': (string);
  'jobsActivated': (string);
  'healthy': (boolean);
}
