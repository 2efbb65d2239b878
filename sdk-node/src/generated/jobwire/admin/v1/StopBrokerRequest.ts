// Original file: proto/admin.proto


export interface StopBrokerRequest {
  'nodeId'?: (number);
  'graceful'?: (boolean);
}

export interface StopBrokerRequest__Output {
  'nodeId': (number);
  'graceful': (boolean);
}
