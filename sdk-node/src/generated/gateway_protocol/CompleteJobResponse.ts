// Original file: proto/gateway.proto


export interface CompleteJobResponse {
}

export interface CompleteJobResponse__Output {
}
