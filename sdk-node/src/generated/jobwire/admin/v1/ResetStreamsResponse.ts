// Original file: proto/admin.proto


export interface ResetStreamsResponse {
  'streamsClosed'?: (number);
  'longPollsClosed'?: (number);
}

export interface ResetStreamsResponse__Output {
  'streamsClosed': (number);
  'longPollsClosed': (number);
}
