import * as os from 'node:os'
import type { Job, Variables } from '../job.js'
import type { JobError } from '../errors.js'

/** What a handler may return: variables to complete with (auto-complete), nothing, or a JobError. */
export type HandlerResult = Record<string, unknown> | string | void | undefined | null | JobError

/**
 * A job handler. Return variables to complete the job; throw (or return) a
 * `JobError` for a BPMN error; throw anything else to fail the job with
 * retries − 1. `signal` aborts when the worker's close timeout runs out.
 */
export type JobHandler<V = Variables> = (job: Job<V>, ctx: { signal: AbortSignal }) => Promise<HandlerResult> | HandlerResult

/** Options of {@link Client.createWorker}. Defaults are shared by every jobwire SDK. */
export interface WorkerOptions<V = Variables> {
  /** Job type to work on. required */
  jobType: string
  /** The handler. required */
  handler: JobHandler<V>
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
  /** Variables to fetch. default: all */
  fetchVariables?: string[]
  /** Tenants to activate jobs for. default: none (the default tenant) */
  tenantIds?: string[]
  /** Complete the job with the handler's return value. default: true */
  autoComplete?: boolean
  /** Extend the job's timeout (UpdateJobTimeout) while the handler runs. default: false */
  autoExtend?: boolean
  /** `retryBackOff` sent with FailJob after a handler error, ms. default: 0 */
  retryBackOffMs?: number
}

/** The {@link WorkerOptions} of a worker after defaults ({@link Worker.options}): every field set. */
export interface ResolvedWorkerOptions<V = Variables> {
  /** Job type the worker works on. */
  jobType: string
  /** The handler. */
  handler: JobHandler<V>
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
  /** Variables to fetch; empty: all. */
  fetchVariables: string[]
  /** Tenants to activate jobs for; empty: the default tenant. */
  tenantIds: string[]
  /** Whether the job is completed with the handler's return value. */
  autoComplete: boolean
  /** Whether the job's timeout is extended while the handler runs. */
  autoExtend: boolean
  /** `retryBackOff` sent with FailJob after a handler error, ms. */
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
export function resolveWorkerOptions<V>(o: WorkerOptions<V>): ResolvedWorkerOptions<V> {
  if (!o || typeof o.jobType !== 'string' || o.jobType.trim() === '') throw new TypeError('jobwire: createWorker needs a jobType')
  if (typeof o.handler !== 'function') throw new TypeError('jobwire: createWorker needs a handler function')
  const maxJobsActive = Math.floor(positive('maxJobsActive', o.maxJobsActive, 32))
  return {
    jobType: o.jobType,
    handler: o.handler,
    workerName: o.workerName ?? os.hostname(),
    maxJobsActive,
    // More handlers than jobs held cannot run: concurrency is capped at maxJobsActive (as in every SDK).
    concurrency: Math.min(maxJobsActive, Math.floor(positive('concurrency', o.concurrency, maxJobsActive))),
    jobTimeoutMs: positive('jobTimeoutMs', o.jobTimeoutMs, 300_000),
    requestTimeoutMs: requestTimeout(o.requestTimeoutMs),
    pollIntervalMs: positive('pollIntervalMs', o.pollIntervalMs, 100, 0),
    streamEnabled: o.streamEnabled ?? true,
    streamTimeoutMs: positive('streamTimeoutMs', o.streamTimeoutMs, 3_600_000),
    fetchVariables: o.fetchVariables ?? [],
    tenantIds: o.tenantIds ?? [],
    autoComplete: o.autoComplete ?? true,
    autoExtend: o.autoExtend ?? false,
    retryBackOffMs: positive('retryBackOffMs', o.retryBackOffMs, 0, 0),
  }
}
