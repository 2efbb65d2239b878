// Original file: proto/gateway.proto


export interface ModifyProcessInstanceResponse {
}

export interface ModifyProcessInstanceResponse__Output {
}
