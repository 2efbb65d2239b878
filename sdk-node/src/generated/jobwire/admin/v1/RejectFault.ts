// Original file: proto/admin.proto


export interface RejectFault {
  'method'?: (string);
  'code'?: (number);
  'count'?: (number);
  'message'?: (string);
  'partitionId'?: (number);
  'afterApply'?: (boolean);
}

export interface RejectFault__Output {
  'method': (string);
  'code': (number);
  'count': (number);
  'message': (string);
  'partitionId': (number);
  'afterApply': (boolean);
}
