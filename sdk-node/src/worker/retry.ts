import type { Logger } from '../config.js'
import { NonRetryableError } from '../errors.js'
import type { Job } from '../job.js'

/**
 * What a failed job (handler or middleware threw, input was invalid) turns into; made by
 * {@link RetryDecision.retry}, {@link RetryDecision.bpmnError} or {@link RetryDecision.incident}
 * and returned by a {@link RetryPolicy}.
 */
export class RetryDecision {
  /**
   * @param kind - `retry`: FailJob with retries − 1 after `backoffMs`; `bpmnError`: ThrowError;
   * `incident`: FailJob with retries 0 (the engine opens an incident).
   */
  private constructor(
    readonly kind: 'retry' | 'bpmnError' | 'incident',
    /** Back-off of a `retry`, ms. */
    readonly backoffMs: number,
    /** The BPMN error code of a `bpmnError`. */
    readonly code: string,
    /** The message of an `incident` or a `bpmnError`. */
    readonly message: string | undefined,
    /** The variables of a `bpmnError`. */
    readonly variables: Record<string, unknown> | undefined,
  ) {}

  /** Fail the job with retries − 1; it can be activated again after `backoffMs` (≥ 0) ms. The message is the error's. */
  static retry(backoffMs: number): RetryDecision {
    if (typeof backoffMs !== 'number' || !Number.isFinite(backoffMs) || backoffMs < 0) throw new RangeError(`jobwire: RetryDecision.retry needs a back-off ≥ 0 ms, got ${String(backoffMs)}`)
    return new RetryDecision('retry', Math.round(backoffMs), '', undefined, undefined)
  }

  /** Throw a BPMN error (ThrowError) with this code, message and variables instead of failing. */
  static bpmnError(code: string, message = '', variables?: Record<string, unknown>): RetryDecision {
    if (typeof code !== 'string' || code === '') throw new TypeError('jobwire: RetryDecision.bpmnError needs an error code')
    return new RetryDecision('bpmnError', 0, code, message, variables)
  }

  /** Fail the job with retries 0 and this message: the engine opens an incident now. */
  static incident(message: string): RetryDecision {
    return new RetryDecision('incident', 0, '', String(message), undefined)
  }
}

/**
 * Decides what a failure does: `(job, error) => RetryDecision`. Called for every error a handler
 * (or a middleware) throws, invalid input included; never for a `JobError` (that is a BPMN error
 * already). A policy that throws or returns no decision falls back to {@link defaultRetryPolicy}
 * (logged at warn).
 */
export type RetryPolicy = (job: Job, error: unknown) => RetryDecision

/** Settings of {@link exponentialBackoff}; absent fields take the defaults. */
export interface ExponentialBackoffOptions {
  /** Back-off of the first retry, ms. default: 1000 */
  initialMs?: number
  /** Longest back-off, ms. default: 60000 */
  maxMs?: number
  /** Growth per retry. default: 2 */
  multiplier?: number
  /** Jitter: the back-off is multiplied by 1 ± jitter (uniform). default: 0.1 */
  jitter?: number
  /** The retries a job starts with (the BPMN default 3): attempt = maxRetries − job.retries. default: 3 */
  maxRetries?: number
}

function nonNegative(name: string, v: number | undefined, def: number, min = 0): number {
  if (v === undefined) return def
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min) throw new RangeError(`jobwire: exponentialBackoff ${name} must be a number ≥ ${min}, got ${String(v)}`)
  return v
}

/** A NonRetryableError in the error or its `cause` chain. @internal */
export function findNonRetryable(err: unknown): NonRetryableError | undefined {
  const seen = new Set<unknown>()
  for (let e = err; e !== null && e !== undefined && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    if (e instanceof NonRetryableError) return e
    seen.add(e)
    if (typeof e !== 'object') break
  }
  return undefined
}

/**
 * An exponential back-off policy: attempt = max(0, maxRetries − job.retries),
 * back-off = min(maxMs, initialMs × multiplier^attempt) × (1 + jitter × u), u uniform in [−1, 1],
 * rounded to whole ms. A {@link NonRetryableError} (anywhere in the cause chain) → an incident
 * with its message. With the defaults a job with retries 3, 2, 1 is retried after ~1 s, ~2 s, ~4 s.
 * `random` (uniform in [0, 1), default `Math.random`) draws the jitter; tests pass a fixed one.
 *
 * @example
 * client.createWorker({ jobType: 'charge', retryPolicy: exponentialBackoff({ initialMs: 500, maxMs: 30_000 }), handler })
 */
export function exponentialBackoff(options: ExponentialBackoffOptions = {}, random: () => number = Math.random): RetryPolicy {
  const initialMs = nonNegative('initialMs', options.initialMs, 1_000)
  const maxMs = nonNegative('maxMs', options.maxMs, Math.max(60_000, initialMs))
  const multiplier = nonNegative('multiplier', options.multiplier, 2, 1)
  const jitter = nonNegative('jitter', options.jitter, 0.1)
  if (jitter > 1) throw new RangeError(`jobwire: exponentialBackoff jitter must be between 0 and 1, got ${jitter}`)
  const maxRetries = nonNegative('maxRetries', options.maxRetries, 3)
  return (job, error) => {
    const nr = findNonRetryable(error)
    if (nr) return RetryDecision.incident(nr.message)
    const attempt = Math.max(0, maxRetries - job.retries)
    const base = Math.min(maxMs, initialMs * Math.pow(multiplier, attempt))
    const u = 2 * random() - 1
    return RetryDecision.retry(Math.max(0, Math.round(base * (1 + jitter * u))))
  }
}

/** The default policy: {@link exponentialBackoff} with its defaults (1 s, ×2, max 60 s, ±10 %, maxRetries 3). */
export const defaultRetryPolicy: RetryPolicy = exponentialBackoff()

/** The policy of an explicit `retryBackOffMs`: always that back-off; NonRetryableError → incident. @internal */
export function fixedBackoff(backoffMs: number): RetryPolicy {
  return (_job, error) => {
    const nr = findNonRetryable(error)
    return nr ? RetryDecision.incident(nr.message) : RetryDecision.retry(backoffMs)
  }
}

/**
 * Runs a policy; one that throws or returns no RetryDecision gives the default policy's
 * decision instead (logged at warn). @internal
 */
export function decide(policy: RetryPolicy, job: Job, error: unknown, logger: Logger): RetryDecision {
  try {
    const d = policy(job, error)
    if (d instanceof RetryDecision) return d
    logger.warn(`job ${job.key}: the retry policy returned ${String(d)}, not a RetryDecision; using the default policy`)
  } catch (e) {
    logger.warn(`job ${job.key}: the retry policy threw (${String(e)}); using the default policy`)
  }
  return defaultRetryPolicy(job, error)
}
