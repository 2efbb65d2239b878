// Original file: proto/admin.proto


export interface ResetStreamsRequest {
  'code'?: (number);
  'includeLongPolls'?: (boolean);
}

export interface ResetStreamsRequest__Output {
  'code': (number);
  'includeLongPolls': (boolean);
}
