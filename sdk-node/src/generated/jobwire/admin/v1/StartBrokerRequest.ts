// Original file: proto/admin.proto


export interface StartBrokerRequest {
  'nodeId'?: (number);
}

export interface StartBrokerRequest__Output {
  'nodeId': (number);
}
