// Original file: proto/admin.proto


export interface GetRequestCountsRequest {
  'method'?: (string);
}

export interface GetRequestCountsRequest__Output {
  'method': (string);
}
