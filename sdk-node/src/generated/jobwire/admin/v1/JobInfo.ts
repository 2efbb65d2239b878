// Original file: proto/admin.proto

import type { JobState as _jobwire_admin_v1_JobState, JobState__Output as _jobwire_admin_v1_JobState__Output } from '../../../jobwire/admin/v1/JobState';
import type { Long } from '@grpc/proto-loader';

export interface JobInfo {
  'key'?: (number | string | Long);
  'type'?: (string);
  'state'?: (_jobwire_admin_v1_JobState);
  'retries'?: (number);
  'worker'?: (string);
  'deadline'?: (number | string | Long);
  'processInstanceKey'?: (number | string | Long);
  'activationCount'?: (number);
  'yieldCount'?: (number);
  'timeoutCount'?: (number);
  'completeCount'?: (number);
  'failCount'?: (number);
  'errorMessage'?: (string);
  'elementInstanceKey'?: (number | string | Long);
  'incidentKey'?: (number | string | Long);
  'retryAt'?: (number | string | Long);
  'errorCode'?: (string);
  'errorVariables'?: (string);
  'variables'?: (string);
  'fetchVariables'?: (string)[];
  'fetchVariablesAll'?: (boolean);
  'lastRetryBackoffMs'?: (number | string | Long);
}

export interface JobInfo__Output {
  'key': (string);
  'type': (string);
  'state': (_jobwire_admin_v1_JobState__Output);
  'retries': (number);
  'worker': (string);
  'deadline': (string);
  'processInstanceKey': (string);
  'activationCount': (number);
  'yieldCount': (number);
  'timeoutCount': (number);
  'completeCount': (number);
  'failCount': (number);
  'errorMessage': (string);
  'elementInstanceKey': (string);
  'incidentKey': (string);
  'retryAt': (string);
  'errorCode': (string);
  'errorVariables': (string);
  'variables': (string);
  'fetchVariables': (string)[];
  'fetchVariablesAll': (boolean);
  'lastRetryBackoffMs': (string);
}
