// Original file: proto/admin.proto

import type { GatewayProcess as _jobwire_admin_v1_GatewayProcess, GatewayProcess__Output as _jobwire_admin_v1_GatewayProcess__Output } from '../../../jobwire/admin/v1/GatewayProcess';
import type { BrokerProcess as _jobwire_admin_v1_BrokerProcess, BrokerProcess__Output as _jobwire_admin_v1_BrokerProcess__Output } from '../../../jobwire/admin/v1/BrokerProcess';

export interface GetClusterResponse {
  'gateways'?: (_jobwire_admin_v1_GatewayProcess)[];
  'brokers'?: (_jobwire_admin_v1_BrokerProcess)[];
  'partitionCount'?: (number);
}

export interface GetClusterResponse__Output {
  'gateways': (_jobwire_admin_v1_GatewayProcess__Output)[];
  'brokers': (_jobwire_admin_v1_BrokerProcess__Output)[];
  'partitionCount': (number);
}
