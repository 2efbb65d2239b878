// Original file: proto/admin.proto

import type { RejectFault as _jobwire_admin_v1_RejectFault, RejectFault__Output as _jobwire_admin_v1_RejectFault__Output } from '../../../jobwire/admin/v1/RejectFault';
import type { LatencyFault as _jobwire_admin_v1_LatencyFault, LatencyFault__Output as _jobwire_admin_v1_LatencyFault__Output } from '../../../jobwire/admin/v1/LatencyFault';
import type { StallStreamsFault as _jobwire_admin_v1_StallStreamsFault, StallStreamsFault__Output as _jobwire_admin_v1_StallStreamsFault__Output } from '../../../jobwire/admin/v1/StallStreamsFault';
import type { LongPollFault as _jobwire_admin_v1_LongPollFault, LongPollFault__Output as _jobwire_admin_v1_LongPollFault__Output } from '../../../jobwire/admin/v1/LongPollFault';
import type { GoAwayFault as _jobwire_admin_v1_GoAwayFault, GoAwayFault__Output as _jobwire_admin_v1_GoAwayFault__Output } from '../../../jobwire/admin/v1/GoAwayFault';
import type { ExpireTokensFault as _jobwire_admin_v1_ExpireTokensFault, ExpireTokensFault__Output as _jobwire_admin_v1_ExpireTokensFault__Output } from '../../../jobwire/admin/v1/ExpireTokensFault';

export interface InjectFaultRequest {
  'reject'?: (_jobwire_admin_v1_RejectFault | null);
  'latency'?: (_jobwire_admin_v1_LatencyFault | null);
  'stallStreams'?: (_jobwire_admin_v1_StallStreamsFault | null);
  'longPoll'?: (_jobwire_admin_v1_LongPollFault | null);
  'goAway'?: (_jobwire_admin_v1_GoAwayFault | null);
  'expireTokens'?: (_jobwire_admin_v1_ExpireTokensFault | null);
  'fault'?: "reject"|"latency"|"stallStreams"|"longPoll"|"goAway"|"expireTokens";
}

export interface InjectFaultRequest__Output {
  'reject'?: (_jobwire_admin_v1_RejectFault__Output | null);
  'latency'?: (_jobwire_admin_v1_LatencyFault__Output | null);
  'stallStreams'?: (_jobwire_admin_v1_StallStreamsFault__Output | null);
  'longPoll'?: (_jobwire_admin_v1_LongPollFault__Output | null);
  'goAway'?: (_jobwire_admin_v1_GoAwayFault__Output | null);
  'expireTokens'?: (_jobwire_admin_v1_ExpireTokensFault__Output | null);
  'fault'?: "reject"|"latency"|"stallStreams"|"longPoll"|"goAway"|"expireTokens";
}
