// Original file: proto/gateway.proto

import type { JobResultCorrections as _gateway_protocol_JobResultCorrections, JobResultCorrections__Output as _gateway_protocol_JobResultCorrections__Output } from '../gateway_protocol/JobResultCorrections';
import type { JobResultActivateElement as _gateway_protocol_JobResultActivateElement, JobResultActivateElement__Output as _gateway_protocol_JobResultActivateElement__Output } from '../gateway_protocol/JobResultActivateElement';

export interface JobResult {
  'denied'?: (boolean);
  'corrections'?: (_gateway_protocol_JobResultCorrections | null);
  'deniedReason'?: (string);
  'type'?: (string);
  'activateElements'?: (_gateway_protocol_JobResultActivateElement)[];
  'isCompletionConditionFulfilled'?: (boolean);
  'isCancelRemainingInstances'?: (boolean);
  '_denied'?: "denied";
  '_corrections'?: "corrections";
  '_deniedReason'?: "deniedReason";
  '_type'?: "type";
  '_isCompletionConditionFulfilled'?: "isCompletionConditionFulfilled";
  '_isCancelRemainingInstances'?: "isCancelRemainingInstances";
}

export interface JobResult__Output {
  'denied'?: (boolean);
  'corrections'?: (_gateway_protocol_JobResultCorrections__Output | null);
  'deniedReason'?: (string);
  'type'?: (string);
  'activateElements': (_gateway_protocol_JobResultActivateElement__Output)[];
  'isCompletionConditionFulfilled'?: (boolean);
  'isCancelRemainingInstances'?: (boolean);
  '_denied'?: "denied";
  '_corrections'?: "corrections";
  '_deniedReason'?: "deniedReason";
  '_type'?: "type";
  '_isCompletionConditionFulfilled'?: "isCompletionConditionFulfilled";
  '_isCancelRemainingInstances'?: "isCancelRemainingInstances";
}
