// Original file: proto/admin.proto


export interface ListProcessInstancesRequest {
  'bpmnProcessId'?: (string);
  'includeInstances'?: (boolean);
  'includeElements'?: (boolean);
}

export interface ListProcessInstancesRequest__Output {
  'bpmnProcessId': (string);
  'includeInstances': (boolean);
  'includeElements': (boolean);
}
