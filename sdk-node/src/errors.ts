import { status as Status } from '@grpc/grpc-js'

/**
 * Base class of every error the SDK raises for a failed gateway call.
 * `code` is the numeric gRPC status code, `codeName` its name (e.g. `NOT_FOUND`).
 *
 * @example
 * try { await client.completeJob({ jobKey }) } catch (e) { if (e instanceof JobwireError) console.log(e.codeName) }
 */
export class JobwireError extends Error {
  /** gRPC status code (`@grpc/grpc-js` `status`), or `undefined` for client-side errors. */
  readonly code: number | undefined
  /** Name of the gRPC status code, e.g. `RESOURCE_EXHAUSTED`. */
  readonly codeName: string
  /** Status details as sent by the gateway. */
  readonly details: string

  /**
   * Creates the error; the SDK raises it from a failed call, applications rarely need to.
   *
   * @param message - The error message.
   * @param code - The gRPC status code, or `undefined` for an error raised by the client itself.
   * @param details - The status details sent by the gateway.
   * @param options - `cause`: the underlying error.
   */
  constructor(message: string, code?: number, details = '', options?: { cause?: unknown }) {
    super(message, options)
    this.name = new.target.name
    this.code = code
    this.codeName = code === undefined ? 'CLIENT' : (Status[code] ?? `CODE_${code}`)
    this.details = details
  }

  /** Whether sending the command again may help: UNAVAILABLE, RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED (the same set in every SDK). */
  get retryable(): boolean {
    return isRetryable(this.code)
  }
}

/** RESOURCE_EXHAUSTED: the gateway applies backpressure; retry later with backoff. */
export class BackpressureError extends JobwireError {}
/** UNAVAILABLE: the gateway cannot be reached or is restarting. */
export class UnavailableError extends JobwireError {}
/** NOT_FOUND: the entity (job, process, instance, incident) does not exist (anymore). */
export class NotFoundError extends JobwireError {}
/** INVALID_ARGUMENT: the request was rejected as malformed. */
export class InvalidArgumentError extends JobwireError {}
/** FAILED_PRECONDITION: the entity is not in a state that allows the command. */
export class FailedPreconditionError extends JobwireError {}
/** ALREADY_EXISTS: e.g. a message with the same id is still alive. */
export class AlreadyExistsError extends JobwireError {}
/** DEADLINE_EXCEEDED: the call did not finish before its deadline. */
export class DeadlineExceededError extends JobwireError {}
/** CANCELLED: the call was cancelled (by an AbortSignal or a close). */
export class RequestCancelledError extends JobwireError {}
/** UNAUTHENTICATED: no or an invalid token. */
export class UnauthenticatedError extends JobwireError {}
/** PERMISSION_DENIED: the credentials do not allow the command. */
export class PermissionDeniedError extends JobwireError {}
/** INTERNAL, UNKNOWN and any other code without an error of its own (ABORTED, OUT_OF_RANGE, DATA_LOSS): the gateway failed internally. */
export class InternalError extends JobwireError {}
/** UNIMPLEMENTED: the gateway does not know the RPC. */
export class UnimplementedError extends JobwireError {}

type ErrorClass = new (message: string, code?: number, details?: string, options?: { cause?: unknown }) => JobwireError

/** The one table from gRPC status code to typed error; any code not in it (UNKNOWN, ABORTED, OUT_OF_RANGE, DATA_LOSS, ...) maps to InternalError. */
const TABLE: ReadonlyMap<number, ErrorClass> = new Map<number, ErrorClass>([
  [Status.RESOURCE_EXHAUSTED, BackpressureError],
  [Status.UNAVAILABLE, UnavailableError],
  [Status.NOT_FOUND, NotFoundError],
  [Status.INVALID_ARGUMENT, InvalidArgumentError],
  [Status.FAILED_PRECONDITION, FailedPreconditionError],
  [Status.ALREADY_EXISTS, AlreadyExistsError],
  [Status.DEADLINE_EXCEEDED, DeadlineExceededError],
  [Status.CANCELLED, RequestCancelledError],
  [Status.UNAUTHENTICATED, UnauthenticatedError],
  [Status.PERMISSION_DENIED, PermissionDeniedError],
  [Status.INTERNAL, InternalError],
  [Status.UNIMPLEMENTED, UnimplementedError],
])

/** The typed error class for a gRPC status code (docs/worker-semantics.md, "Errors"): INTERNAL, UNKNOWN and every other code map to InternalError. @internal */
export function errorClassFor(code: number): ErrorClass {
  return TABLE.get(code) ?? InternalError
}

/** Status codes after which a command (or an outcome) may be sent again. */
export const RETRYABLE_CODES: ReadonlySet<number> = new Set([
  Status.UNAVAILABLE,
  Status.RESOURCE_EXHAUSTED,
  Status.DEADLINE_EXCEEDED,
])

/**
 * Status codes after which an outcome (CompleteJob, FailJob, ThrowError) is sent again with backoff,
 * until the job's deadline: the retryable codes plus ABORTED, which Zeebe's gateway answers when its
 * connection to the partition leader closed mid-request ("Connection ... was closed": the broker died
 * or lost leadership). The outcome may or may not have been applied; resending is safe because an
 * outcome names its job by key, and one that was applied is answered NOT_FOUND (benign below).
 * Not for other commands: a resent CreateProcessInstance would create a second instance.
 * See docs/worker-semantics.md, "Sending outcomes".
 */
export const OUTCOME_RETRYABLE_CODES: ReadonlySet<number> = new Set([...RETRYABLE_CODES, Status.ABORTED])

/** Whether a client command that failed with this status may be sent again (RETRYABLE_CODES; not ABORTED: the command may have been applied). @internal */
export function isRetryable(code: number | undefined): boolean {
  return code !== undefined && RETRYABLE_CODES.has(code)
}

/** Outcome answers meaning "the job is not (any longer) ours": benign for a worker. */
export const BENIGN_OUTCOME_CODES: ReadonlySet<number> = new Set([Status.NOT_FOUND, Status.FAILED_PRECONDITION])

/** Converts anything thrown by grpc-js (a ServiceError) into a typed JobwireError. @internal */
export function toJobwireError(err: unknown, what?: string): JobwireError {
  if (err instanceof JobwireError) return err
  const e = err as { code?: unknown; details?: unknown; message?: unknown }
  if (e && typeof e.code === 'number') {
    const Cls = errorClassFor(e.code)
    const details = typeof e.details === 'string' ? e.details : ''
    const name = Status[e.code] ?? String(e.code)
    return new Cls(`${what ? what + ': ' : ''}${name}: ${details || String(e.message ?? '')}`, e.code, details, { cause: err })
  }
  return new JobwireError(`${what ? what + ': ' : ''}${String((e && e.message) ?? err)}`, undefined, '', { cause: err })
}

/**
 * A BPMN error: thrown (or returned) by a handler, the worker sends ThrowError
 * with this code, message and variables, so that a matching error boundary event catches it.
 *
 * @example
 * throw new JobError('CARD_DECLINED', 'card was declined', { reason: 'limit' })
 */
export class JobError extends Error {
  /** Matched against the errorCode of error events. */
  readonly code: string
  /** Variables set on the error scope. */
  readonly variables: Record<string, unknown> | undefined

  /**
   * Creates a BPMN error for a handler to throw or return.
   *
   * @param code - The BPMN error code, matched against the errorCode of error events.
   * @param message - The error message sent with ThrowError.
   * @param variables - Variables set on the error scope.
   */
  constructor(code: string, message = '', variables?: Record<string, unknown>) {
    super(message)
    this.name = 'JobError'
    this.code = code
    this.variables = variables
  }
}

/** One problem found when validating a typed handler's input: where (a dotted path) and what. @internal */
export interface InputIssue {
  /** The variable name or dotted path (`order.amount`, `items[2].sku`); empty for the whole input. */
  path: string
  /** The schema library's wording, e.g. "expected number, received string". */
  message: string
}

/**
 * The job's variables (or custom headers) do not match the worker's schema
 * ({@link WorkerOptions.variables}): the handler is not called and the job fails like after a
 * handler error (through the retry policy; by default retries − 1 with back-off, an incident
 * once the retries are used up). The message, sent with FailJob, is
 * `jobwire: invalid input: <field>: <problem>`, several issues joined with `; `.
 *
 * @example
 * retryPolicy: (job, err) => err instanceof InvalidInputError ? RetryDecision.incident(err.message) : defaultRetryPolicy(job, err)
 */
export class InvalidInputError extends Error {
  /** Every problem found, in the schema's order: `path` (the variable name or dotted path, e.g. `order.amount`, `items[2].sku`; empty for the whole input) and `message` (the schema library's wording). */
  readonly issues: Array<{
    /** The variable name or dotted path (`order.amount`, `items[2].sku`); empty for the whole input. */
    path: string
    /** The schema library's wording, e.g. "expected number, received string". */
    message: string
  }>

  /**
   * Creates the error; the worker raises it when a schema rejects a job's input.
   *
   * @param issues - The problems found: path (variable name or dotted path) and message.
   */
  constructor(issues: Array<{ path: string; message: string }>) {
    super(`jobwire: invalid input: ${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ') || 'rejected by the schema'}`)
    this.name = 'InvalidInputError'
    this.issues = issues
  }
}

/**
 * A failure that retrying cannot fix: thrown by a handler (or a middleware), the default retry
 * policy (and a fixed `retryBackOffMs`) answers it with an incident at once (FailJob with
 * retries 0 and this message), whatever retries the job has left. Found anywhere in the
 * `cause` chain of the thrown error.
 *
 * @example
 * throw new NonRetryableError('customer account is closed', { cause: err })
 */
export class NonRetryableError extends Error {
  /**
   * Creates the error.
   *
   * @param message - The incident's message.
   * @param options - `cause`: the underlying error.
   */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'NonRetryableError'
  }
}
