// Original file: proto/admin.proto


export interface GatewayProcess {
  'index'?: (number);
  'address'?: (string);
  'running'?: (boolean);
  'pid'?: (number);
}

export interface GatewayProcess__Output {
  'index': (number);
  'address': (string);
  'running': (boolean);
  'pid': (number);
}
