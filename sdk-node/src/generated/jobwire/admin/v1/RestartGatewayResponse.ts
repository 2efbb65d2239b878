// Original file: proto/admin.proto


export interface RestartGatewayResponse {
}

export interface RestartGatewayResponse__Output {
}
