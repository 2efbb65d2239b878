// Original file: proto/admin.proto


export interface ResetStateRequest {
}

export interface ResetStateRequest__Output {
}
