// Original file: proto/gateway.proto


export interface UpdateJobRetriesResponse {
}

export interface UpdateJobRetriesResponse__Output {
}
