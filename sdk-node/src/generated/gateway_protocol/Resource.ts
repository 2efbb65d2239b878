// Original file: proto/gateway.proto


export interface Resource {
  'name'?: (string);
  'content'?: (Buffer | Uint8Array | string);
}

export interface Resource__Output {
  'name': (string);
  'content': (Buffer);
}
