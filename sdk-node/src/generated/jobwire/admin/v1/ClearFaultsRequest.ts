// Original file: proto/admin.proto


export interface ClearFaultsRequest {
}

export interface ClearFaultsRequest__Output {
}
