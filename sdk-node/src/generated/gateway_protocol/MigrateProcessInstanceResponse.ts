// Original file: proto/gateway.proto


export interface MigrateProcessInstanceResponse {
}

export interface MigrateProcessInstanceResponse__Output {
}
