// Original file: proto/gateway.proto


export interface FailJobResponse {
}

export interface FailJobResponse__Output {
}
