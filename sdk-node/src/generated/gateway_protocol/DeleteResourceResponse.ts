// Original file: proto/gateway.proto


export interface DeleteResourceResponse {
}

export interface DeleteResourceResponse__Output {
}
