// Original file: proto/admin.proto


export interface StopBrokerResponse {
}

export interface StopBrokerResponse__Output {
}
