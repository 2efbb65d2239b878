// Original file: proto/admin.proto


export interface ClearFaultsResponse {
}

export interface ClearFaultsResponse__Output {
}
