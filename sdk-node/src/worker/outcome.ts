import { JobwireError, toJobwireError } from '../errors.js'
import { Backoff, sleep } from './backoff.js'
import { outcomeDecision } from './codes.js'
import type { ExecutorContext, WorkerContext } from './context.js'

/** Longest error message sent with FailJob / ThrowError. */
export const MAX_MESSAGE = 2_000

/** FailJob messages of a job handed back untouched (retries unchanged, no backoff); same in every SDK. */
export const MSG_CLOSING = 'jobwire: worker closing; job returned'
export const MSG_AT_CAPACITY = 'jobwire: worker at capacity; job returned'
export const MSG_RECYCLED = 'jobwire: stream recycled; job returned'

/** How an outcome send ended. */
export type OutcomeResult = 'ok' | 'not_found' | 'gave_up'
/** An outcome send's result and, unless acknowledged, the typed error. */
export interface SendResult {
  result: OutcomeResult
  error?: JobwireError
}

/** The unary calls an outcome sender makes. */
export type OutcomeMethod = 'CompleteJob' | 'FailJob' | 'ThrowError' | 'UpdateJobTimeout'

/**
 * Sends a job's outcome (CompleteJob / FailJob / ThrowError) with retries: what the held job calls.
 * @internal
 */
export interface OutcomeSender {
  /** The worker's shared parts (options, logger, error reporting). */
  readonly ctx: ExecutorContext
  /**
   * Sends an outcome; retries UNAVAILABLE / RESOURCE_EXHAUSTED / DEADLINE_EXCEEDED / ABORTED
   * (OUTCOME_RETRYABLE_CODES; not a message over the size limit) with backoff until `deadline`
   * (outcomeDecision in codes.ts). NOT_FOUND / FAILED_PRECONDITION are benign (`not_found`); anything else, or the deadline passing, gives up (`gave_up`, logged at
   * warn; reported to the application unless `quiet`: the caller of a manual outcome gets the error).
   */
  send(method: OutcomeMethod, req: object, key: string, deadline: number, o?: { viaLong?: boolean; quiet?: boolean }): Promise<SendResult>
  /** Sends FailJob for the job `key` (hand-backs go over the long-call connection). */
  sendFail(key: string, retries: number, message: string, backoffMs: number, deadline: number, variables?: string, quiet?: boolean): Promise<SendResult>
  /** UpdateJobTimeout for the job `key` (a new timeout of `timeoutMs` from now); throws the typed error. */
  updateTimeout(key: string, timeoutMs: number): Promise<void>
}

/** The outcome sender of one worker. @internal */
export class GatewayOutcomeSender implements OutcomeSender {
  constructor(readonly ctx: WorkerContext) {}

  async updateTimeout(key: string, timeoutMs: number): Promise<void> {
    await this.ctx.transport.unary('UpdateJobTimeout', { jobKey: key, timeout: String(Math.round(timeoutMs)) })
  }

  sendFail(key: string, retries: number, message: string, backoffMs: number, deadline: number, variables = '', quiet = false): Promise<SendResult> {
    // Close and a stream recycle hand jobs back over the connection that carried this worker's long
    // poll and stream: HTTP/2 keeps the order of one connection, so the gateway sees the poll or
    // stream cancelled before the job is activatable again and cannot hand it to that (dead) call.
    const viaLong = message === MSG_CLOSING || message === MSG_RECYCLED
    return this.send('FailJob', { jobKey: key, retries, errorMessage: message.slice(0, MAX_MESSAGE), retryBackOff: String(backoffMs), variables }, key, deadline, { viaLong, quiet })
  }

  async send(method: OutcomeMethod, req: object, key: string, deadline: number, o: { viaLong?: boolean; quiet?: boolean } = {}): Promise<SendResult> {
    const backoff = new Backoff(Math.random, this.ctx.transport.config.backoff)
    for (;;) {
      try {
        const left = deadline - Date.now()
        const opts = { timeoutMs: Math.max(1_000, Math.min(this.ctx.transport.config.commandTimeoutMs, left)) }
        await (o.viaLong ? this.ctx.long.unary(method, req, opts) : this.ctx.transport.unary(method, req, opts))
        return { result: 'ok' }
      } catch (e) {
        const err = toJobwireError(e)
        const decision = outcomeDecision(err.code, err.details || err.message)
        if (decision === 'benign') {
          this.ctx.logger.info(`${method} for job ${key}: ${err.codeName} (job timed out, was cancelled or completed elsewhere)`)
          return { result: 'not_found', error: err }
        }
        const delay = backoff.next()
        // a message over the gateway's size limit is refused the same way every time: give_up, not retried
        if (decision === 'retry' && Date.now() + delay < deadline) {
          this.ctx.logger.debug(`${method} for job ${key} failed (${err.codeName}); retrying in ${delay} ms`)
          await sleep(delay)
          continue
        }
        this.ctx.logger.warn(`${method} for job ${key} not delivered (${err.codeName}): ${err.message}`)
        if (!o.quiet) this.ctx.reportError(err)
        return { result: 'gave_up', error: err }
      }
    }
  }
}
