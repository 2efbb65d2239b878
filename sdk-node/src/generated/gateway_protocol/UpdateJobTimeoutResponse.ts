// Original file: proto/gateway.proto


export interface UpdateJobTimeoutResponse {
}

export interface UpdateJobTimeoutResponse__Output {
}
