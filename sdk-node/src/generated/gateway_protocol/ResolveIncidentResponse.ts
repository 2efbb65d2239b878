// Original file: proto/gateway.proto


export interface ResolveIncidentResponse {
}

export interface ResolveIncidentResponse__Output {
}
