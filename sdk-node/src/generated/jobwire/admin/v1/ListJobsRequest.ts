// Original file: proto/admin.proto


export interface ListJobsRequest {
  'type'?: (string);
  'includeJobs'?: (boolean);
  'includeVariables'?: (boolean);
}

export interface ListJobsRequest__Output {
  'type': (string);
  'includeJobs': (boolean);
  'includeVariables': (boolean);
}
