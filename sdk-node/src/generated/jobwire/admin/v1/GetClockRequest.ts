// Original file: proto/admin.proto


export interface GetClockRequest {
}

export interface GetClockRequest__Output {
}
