// Original file: proto/gateway.proto


export interface ThrowErrorResponse {
}

export interface ThrowErrorResponse__Output {
}
