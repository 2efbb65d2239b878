// Original file: proto/gateway.proto


export interface JobResultActivateElement {
  'elementId'?: (string);
  'variables'?: (string);
}

export interface JobResultActivateElement__Output {
  'elementId': (string);
  'variables': (string);
}
