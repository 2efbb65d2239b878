// Original file: proto/admin.proto


export interface ListLongPollsRequest {
}

export interface ListLongPollsRequest__Output {
}
