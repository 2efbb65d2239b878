import { status as Status } from '@grpc/grpc-js'
import { BENIGN_OUTCOME_CODES, OUTCOME_RETRYABLE_CODES } from '../errors.js'

/**
 * The worker's status-code decisions (docs/worker-semantics.md, "Sending outcomes" and "Errors"),
 * each in one pure function used by the outcome sender, the poller and the streamer, and checked
 * against conformance-tests/vectors/status-codes.json by test/vectors.test.ts.
 * @internal
 */

/** What a worker does after a failed CompleteJob / FailJob / ThrowError. */
export type OutcomeDecision = 'retry' | 'benign' | 'give_up'

/** A message over the gateway's size limit: refused the same way every time. */
const TOO_LARGE = /larger than max|exceeds maximum size/

/**
 * After a failed outcome with status `code` and status message `message`: `retry` (resend with the
 * shared backoff until the job's deadline), `benign` (the job is no longer ours: counted not_found,
 * not reported) or `give_up` (undelivered, reported). RESOURCE_EXHAUSTED for a message over the
 * size limit is given up; for backpressure it is retried. A client-side error (no code) is given up.
 */
export function outcomeDecision(code: number | undefined, message: string): OutcomeDecision {
  if (code === undefined) return 'give_up'
  if (BENIGN_OUTCOME_CODES.has(code)) return 'benign'
  if (code === Status.RESOURCE_EXHAUSTED && TOO_LARGE.test(message)) return 'give_up'
  return OUTCOME_RETRYABLE_CODES.has(code) ? 'retry' : 'give_up'
}

/** The activation call that failed: ActivateJobs (`poll`) or StreamActivatedJobs (`stream`). */
export type ActivationCall = 'poll' | 'stream'
/** What a worker does after a failed activation call. */
export type ActivationDecision = 'backoff' | 'max_backoff_report' | 'polling_only'

/** Activation errors that need a human: reported loudly, retried at the maximum backoff. */
const LOUD: ReadonlySet<number> = new Set([Status.INVALID_ARGUMENT, Status.PERMISSION_DENIED, Status.UNAUTHENTICATED])

/**
 * After a failed poll or stream with status `code`: `backoff` (next step of the shared backoff, a
 * warning, not reported), `max_backoff_report` (reported to the application, maximum backoff) or,
 * for a stream the gateway does not implement, `polling_only` (never reopened). A client-side
 * error (no code) backs off.
 */
export function activationDecision(call: ActivationCall, code: number | undefined): ActivationDecision {
  if (code === undefined) return 'backoff'
  if (call === 'stream' && code === Status.UNIMPLEMENTED) return 'polling_only'
  return LOUD.has(code) ? 'max_backoff_report' : 'backoff'
}
