// Original file: proto/admin.proto


export interface GetClusterRequest {
}

export interface GetClusterRequest__Output {
}
