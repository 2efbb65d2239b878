// Original file: proto/gateway.proto

import type { StringList as _gateway_protocol_StringList, StringList__Output as _gateway_protocol_StringList__Output } from '../gateway_protocol/StringList';

export interface JobResultCorrections {
  'assignee'?: (string);
  'dueDate'?: (string);
  'followUpDate'?: (string);
  'candidateUsers'?: (_gateway_protocol_StringList | null);
  'candidateGroups'?: (_gateway_protocol_StringList | null);
  'priority'?: (number);
  '_assignee'?: "assignee";
  '_dueDate'?: "dueDate";
  '_followUpDate'?: "followUpDate";
  '_candidateUsers'?: "candidateUsers";
  '_candidateGroups'?: "candidateGroups";
  '_priority'?: "priority";
}

export interface JobResultCorrections__Output {
  'assignee'?: (string);
  'dueDate'?: (string);
  'followUpDate'?: (string);
  'candidateUsers'?: (_gateway_protocol_StringList__Output | null);
  'candidateGroups'?: (_gateway_protocol_StringList__Output | null);
  'priority'?: (number);
  '_assignee'?: "assignee";
  '_dueDate'?: "dueDate";
  '_followUpDate'?: "followUpDate";
  '_candidateUsers'?: "candidateUsers";
  '_candidateGroups'?: "candidateGroups";
  '_priority'?: "priority";
}
