// Original file: proto/admin.proto

import type { StreamInfo as _jobwire_admin_v1_StreamInfo, StreamInfo__Output as _jobwire_admin_v1_StreamInfo__Output } from '../../../jobwire/admin/v1/StreamInfo';

export interface ListStreamsResponse {
  'streams'?: (_jobwire_admin_v1_StreamInfo)[];
}

export interface ListStreamsResponse__Output {
  'streams': (_jobwire_admin_v1_StreamInfo__Output)[];
}
