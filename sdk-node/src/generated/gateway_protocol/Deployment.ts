// Original file: proto/gateway.proto

import type { ProcessMetadata as _gateway_protocol_ProcessMetadata, ProcessMetadata__Output as _gateway_protocol_ProcessMetadata__Output } from '../gateway_protocol/ProcessMetadata';
import type { DecisionMetadata as _gateway_protocol_DecisionMetadata, DecisionMetadata__Output as _gateway_protocol_DecisionMetadata__Output } from '../gateway_protocol/DecisionMetadata';
import type { DecisionRequirementsMetadata as _gateway_protocol_DecisionRequirementsMetadata, DecisionRequirementsMetadata__Output as _gateway_protocol_DecisionRequirementsMetadata__Output } from '../gateway_protocol/DecisionRequirementsMetadata';
import type { FormMetadata as _gateway_protocol_FormMetadata, FormMetadata__Output as _gateway_protocol_FormMetadata__Output } from '../gateway_protocol/FormMetadata';

export interface Deployment {
  'process'?: (_gateway_protocol_ProcessMetadata | null);
  'decision'?: (_gateway_protocol_DecisionMetadata | null);
  'decisionRequirements'?: (_gateway_protocol_DecisionRequirementsMetadata | null);
  'form'?: (_gateway_protocol_FormMetadata | null);
  'Metadata'?: "process"|"decision"|"decisionRequirements"|"form";
}

export interface Deployment__Output {
  'process'?: (_gateway_protocol_ProcessMetadata__Output | null);
  'decision'?: (_gateway_protocol_DecisionMetadata__Output | null);
  'decisionRequirements'?: (_gateway_protocol_DecisionRequirementsMetadata__Output | null);
  'form'?: (_gateway_protocol_FormMetadata__Output | null);
  'Metadata'?: "process"|"decision"|"decisionRequirements"|"form";
}
