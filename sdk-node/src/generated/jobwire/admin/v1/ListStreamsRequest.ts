// Original file: proto/admin.proto


export interface ListStreamsRequest {
}

export interface ListStreamsRequest__Output {
}
