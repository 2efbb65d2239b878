/**
 * @jobwire/sdk: job workers for the Zeebe / Camunda 8 gateway protocol.
 *
 * @example
 * import { Client, defineWorker } from '@jobwire/sdk'
 * import { z } from 'zod' // or any Standard Schema library
 * const pay = defineWorker({ variables: z.object({ amount: z.number() }), handler: async (job) => ({ paid: job.variables.amount }) })
 * new Client().startWorkers({ pay })
 * @packageDocumentation
 */
export { Client } from './client.js'
export type { Key, VariablesInput, CreateProcessInstanceRequest } from './client.js'
export type {
  EvaluateDecisionRequest,
  DecisionEvaluation,
  EvaluatedDecision,
  MatchedRule,
  EvaluatedInput,
  EvaluatedOutput,
  ModifyProcessInstanceRequest,
  ActivateElement,
  ScopedVariables,
  MigrateProcessInstanceRequest,
  MappingInstruction,
  BroadcastSignalRequest,
} from './commands.js'
export type { Topology, Broker, Partition, Deployment, Process, ProcessInstance, ProcessInstanceResult } from './types.js'
export type { ClientOptions, OAuthOptions, Logger } from './config.js'
export type { CallOptions } from './transport.js'
export { Worker } from './worker/worker.js'
export type { WorkerEvents } from './worker/worker.js'
export type { WorkerOptions, ResolvedWorkerOptions, JobHandler, HandlerResult, Middleware, WorkerDefinition, StartWorkersOptions } from './worker/options.js'
export { defineWorker } from './worker/options.js'
export type { StandardSchemaV1 } from './worker/schema.js'
export { RetryDecision, exponentialBackoff, defaultRetryPolicy } from './worker/retry.js'
export type { RetryPolicy, ExponentialBackoffOptions } from './worker/retry.js'
export type { BackoffOptions } from './worker/backoff.js'
export type { WorkerState } from './worker/state.js'
export type { Job, Variables, FailOptions, ThrowErrorOptions } from './job.js'
export { parseLossless, stringifyLossless } from './json.js'
export type { JsonValue } from './json.js'
export {
  JobError,
  JobwireError,
  BackpressureError,
  UnavailableError,
  NotFoundError,
  InvalidArgumentError,
  FailedPreconditionError,
  AlreadyExistsError,
  DeadlineExceededError,
  RequestCancelledError,
  UnauthenticatedError,
  PermissionDeniedError,
  InternalError,
  UnimplementedError,
  InvalidInputError,
  NonRetryableError,
} from './errors.js'
