// Original file: proto/admin.proto


export interface InjectFaultResponse {
}

export interface InjectFaultResponse__Output {
}
