// Original file: proto/gateway.proto

import type { BrokerInfo as _gateway_protocol_BrokerInfo, BrokerInfo__Output as _gateway_protocol_BrokerInfo__Output } from '../gateway_protocol/BrokerInfo';

export interface TopologyResponse {
  'brokers'?: (_gateway_protocol_BrokerInfo)[];
  'clusterSize'?: (number);
  'partitionsCount'?: (number);
  'replicationFactor'?: (number);
  'gatewayVersion'?: (string);
}

export interface TopologyResponse__Output {
  'brokers': (_gateway_protocol_BrokerInfo__Output)[];
  'clusterSize': (number);
  'partitionsCount': (number);
  'replicationFactor': (number);
  'gatewayVersion': (string);
}
