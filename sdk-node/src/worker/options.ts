import * as os from 'node:os'
import type { Job, Variables } from '../job.js'
import type { JobError } from '../errors.js'
import { defaultRetryPolicy, fixedBackoff, type RetryPolicy } from './retry.js'
import { deriveFetchVariables, isStandardSchema, withTraceparent, type StandardSchemaV1 } from './schema.js'

/** What a handler may return: variables to complete with (auto-complete), nothing, or a JobError. */
export type HandlerResult = Record<string, unknown> | string | void | undefined | null | JobError

/**
 * A job handler. Return variables to complete the job; throw (or return) a
 * `JobError` for a BPMN error; throw anything else to fail the job (the worker's
 * {@link RetryPolicy} decides: by default retries − 1 after an exponential back-off).
 * `signal` aborts when the worker's close timeout runs out.
 */
export type JobHandler<V = Variables, H = Record<string, string>> = (job: Job<V, H>, ctx: { signal: AbortSignal }) => Promise<HandlerResult> | HandlerResult

/**
 * Code around every handler of a worker: gets the raw job (variables not validated yet) and
 * `next`, which runs the rest of the chain (the next middleware, then input validation and the
 * handler). What it returns (or throws) is the job's outcome, mapped as a handler's: return
 * `next()`'s value to keep the handler's. Runs inside the job's span and after the job took its
 * slot (`ctx.signal` is the handler's: it aborts when the close timeout runs out); it cannot
 * release the slot or send a second outcome. Order: the group's middleware
 * ({@link StartWorkersOptions.middleware}) first (outermost), then the worker's, each in the order given.
 *
 * @example
 * const timing: Middleware = async (job, next) => {
 *   const t0 = Date.now()
 *   try { return await next() } finally { console.log(job.type, job.key, Date.now() - t0, 'ms') }
 * }
 */
export type Middleware = (job: Job, next: () => Promise<HandlerResult>, ctx: { signal: AbortSignal }) => Promise<HandlerResult> | HandlerResult

/** Options of {@link Client.createWorker}. Defaults are shared by every jobwire SDK. */
export interface WorkerOptions<V = Variables, H = Record<string, string>> {
  /** Job type to work on. required */
  jobType: string
  /** The handler. required */
  handler: JobHandler<V, H>
  /**
   * A Standard Schema ({@link StandardSchemaV1}: zod ≥ 3.24, valibot, arktype, ...) for the job's
   * variables: the handler's `job.variables` is then the schema's validated output, typed. Input
   * the schema rejects never reaches the handler: the job fails with an {@link InvalidInputError}
   * (through the retry policy). Unless `fetchVariables` is set, only the schema's top-level keys
   * are fetched (read from its Standard JSON Schema, a zod `.shape` or a valibot `.entries`; none
   * of these: all variables). default: none (no validation; TypeScript types alone are not checked at run time)
   */
  variables?: StandardSchemaV1<unknown, V>
  /** A Standard Schema for the job's custom headers: `job.customHeaders` is its validated output. default: none */
  customHeaders?: StandardSchemaV1<unknown, H>
  /**
   * What a failure does ({@link RetryPolicy}). Wins over `retryBackOffMs`.
   * default: {@link defaultRetryPolicy} (exponential: ~1 s, ~2 s, ~4 s; NonRetryableError → incident)
   */
  retryPolicy?: RetryPolicy
  /** Middleware around the handler, outer first. default: none */
  middleware?: Middleware[]
  /** Sent as `worker` on activation. default: the host name */
  workerName?: string
  /** Capacity: jobs held at once, pushed and polled together. default: 32 */
  maxJobsActive?: number
  /** Handlers running in parallel. default: maxJobsActive */
  concurrency?: number
  /** Activation timeout sent to the engine, ms. default: 300000 (5 min) */
  jobTimeoutMs?: number
  /**
   * Long-poll time, ms; 0 = the gateway's default (10 s in Zeebe), < 0 turns long polling off.
   * The RPC deadline is this + 10 s (20 s for 0, 10 s for < 0). default: 10000
   */
  requestTimeoutMs?: number
  /** Pause after an empty poll that was not parked for half its long-poll time, ms. default: 100 */
  pollIntervalMs?: number
  /** Receive jobs by push (StreamActivatedJobs) in addition to polling. default: true */
  streamEnabled?: boolean
  /** Recycle a healthy stream after this long, ms. default: 3600000 (1 h) */
  streamTimeoutMs?: number
  /**
   * Variables to fetch; an empty list fetches all. default: derived from the `variables` schema
   * (its keys and `traceparent`, the job span's parent), else all
   */
  fetchVariables?: string[]
  /** Tenants to activate jobs for. default: none (the default tenant) */
  tenantIds?: string[]
  /** Complete the job with the handler's return value. default: true */
  autoComplete?: boolean
  /** Extend the job's timeout (UpdateJobTimeout) while the handler runs. default: false */
  autoExtend?: boolean
  /**
   * A fixed back-off after a handler error, ms: when set (and no `retryPolicy`), every failure is
   * retried after this long (a NonRetryableError still opens an incident). Also the default
   * back-off of a manual `job.fail()`. default: unset (the default retry policy; 0 for `job.fail()`)
   */
  retryBackOffMs?: number
}

/**
 * A worker registered without a client: {@link WorkerOptions} without `jobType` (the key of the
 * object given to {@link Client.startWorkers} is the job type).
 */
export type WorkerDefinition<V = Variables, H = Record<string, string>> = Omit<WorkerOptions<V, H>, 'jobType'>

/**
 * Returns `def` unchanged: lets TypeScript infer the handler's `job.variables` (and
 * `job.customHeaders`) from the schemas of a definition written outside a `startWorkers` call.
 *
 * @example
 * const Order = z.object({ orderId: z.string(), amount: z.number() })
 * export const charge = defineWorker({ variables: Order, handler: async (job) => ({ total: job.variables.amount * 2 }) })
 * client.startWorkers({ charge })
 */
export function defineWorker<V = Variables, H = Record<string, string>>(def: WorkerDefinition<V, H>): WorkerDefinition<V, H> {
  return def
}

/** The {@link WorkerOptions} of a worker after defaults ({@link Worker.options}): every field set. */
export interface ResolvedWorkerOptions<V = Variables, H = Record<string, string>> {
  /** Job type the worker works on. */
  jobType: string
  /** The handler. */
  handler: JobHandler<V, H>
  /** The variables schema, if any. */
  variables: StandardSchemaV1<unknown, V> | undefined
  /** The custom headers schema, if any. */
  customHeaders: StandardSchemaV1<unknown, H> | undefined
  /** The retry policy in force: `retryPolicy`, else a fixed `retryBackOffMs`, else the default policy. */
  retryPolicy: RetryPolicy
  /** Middleware around the handler, outer first. */
  middleware: Middleware[]
  /** Sent as `worker` on activation. */
  workerName: string
  /** Capacity: jobs held at once, pushed and polled together. */
  maxJobsActive: number
  /** Handlers running in parallel. */
  concurrency: number
  /** Activation timeout sent to the engine, ms. */
  jobTimeoutMs: number
  /** Long-poll time, ms; 0 = the gateway's default, < 0 = long polling off. */
  requestTimeoutMs: number
  /** Pause after an empty poll that was not parked for half its long-poll time, ms. */
  pollIntervalMs: number
  /** Whether jobs are also received by push (StreamActivatedJobs). */
  streamEnabled: boolean
  /** A healthy stream is recycled after this long, ms. */
  streamTimeoutMs: number
  /** Variables to fetch (given, or derived from the schema); empty: all. */
  fetchVariables: string[]
  /** Tenants to activate jobs for; empty: the default tenant. */
  tenantIds: string[]
  /** Whether the job is completed with the handler's return value. */
  autoComplete: boolean
  /** Whether the job's timeout is extended while the handler runs. */
  autoExtend: boolean
  /** Default `retryBackOff` of a manual `job.fail()`, ms (0 unless set). */
  retryBackOffMs: number
}

function positive(name: string, v: number | undefined, def: number, min = 1): number {
  if (v === undefined) return def
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min) throw new RangeError(`jobwire: ${name} must be a number ≥ ${min}, got ${String(v)}`)
  return v
}

/** Long-poll time: an integer number of ms; 0 = the gateway's default, negative = long polling off. */
function requestTimeout(v: number | undefined): number {
  if (v === undefined) return 10_000
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new RangeError(`jobwire: requestTimeoutMs must be an integer number of ms (0 = gateway default, < 0 = no long polling), got ${String(v)}`)
  return v
}

/** Applies the defaults and validates; throws a RangeError/TypeError on bad options. @internal */
export function resolveWorkerOptions<V, H>(o: WorkerOptions<V, H>): ResolvedWorkerOptions<V, H> {
  if (!o || typeof o.jobType !== 'string' || o.jobType.trim() === '') throw new TypeError('jobwire: createWorker needs a jobType')
  if (typeof o.handler !== 'function') throw new TypeError('jobwire: createWorker needs a handler function')
  if (o.variables !== undefined && !isStandardSchema(o.variables)) throw new TypeError('jobwire: variables must be a Standard Schema (an object with ~standard.validate, e.g. a zod, valibot or arktype schema)')
  if (o.customHeaders !== undefined && !isStandardSchema(o.customHeaders)) throw new TypeError('jobwire: customHeaders must be a Standard Schema (an object with ~standard.validate)')
  if (o.retryPolicy !== undefined && typeof o.retryPolicy !== 'function') throw new TypeError('jobwire: retryPolicy must be a function (job, error) => RetryDecision')
  const middleware = o.middleware ?? []
  if (!Array.isArray(middleware) || middleware.some((m) => typeof m !== 'function')) throw new TypeError('jobwire: middleware must be an array of functions (job, next) => result')
  const maxJobsActive = Math.floor(positive('maxJobsActive', o.maxJobsActive, 32))
  const retryBackOffMs = positive('retryBackOffMs', o.retryBackOffMs, 0, 0)
  return {
    jobType: o.jobType,
    handler: o.handler,
    variables: o.variables,
    customHeaders: o.customHeaders,
    // precedence: retryPolicy > an explicit retryBackOffMs > the default policy
    retryPolicy: o.retryPolicy ?? (o.retryBackOffMs !== undefined ? fixedBackoff(retryBackOffMs) : defaultRetryPolicy),
    middleware: [...middleware],
    workerName: o.workerName ?? os.hostname(),
    maxJobsActive,
    // More handlers than jobs held cannot run: concurrency is capped at maxJobsActive (as in every SDK).
    concurrency: Math.min(maxJobsActive, Math.floor(positive('concurrency', o.concurrency, maxJobsActive))),
    jobTimeoutMs: positive('jobTimeoutMs', o.jobTimeoutMs, 300_000),
    requestTimeoutMs: requestTimeout(o.requestTimeoutMs),
    pollIntervalMs: positive('pollIntervalMs', o.pollIntervalMs, 100, 0),
    streamEnabled: o.streamEnabled ?? true,
    streamTimeoutMs: positive('streamTimeoutMs', o.streamTimeoutMs, 3_600_000),
    // explicit wins (an explicit [] = all); else the schema's top-level keys and traceparent; else all
    fetchVariables: o.fetchVariables ?? withTraceparent(o.variables !== undefined ? deriveFetchVariables(o.variables) : undefined) ?? [],
    tenantIds: o.tenantIds ?? [],
    autoComplete: o.autoComplete ?? true,
    autoExtend: o.autoExtend ?? false,
    retryBackOffMs,
  }
}

/** Options of {@link Client.startWorkers}: what every worker of the group shares. */
export interface StartWorkersOptions {
  /** Middleware around every handler of the group, outside each worker's own middleware, in this order. default: none */
  middleware?: Middleware[]
  /** Worker options applied to every worker of the group; a definition's own fields win. default: none */
  defaults?: Omit<WorkerDefinition, 'handler' | 'variables' | 'customHeaders'>
}

/**
 * The options of one worker of a group: the group's defaults, then the definition (a handler
 * function or a WorkerDefinition), with the group's middleware outside the worker's. @internal
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function groupWorkerOptions(jobType: string, def: JobHandler | WorkerDefinition<any, any>, group: StartWorkersOptions): WorkerOptions<Variables, Record<string, string>> {
  const d = (typeof def === 'function' ? { handler: def } : def) as WorkerDefinition
  if (!d || typeof d !== 'object') throw new TypeError(`jobwire: startWorkers: the definition of ${jobType} must be a handler function or a WorkerDefinition`)
  const defaults = group.defaults ?? {}
  for (const [name, mw] of [['middleware', group.middleware], ['defaults.middleware', defaults.middleware], [`${jobType}.middleware`, d.middleware]] as const) {
    if (mw !== undefined && !Array.isArray(mw)) throw new TypeError(`jobwire: startWorkers: ${name} must be an array of middleware functions`)
  }
  return {
    ...defaults,
    ...d,
    jobType,
    middleware: [...(group.middleware ?? []), ...(defaults.middleware ?? []), ...(d.middleware ?? [])],
  }
}
