// Original file: proto/admin.proto


export interface GetPartitionsRequest {
}

export interface GetPartitionsRequest__Output {
}
