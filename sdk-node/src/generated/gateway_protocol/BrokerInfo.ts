// Original file: proto/gateway.proto

import type { Partition as _gateway_protocol_Partition, Partition__Output as _gateway_protocol_Partition__Output } from '../gateway_protocol/Partition';

export interface BrokerInfo {
  'nodeId'?: (number);
  'host'?: (string);
  'port'?: (number);
  'partitions'?: (_gateway_protocol_Partition)[];
  'version'?: (string);
}

export interface BrokerInfo__Output {
  'nodeId': (number);
  'host': (string);
  'port': (number);
  'partitions': (_gateway_protocol_Partition__Output)[];
  'version': (string);
}
