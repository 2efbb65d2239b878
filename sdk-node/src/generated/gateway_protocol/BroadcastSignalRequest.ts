// Original file: proto/gateway.proto


export interface BroadcastSignalRequest {
  'signalName'?: (string);
  'variables'?: (string);
  'tenantId'?: (string);
}

export interface BroadcastSignalRequest__Output {
  'signalName': (string);
  'variables': (string);
  'tenantId': (string);
}
