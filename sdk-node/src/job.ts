import type { JsonValue } from './json.js'

/** Variables of a job after lossless parsing (int64 beyond 2^53 arrive as bigint). */
export type Variables = { [key: string]: JsonValue }

/** Options of a manual {@link Job.fail}. */
export interface FailOptions {
  /** Error message recorded on the job (and the incident when retries reach 0). */
  message?: string
  /** Retries left after this failure. default: job.retries − 1 */
  retries?: number
  /** Delay before the job can be activated again, in ms. default: the worker's retryBackOffMs, else 0 */
  retryBackOffMs?: number
  /** Local variables set on the task. */
  variables?: Record<string, unknown>
}

/** Options of a manual {@link Job.throwError}. */
export interface ThrowErrorOptions {
  /** BPMN error code matched against error events. */
  code: string
  /** Error message. */
  message?: string
  /** Variables set on the catching scope. */
  variables?: Record<string, unknown>
}

/**
 * An activated job handed to a worker's handler.
 *
 * Outcome methods (`complete`, `fail`, `throwError`) resolve only once the
 * engine acknowledged the outcome; otherwise they reject with the typed error
 * (`NotFoundError` when the job timed out, was cancelled or completed elsewhere;
 * the last error when sending was given up, e.g. at the job's deadline), so you
 * can tell per job whether its outcome landed. A job has one outcome: a second
 * call rejects with a `JobwireError` and sends nothing. With `autoComplete: false`
 * the job keeps its slot after the handler returns, until an outcome is settled
 * or its deadline passes.
 *
 * @example
 * client.createWorker({ jobType: 'charge', autoComplete: false, handler: async (job) => {
 *   if (job.variables.amount === undefined) return job.fail({ message: 'no amount', retries: 0 })
 *   await job.complete({ charged: true })
 * } })
 */
export interface Job<V = Variables, H = Record<string, string>> {
  /** Job key, an int64 as a decimal string. */
  readonly key: string
  /** Job type. */
  readonly type: string
  /** Retries left. */
  readonly retries: number
  /** When the activation lapses, epoch ms (moves when the timeout is extended). */
  readonly deadline: number
  /** Process instance key (decimal string). */
  readonly processInstanceKey: string
  /** BPMN process id of the process. */
  readonly bpmnProcessId: string
  /** Version of the process definition. */
  readonly processDefinitionVersion: number
  /** Process definition key (decimal string). */
  readonly processDefinitionKey: string
  /** Id of the BPMN element (task) that created the job. */
  readonly elementId: string
  /** Element instance key (decimal string). */
  readonly elementInstanceKey: string
  /** Task headers (zeebe:taskHeaders); the schema's output when the worker has a `customHeaders` schema. */
  readonly customHeaders: H
  /** Name of the worker the job was activated for. */
  readonly worker: string
  /** Tenant of the job. */
  readonly tenantId: string
  /** Variables, parsed losslessly; the schema's validated output when the worker has a `variables` schema. */
  readonly variables: V
  /** Variables exactly as received (raw JSON text). */
  readonly variablesJson: string
  /** How the job arrived: pushed by the stream or collected by a poll. */
  readonly activation: 'push' | 'poll'
  /** Completes the job, merging `variables` (an object or a JSON object string) into its scope. Rejects unless acknowledged. */
  complete(variables?: Record<string, unknown> | string): Promise<void>
  /** Fails the job (default retries − 1). */
  fail(options?: FailOptions | string): Promise<void>
  /** Throws a BPMN error from the job. */
  throwError(options: ThrowErrorOptions): Promise<void>
  /** Sets a new activation timeout of `timeoutMs`, counted from now (UpdateJobTimeout). */
  extendTimeout(timeoutMs: number): Promise<void>
}
