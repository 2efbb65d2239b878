// Original file: proto/gateway.proto


export interface TopologyRequest {
}

export interface TopologyRequest__Output {
}
