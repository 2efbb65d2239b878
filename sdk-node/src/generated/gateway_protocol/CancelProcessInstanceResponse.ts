// Original file: proto/gateway.proto


export interface CancelProcessInstanceResponse {
}

export interface CancelProcessInstanceResponse__Output {
}
