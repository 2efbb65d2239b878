import { context as otelContext } from '@opentelemetry/api'
import type { ActivatedJob__Output } from '../generated/gateway_protocol/ActivatedJob.js'
import { RequestCancelledError, InvalidInputError, JobError, JobwireError } from '../errors.js'
import { variablesToJson } from '../json.js'
import { HeldJob, type Settled } from './heldJob.js'
import { sleep } from './backoff.js'
import type { ExecutorContext, WorkerContext } from './context.js'
import { Extender } from './extender.js'
import type { Slot } from './ledger.js'
import { GatewayOutcomeSender, MAX_MESSAGE, MSG_AT_CAPACITY, MSG_CLOSING, type OutcomeSender, type SendResult } from './outcome.js'
import type { Outcome } from './telemetry.js'
import type { Variables } from '../job.js'
import type { HandlerResult } from './options.js'
import { decide } from './retry.js'
import { TRACEPARENT, stripsTraceparent, validateInput } from './schema.js'

/** A job whose deadline is closer than this when its turn comes is dropped (counted `expired`). */
const EXPIRY_MARGIN_MS = 100

/** After close's timeout cancels running handlers, how long to wait for them before handing their jobs back (same in every SDK). */
export const CLOSE_GRACE_MS = 1_000
export { MSG_AT_CAPACITY, MSG_CLOSING, MSG_RECYCLED } from './outcome.js'

/** What a hand-back (retries unchanged) counts. */
function returned(r: SendResult): Outcome {
  return r.result === 'ok' ? 'returned' : r.result === 'not_found' ? 'not_found' : 'undelivered'
}

/** The executor's record of a held job: queued, running, or sending its outcome. */
interface Entry {
  raw: ActivatedJob__Output
  slot: Slot
  activation: 'push' | 'poll'
  job: HeldJob
  abort: AbortController
  running: boolean
  /** Failed back by close(): whatever the handler does later is ignored. */
  abandoned: boolean
  /** Manual mode: the handler returned without an outcome; the slot stays held until one settles or the deadline passes. */
  awaitingSettle: boolean
  /** A new activation of the same key that arrived after this one's outcome was sent; runs next. */
  redelivery?: { raw: ActivatedJob__Output; slot: Slot; activation: 'push' | 'poll' }
}

/**
 * Runs handlers, at most `concurrency` at once, and sends their outcomes.
 * Every held job ends in exactly one slot release.
 * @internal
 */
export class Executor {
  private readonly held = new Map<string, Entry>()
  private readonly queue: Entry[] = []
  private running = 0
  private closing = false
  private readonly idleWaiters: Array<() => void> = []
  private readonly pendingSends = new Set<Promise<unknown>>()

  /** Sends the outcomes of this worker's jobs (the held jobs call it). */
  readonly outcomes: OutcomeSender

  /**
   * `outcomes`: where outcomes go; default the gateway (a worker). The test kit's runHandler passes an
   * in-process sink, so a handler test runs this same path.
   */
  constructor(ctx: WorkerContext)
  constructor(ctx: ExecutorContext, outcomes: OutcomeSender)
  constructor(
    readonly ctx: ExecutorContext,
    outcomes?: OutcomeSender,
  ) {
    this.outcomes = outcomes ?? new GatewayOutcomeSender(ctx as WorkerContext)
  }

  /** Jobs received and not yet finished (queued + running). */
  get size(): number {
    return this.held.size
  }

  /** Hands a received job (whose slot is already taken) to the executor. */
  submit(raw: ActivatedJob__Output, slot: Slot, activation: 'push' | 'poll', counted = false): void {
    const { ctx } = this
    if (!counted) ctx.telemetry.jobActivated(activation)
    const prev = this.held.get(raw.key)
    if (prev) {
      // At-least-once delivery: the engine handed us a job we still hold.
      if (!prev.job.outcomeSent) {
        // Redelivered while queued/running: do not run it twice; the newer deadline counts
        // (auto-extend and the expiry check use it).
        ctx.logger.debug(`job ${raw.key} delivered again while its handler runs; keeping the running attempt`)
        prev.job.deadline = Math.max(prev.job.deadline, Number(raw.deadline))
        slot.release()
        ctx.telemetry.jobHandled('duplicate')
      } else {
        // The outcome (e.g. FailJob with retries left) is in flight and the engine already
        // activated the job again: a real new attempt, run it once that outcome is acknowledged.
        ctx.logger.debug(`job ${raw.key} delivered again while its outcome is in flight; it runs after the acknowledgement`)
        if (prev.redelivery) {
          prev.redelivery.slot.release()
          ctx.telemetry.jobHandled('duplicate')
        }
        prev.redelivery = { raw, slot, activation }
      }
      return
    }
    let job: HeldJob
    try {
      job = new HeldJob(raw, activation, this.outcomes)
    } catch (e) {
      // Unparseable variables: the handler cannot run; fail it so it surfaces as an incident eventually.
      ctx.reportError(new JobwireError(`job ${raw.key}: ${(e as Error).message}`))
      void this.track(this.outcomes.sendFail(raw.key, raw.retries - 1, `jobwire: ${(e as Error).message}`, 0, Date.now() + 10_000))
        .then((r) => ctx.telemetry.jobHandled(r.result === 'ok' ? 'failed' : r.result === 'not_found' ? 'not_found' : 'undelivered'))
        .finally(() => slot.release())
      return
    }
    const h: Entry = { raw, slot, activation, job, abort: new AbortController(), running: false, abandoned: false, awaitingSettle: false }
    this.held.set(raw.key, h)
    if (this.closing) {
      this.failBack(h)
      return
    }
    this.queue.push(h)
    this.pump()
  }

  private pump(): void {
    while (!this.closing && this.running < this.ctx.opts.concurrency && this.queue.length > 0) {
      const h = this.queue.shift()!
      if (h.job.deadline - Date.now() < EXPIRY_MARGIN_MS) {
        this.ctx.logger.debug(`job ${h.raw.key} expired before its handler could start; dropped`)
        this.ctx.telemetry.jobHandled('expired')
        this.finish(h)
        continue
      }
      this.running++
      h.running = true
      this.run(h).catch((e: unknown) => this.ctx.reportError(e as Error))
    }
    this.checkIdle()
  }

  private async run(h: Entry): Promise<void> {
    const { ctx } = this
    const { job } = h
    const t0 = performance.now()
    const { span, ctx: spanCtx } = ctx.telemetry.startJobSpan(
      job.type,
      {
        'jobwire.job.key': job.key,
        'jobwire.job.type': job.type,
        'jobwire.job.retries': job.retries,
        'jobwire.process_instance.key': job.processInstanceKey,
        'jobwire.bpmn_process_id': job.bpmnProcessId,
        'jobwire.element_id': job.elementId,
        'jobwire.worker.name': ctx.opts.workerName,
        'jobwire.activation': h.activation,
      },
      pickTraceparent(job),
    )
    const extender = ctx.opts.autoExtend
      ? new Extender(ctx.opts.jobTimeoutMs, () => job.deadline, (ms) => job.extendTimeoutOrThrow(ms), (e) => ctx.logger.debug(`auto-extend of job ${job.key} failed: ${String(e)}`))
      : undefined
    extender?.start()
    let outcome: Outcome = 'completed'
    let failure: unknown
    let counted = false // the concurrency slot was given back early (manual mode waiting for its outcome)
    try {
      const result = await otelContext.with(spanCtx, () => this.invoke(job, h.abort.signal))
      extender?.stop()
      if (h.abandoned) return
      let settled: Settled
      if (result instanceof JobError) settled = await job.throwErrorOutcome(result)
      else if (job.settled) settled = await job.settled
      else if (ctx.opts.autoComplete) {
        let vars: string
        try {
          vars = variablesToJson(result, `handler result of job ${job.key}`)
        } catch (e) {
          failure = e
          ctx.reportError(e as Error)
          settled = await this.failByPolicy(job, e, (e as Error).message)
          outcome = settled.outcome
          return
        }
        settled = await job.completeOutcome(vars)
      } else {
        // Manual mode: the job stays held (its slot too) until an outcome settles or its deadline passes.
        this.running--
        h.running = false
        counted = true
        h.awaitingSettle = true
        this.pump()
        outcome = await job.waitSettled(h.abort.signal)
        if (h.abandoned) return
        // Closing and the close timeout passed with no outcome: hand the job back (retries unchanged).
        if (outcome === 'unsettled' && h.abort.signal.aborted && this.closing && !job.outcomeSent) outcome = await this.failBackOutcome(h, true)
        h.awaitingSettle = false
        if (outcome === 'unsettled') ctx.logger.warn(`job ${job.key}: the handler returned without an outcome and none was sent before the job's deadline`)
        return
      }
      outcome = settled.outcome
      failure = settled.error
    } catch (err) {
      extender?.stop()
      failure = err
      if (h.abandoned) return
      let settled: Settled
      if (err instanceof JobError) settled = await job.throwErrorOutcome(err)
      else if (job.settled) settled = await job.settled
      else if (h.abort.signal.aborted && this.closing) settled = { outcome: await this.failBackOutcome(h, true) }
      else settled = await this.failByPolicy(job, err, err instanceof InvalidInputError ? err.message.slice(0, MAX_MESSAGE) : errorMessage(err))
      outcome = settled.outcome
    } finally {
      const durationS = (performance.now() - t0) / 1000
      if (!h.abandoned) {
        ctx.telemetry.jobHandled(outcome, durationS)
        ctx.telemetry.endJobSpan(span, outcome, failure)
      } else {
        ctx.telemetry.endJobSpan(span, 'cancelled', failure)
      }
      if (!counted) this.running--
      h.running = false
      h.awaitingSettle = false
      this.finish(h)
      this.pump()
    }
  }

  /** Whether the variables lose `traceparent` before the schema sees them (computed once). */
  private stripTraceparent: boolean | undefined

  /**
   * The variables the `variables` schema validates: without `traceparent` when only the fetched
   * list names it (derived lists do), so a strict schema does not reject it.
   */
  private schemaInput(variables: Variables): Variables {
    this.stripTraceparent ??= stripsTraceparent(this.ctx.opts.variables, this.ctx.opts.fetchVariables)
    if (!this.stripTraceparent || !Object.hasOwn(variables, TRACEPARENT)) return variables
    const rest: Variables = {}
    for (const [k, v] of Object.entries(variables)) if (k !== TRACEPARENT) rest[k] = v
    return rest
  }

  /**
   * The chain a job runs through inside its span: the middleware (outer first), then, for a
   * worker with schemas, input validation (a rejected input throws InvalidInputError and the
   * handler is not called), then the handler with the typed job.
   */
  private invoke(job: HeldJob, signal: AbortSignal): Promise<HandlerResult> {
    const { opts } = this.ctx
    const inner = async (): Promise<HandlerResult> => {
      if (!opts.variables && !opts.customHeaders) return opts.handler(job, { signal })
      const variables = opts.variables ? await validateInput(opts.variables, this.schemaInput(job.variables)) : job.variables
      const headers = opts.customHeaders ? await validateInput(opts.customHeaders, job.customHeaders, 'customHeaders') : job.customHeaders
      return opts.handler(typedView(job, variables as Variables, headers as Record<string, string>), { signal })
    }
    const chain = opts.middleware.reduceRight<() => Promise<HandlerResult>>((next, mw) => {
      return async () => {
        let called = false
        const once = (): Promise<HandlerResult> => {
          if (called) return Promise.reject(new JobwireError(`jobwire: job ${job.key}: a middleware called next() twice`))
          called = true
          return next()
        }
        return mw(job, once, { signal })
      }
    }, inner)
    return chain()
  }

  /** A failure (not a JobError): the worker's retry policy decides between FailJob with back-off, an incident and a BPMN error. */
  private failByPolicy(job: HeldJob, err: unknown, message: string): Promise<Settled> {
    const d = decide(this.ctx.opts.retryPolicy, job, err, this.ctx.logger)
    switch (d.kind) {
      case 'bpmnError':
        return job.throwErrorOutcome({ code: d.code, message: d.message, variables: d.variables })
      case 'incident':
        return job.failOutcome({ message: (d.message ?? message).slice(0, MAX_MESSAGE), retries: 0 })
      default:
        return job.failOutcome({ message, retries: Math.max(0, job.retries - 1), retryBackOffMs: d.backoffMs })
    }
  }

  /** Releases a held job's slot, exactly once. */
  private finish(h: Entry): void {
    if (this.held.get(h.raw.key) === h) this.held.delete(h.raw.key)
    h.slot.release()
    const next = h.redelivery
    h.redelivery = undefined
    if (next) this.submit(next.raw, next.slot, next.activation, true)
    this.checkIdle()
  }

  private checkIdle(): void {
    if (this.idleWaiters.length > 0 && this.running === 0 && !this.anyAwaitingSettle()) for (const w of this.idleWaiters.splice(0)) w()
  }

  private anyAwaitingSettle(): boolean {
    for (const h of this.held.values()) if (h.awaitingSettle) return true
    return false
  }

  /** Handlers running or manual-mode jobs waiting for their outcome. */
  private get busy(): boolean {
    return this.running > 0 || this.anyAwaitingSettle()
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.pendingSends.add(p)
    void p.finally(() => this.pendingSends.delete(p))
    return p
  }

  /** Gives a job back at once: FailJob with retries unchanged and no backoff, counted `returned`. */
  private failBack(h: Entry): void {
    void this.failBackOutcome(h, false).finally(() => this.finish(h))
  }

  /** Hands a held job back (close). `inRun`: run() counts the outcome itself. */
  private failBackOutcome(h: Entry, inRun: boolean): Promise<Outcome> {
    h.job.outcomeSent = true
    const deadline = Math.min(h.job.deadline, Date.now() + 5_000)
    return this.track(this.outcomes.sendFail(h.raw.key, h.raw.retries, MSG_CLOSING, 0, deadline)).then((r) => {
      const o = returned(r)
      if (!inRun) this.ctx.telemetry.jobHandled(o)
      return o
    })
  }

  /**
   * A received job that found no free slot: failed back at once (retries unchanged, no backoff),
   * counted `returned`; it is never run and never waits in memory.
   */
  giveBack(raw: ActivatedJob__Output, activation: 'push' | 'poll'): void {
    this.ctx.logger.debug(`job ${raw.key}: no free slot (${activation}); returning it to the engine`)
    void this.handBack(raw, activation, MSG_AT_CAPACITY)
  }

  /**
   * Hands a received job back untouched (retries unchanged, no backoff): at capacity, or set aside by a
   * drained stream (close, recycle). Counted as activated and `returned` (or what the send ended in).
   */
  handBack(raw: ActivatedJob__Output, activation: 'push' | 'poll', message: string): Promise<Outcome> {
    this.ctx.telemetry.jobActivated(activation)
    return this.track(this.outcomes.sendFail(raw.key, raw.retries, message, 0, Math.min(Number(raw.deadline), Date.now() + 10_000))).then((r) => {
      const o = returned(r)
      this.ctx.telemetry.jobHandled(o)
      return o
    })
  }

  /**
   * Close: fail back queued jobs, let running handlers finish until `timeoutMs`,
   * then abort them and fail them back.
   */
  async close(timeoutMs: number): Promise<void> {
    this.closing = true
    for (const h of this.queue.splice(0)) this.failBack(h)
    if (this.busy) {
      const idle = new Promise<void>((r) => this.idleWaiters.push(r))
      const timer = new AbortController()
      await Promise.race([idle, sleep(timeoutMs, timer.signal)])
      timer.abort()
    }
    if (this.busy) {
      for (const h of this.held.values()) if (h.running || h.awaitingSettle) h.abort.abort(new RequestCancelledError('worker closing: handler cancelled'))
      // Handlers that honour the signal settle at once; give them CLOSE_GRACE_MS, then hand the
      // jobs of the rest back and stop waiting for them (their late results are ignored).
      const idle = new Promise<void>((r) => this.idleWaiters.push(r))
      const timer = new AbortController()
      await Promise.race([idle, sleep(CLOSE_GRACE_MS, timer.signal)])
      timer.abort()
      let stuck = 0
      for (const h of this.held.values()) {
        if ((h.running || h.awaitingSettle) && !h.abandoned && !h.job.outcomeSent) {
          h.abandoned = true
          stuck++
          void this.failBackOutcome(h, false)
        }
      }
      if (stuck > 0) this.ctx.logger.warn(`${stuck} handler(s) ignored cancellation; their jobs were handed back and close returns without them`)
    }
    const waitSends = new AbortController()
    await Promise.race([Promise.allSettled([...this.pendingSends]), sleep(5_000, waitSends.signal)])
    waitSends.abort()
  }
}

function pickTraceparent(job: HeldJob): unknown {
  const v = (job.variables as Record<string, unknown>)['traceparent']
  return typeof v === 'string' ? v : job.customHeaders['traceparent']
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    const stack = err.stack ?? `${err.name}: ${err.message}`
    return stack.slice(0, MAX_MESSAGE)
  }
  return `handler threw ${String(err)}`.slice(0, MAX_MESSAGE)
}

/**
 * The job as a typed handler sees it: the held job with the schemas' outputs as `variables` and
 * `customHeaders`; everything else (outcome methods, the moving deadline) is the held job's own.
 */
function typedView(job: HeldJob, variables: Variables, customHeaders: Record<string, string>): HeldJob {
  return new Proxy(job, {
    get(target, prop) {
      if (prop === 'variables') return variables
      if (prop === 'customHeaders') return customHeaders
      const v = Reflect.get(target, prop, target) as unknown
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v
    },
  })
}
