// Original file: proto/admin.proto


export interface BrokerProcess {
  'nodeId'?: (number);
  'address'?: (string);
  'running'?: (boolean);
  'pid'?: (number);
  'partitionIds'?: (number)[];
  'dataDir'?: (string);
}

export interface BrokerProcess__Output {
  'nodeId': (number);
  'address': (string);
  'running': (boolean);
  'pid': (number);
  'partitionIds': (number)[];
  'dataDir': (string);
}
