// Original file: proto/gateway.proto

import type { Long } from '@grpc/proto-loader';

export interface UserTaskProperties {
  'action'?: (string);
  'assignee'?: (string);
  'candidateGroups'?: (string)[];
  'candidateUsers'?: (string)[];
  'changedAttributes'?: (string)[];
  'dueDate'?: (string);
  'followUpDate'?: (string);
  'formKey'?: (number | string | Long);
  'priority'?: (number);
  'userTaskKey'?: (number | string | Long);
  '_action'?: "action";
  '_assignee'?: "assignee";
  '_dueDate'?: "dueDate";
  '_followUpDate'?: "followUpDate";
  '_formKey'?: "formKey";
  '_priority'?: "priority";
  '_userTaskKey'?: "userTaskKey";
}

export interface UserTaskProperties__Output {
  'action'?: (string);
  'assignee'?: (string);
  'candidateGroups': (string)[];
  'candidateUsers': (string)[];
  'changedAttributes': (string)[];
  'dueDate'?: (string);
  'followUpDate'?: (string);
  'formKey'?: (string);
  'priority'?: (number);
  'userTaskKey'?: (string);
  '_action'?: "action";
  '_assignee'?: "assignee";
  '_dueDate'?: "dueDate";
  '_followUpDate'?: "followUpDate";
  '_formKey'?: "formKey";
  '_priority'?: "priority";
  '_userTaskKey'?: "userTaskKey";
}
