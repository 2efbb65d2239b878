// Original file: proto/admin.proto


export interface RestartGatewayRequest {
  'index'?: (number);
  'graceful'?: (boolean);
}

export interface RestartGatewayRequest__Output {
  'index': (number);
  'graceful': (boolean);
}
