// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface _gateway_protocol_MigrateProcessInstanceRequest_MappingInstruction {
  'sourceElementId'?: (string);
  'targetElementId'?: (string);
}

export interface _gateway_protocol_MigrateProcessInstanceRequest_MappingInstruction__Output {
  'sourceElementId': (string);
  'targetElementId': (string);
}

export interface _gateway_protocol_MigrateProcessInstanceRequest_MigrationPlan {
  'targetProcessDefinitionKey'?: (number | string | Long);
  'mappingInstructions'?: (_gateway_protocol_MigrateProcessInstanceRequest_MappingInstruction)[];
}

export interface _gateway_protocol_MigrateProcessInstanceRequest_MigrationPlan__Output {
  'targetProcessDefinitionKey': (string);
  'mappingInstructions': (_gateway_protocol_MigrateProcessInstanceRequest_MappingInstruction__Output)[];
}

export interface MigrateProcessInstanceRequest {
  'processInstanceKey'?: (number | string | Long);
  'migrationPlan'?: (_gateway_protocol_MigrateProcessInstanceRequest_MigrationPlan | null);
  'operationReference'?: (number | string | Long);
  '_operationReference'?: "operationReference";
}

export interface MigrateProcessInstanceRequest__Output {
  'processInstanceKey': (string);
  'migrationPlan': (_gateway_protocol_MigrateProcessInstanceRequest_MigrationPlan__Output | null);
  'operationReference'?: (string);
  '_operationReference'?: "operationReference";
}
