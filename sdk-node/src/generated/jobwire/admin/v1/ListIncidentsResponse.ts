// Original file: proto/admin.proto

import type { IncidentInfo as _jobwire_admin_v1_IncidentInfo, IncidentInfo__Output as _jobwire_admin_v1_IncidentInfo__Output } from '../../../jobwire/admin/v1/IncidentInfo';

export interface ListIncidentsResponse {
  'incidents'?: (_jobwire_admin_v1_IncidentInfo)[];
}

export interface ListIncidentsResponse__Output {
  'incidents': (_jobwire_admin_v1_IncidentInfo__Output)[];
}
