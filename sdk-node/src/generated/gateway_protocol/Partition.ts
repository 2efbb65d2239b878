// Original file: proto/gateway.proto


// Original file: proto/gateway.proto

export const _gateway_protocol_Partition_PartitionBrokerHealth = {
  HEALTHY: 'HEALTHY',
  UNHEALTHY: 'UNHEALTHY',
  DEAD: 'DEAD',
} as const;

export type _gateway_protocol_Partition_PartitionBrokerHealth =
  | 'HEALTHY'
  | 0
  | 'UNHEALTHY'
  | 1
  | 'DEAD'
  | 2

export type _gateway_protocol_Partition_PartitionBrokerHealth__Output = typeof _gateway_protocol_Partition_PartitionBrokerHealth[keyof typeof _gateway_protocol_Partition_PartitionBrokerHealth]

// Original file: proto/gateway.proto

export const _gateway_protocol_Partition_PartitionBrokerRole = {
  LEADER: 'LEADER',
  FOLLOWER: 'FOLLOWER',
  INACTIVE: 'INACTIVE',
} as const;

export type _gateway_protocol_Partition_PartitionBrokerRole =
  | 'LEADER'
  | 0
  | 'FOLLOWER'
  | 1
  | 'INACTIVE'
  | 2

export type _gateway_protocol_Partition_PartitionBrokerRole__Output = typeof _gateway_protocol_Partition_PartitionBrokerRole[keyof typeof _gateway_protocol_Partition_PartitionBrokerRole]

export interface Partition {
  'partitionId'?: (number);
  'role'?: (_gateway_protocol_Partition_PartitionBrokerRole);
  'health'?: (_gateway_protocol_Partition_PartitionBrokerHealth);
}

export interface Partition__Output {
  'partitionId': (number);
  'role': (_gateway_protocol_Partition_PartitionBrokerRole__Output);
  'health': (_gateway_protocol_Partition_PartitionBrokerHealth__Output);
}
