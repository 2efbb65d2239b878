// Original file: proto/admin.proto


export interface ResetStateResponse {
  'partitionsReset'?: (number);
}

export interface ResetStateResponse__Output {
  'partitionsReset': (number);
}
