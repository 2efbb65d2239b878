// Original file: proto/admin.proto


export interface StartBrokerResponse {
}

export interface StartBrokerResponse__Output {
}
