import { context as otelContext } from '@opentelemetry/api'
import type { ActivatedJob__Output } from '../generated/gateway_protocol/ActivatedJob.js'
import { BENIGN_OUTCOME_CODES, CancelledError, JobError, JobwireError, RETRYABLE_CODES, toJobwireError } from '../errors.js'
import type { FailOptions, Job, ThrowErrorOptions, Variables } from '../job.js'
import { parseLossless, variablesToJson } from '../json.js'
import { Backoff, sleep } from './backoff.js'
import type { WorkerContext } from './context.js'
import { Extender } from './extender.js'
import type { Slot } from './ledger.js'
import type { Outcome } from './telemetry.js'

/** A job whose deadline is closer than this when its turn comes is dropped (counted `expired`). */
const EXPIRY_MARGIN_MS = 100
/** Longest error message sent with FailJob. */
const MAX_MESSAGE = 2_000

type OutcomeResult = 'ok' | 'not_found' | 'gave_up'

interface Held {
  raw: ActivatedJob__Output
  slot: Slot
  activation: 'push' | 'poll'
  job: JobImpl
  abort: AbortController
  running: boolean
  /** Failed back by close(): whatever the handler does later is ignored. */
  abandoned: boolean
  /** A new activation of the same key that arrived after this one's outcome was sent; runs next. */
  redelivery?: { raw: ActivatedJob__Output; slot: Slot; activation: 'push' | 'poll' }
}

/**
 * Runs handlers, at most `concurrency` at once, and sends their outcomes.
 * Every held job ends in exactly one slot release.
 * @internal
 */
export class Executor {
  private readonly held = new Map<string, Held>()
  private readonly queue: Held[] = []
  private running = 0
  private closing = false
  private readonly idleWaiters: Array<() => void> = []
  private readonly pendingSends = new Set<Promise<unknown>>()

  constructor(readonly ctx: WorkerContext) {}

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
        // Timed out while queued/running: the running attempt's outcome still applies; keep it,
        // with the newer deadline.
        ctx.logger.debug(`job ${raw.key} delivered again while held; keeping the first delivery`)
        prev.job.deadline = Math.max(prev.job.deadline, Number(raw.deadline))
        slot.release()
      } else {
        // The outcome (e.g. FailJob with retries left) is in flight and the engine already
        // activated the job again: a new attempt, run it once this one is finished.
        prev.redelivery?.slot.release()
        prev.redelivery = { raw, slot, activation }
      }
      return
    }
    let job: JobImpl
    try {
      job = new JobImpl(raw, activation, this)
    } catch (e) {
      // Unparseable variables: the handler cannot run; fail it so it surfaces as an incident eventually.
      ctx.reportError(new JobwireError(`job ${raw.key}: ${(e as Error).message}`))
      this.track(this.sendFail(raw, raw.retries - 1, `jobwire: ${(e as Error).message}`, 0, Date.now() + 10_000).finally(() => slot.release()))
      return
    }
    const h: Held = { raw, slot, activation, job, abort: new AbortController(), running: false, abandoned: false }
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

  private async run(h: Held): Promise<void> {
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
    try {
      const result = await otelContext.with(spanCtx, () => ctx.opts.handler(job, { signal: h.abort.signal }))
      extender?.stop()
      if (h.abandoned) return
      if (result instanceof JobError) outcome = await job.throwErrorOutcome(result)
      else if (ctx.opts.autoComplete && !job.outcomeSent) {
        let vars: string
        try {
          vars = variablesToJson(result, `handler result of job ${job.key}`)
        } catch (e) {
          failure = e
          ctx.reportError(e as Error)
          outcome = await job.failOutcome({ message: (e as Error).message })
          return
        }
        outcome = await job.completeOutcome(vars)
      } else outcome = job.lastOutcome ?? 'completed'
    } catch (err) {
      extender?.stop()
      failure = err
      if (h.abandoned) return
      if (err instanceof JobError) outcome = await job.throwErrorOutcome(err)
      else if (h.abort.signal.aborted && this.closing) outcome = await this.failBackOutcome(h)
      else if (job.outcomeSent) outcome = job.lastOutcome ?? 'failed'
      else outcome = await job.failOutcome({ message: errorMessage(err) })
    } finally {
      const durationS = (performance.now() - t0) / 1000
      if (!h.abandoned) {
        ctx.telemetry.jobHandled(outcome, durationS)
        ctx.telemetry.endJobSpan(span, outcome, failure)
      } else {
        ctx.telemetry.endJobSpan(span, 'cancelled', failure)
      }
      this.running--
      h.running = false
      this.finish(h)
      this.pump()
    }
  }

  /** Releases a held job's slot, exactly once. */
  private finish(h: Held): void {
    if (this.held.get(h.raw.key) === h) this.held.delete(h.raw.key)
    h.slot.release()
    const next = h.redelivery
    h.redelivery = undefined
    if (next) this.submit(next.raw, next.slot, next.activation, true)
    this.checkIdle()
  }

  private checkIdle(): void {
    if (this.running === 0 && this.idleWaiters.length > 0) for (const w of this.idleWaiters.splice(0)) w()
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.pendingSends.add(p)
    void p.finally(() => this.pendingSends.delete(p))
    return p
  }

  /** Gives a job back at once: FailJob with retries unchanged and no backoff. */
  private failBack(h: Held): void {
    void this.failBackOutcome(h).finally(() => this.finish(h))
  }

  private failBackOutcome(h: Held): Promise<Outcome> {
    h.job.outcomeSent = true
    const deadline = Math.min(h.job.deadline, Date.now() + 5_000)
    return this.track(this.sendFail(h.raw, h.raw.retries, 'jobwire: worker closing, job returned unstarted', 0, deadline)).then((r) =>
      r === 'not_found' ? 'not_found' : 'cancelled',
    )
  }

  sendFail(raw: ActivatedJob__Output, retries: number, message: string, backoffMs: number, deadline: number, variables = ''): Promise<OutcomeResult> {
    return this.send('FailJob', { jobKey: raw.key, retries, errorMessage: message.slice(0, MAX_MESSAGE), retryBackOff: String(backoffMs), variables }, raw.key, deadline)
  }

  /**
   * Sends an outcome; retries UNAVAILABLE / RESOURCE_EXHAUSTED / DEADLINE_EXCEEDED
   * with backoff until the job's deadline. NOT_FOUND / FAILED_PRECONDITION are benign.
   */
  async send(method: 'CompleteJob' | 'FailJob' | 'ThrowError' | 'UpdateJobTimeout', req: object, key: string, deadline: number): Promise<OutcomeResult> {
    const backoff = new Backoff()
    for (;;) {
      try {
        const left = deadline - Date.now()
        await this.ctx.transport.unary(method, req, { timeoutMs: Math.max(1_000, Math.min(this.ctx.transport.config.commandTimeoutMs, left)) })
        return 'ok'
      } catch (e) {
        const err = toJobwireError(e)
        if (err.code !== undefined && BENIGN_OUTCOME_CODES.has(err.code)) {
          this.ctx.logger.info(`${method} for job ${key}: ${err.codeName} (job timed out, was cancelled or completed elsewhere)`)
          return 'not_found'
        }
        const delay = backoff.next()
        if (err.code !== undefined && RETRYABLE_CODES.has(err.code) && Date.now() + delay < deadline) {
          this.ctx.logger.debug(`${method} for job ${key} failed (${err.codeName}); retrying in ${delay} ms`)
          await sleep(delay)
          continue
        }
        this.ctx.reportError(err)
        return 'gave_up'
      }
    }
  }

  /**
   * Close: fail back queued jobs, let running handlers finish until `timeoutMs`,
   * then abort them and fail them back.
   */
  async close(timeoutMs: number): Promise<void> {
    this.closing = true
    for (const h of this.queue.splice(0)) this.failBack(h)
    if (this.running > 0) {
      const idle = new Promise<void>((r) => this.idleWaiters.push(r))
      const timer = new AbortController()
      await Promise.race([idle, sleep(timeoutMs, timer.signal)])
      timer.abort()
    }
    if (this.running > 0) {
      for (const h of this.held.values()) if (h.running) h.abort.abort(new CancelledError('worker closing: handler cancelled'))
      // Handlers that honour the signal settle at once; give them a moment, then abandon the rest.
      const idle = new Promise<void>((r) => this.idleWaiters.push(r))
      const timer = new AbortController()
      await Promise.race([idle, sleep(200, timer.signal)])
      timer.abort()
      for (const h of this.held.values()) {
        if (h.running && !h.abandoned) {
          h.abandoned = true
          void this.failBackOutcome(h)
        }
      }
    }
    const waitSends = new AbortController()
    await Promise.race([Promise.allSettled([...this.pendingSends]), sleep(5_000, waitSends.signal)])
    waitSends.abort()
  }
}

function pickTraceparent(job: JobImpl): unknown {
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

function parseHeaders(raw: string): Record<string, string> {
  if (!raw) return {}
  try {
    const v = JSON.parse(raw) as unknown
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, string>
  } catch {
    /* headers are informational: tolerate garbage */
  }
  return {}
}

/** The Job given to handlers. @internal */
export class JobImpl implements Job<Variables> {
  readonly key: string
  readonly type: string
  readonly retries: number
  deadline: number
  readonly processInstanceKey: string
  readonly bpmnProcessId: string
  readonly processDefinitionVersion: number
  readonly processDefinitionKey: string
  readonly elementId: string
  readonly elementInstanceKey: string
  readonly customHeaders: Record<string, string>
  readonly worker: string
  readonly tenantId: string
  readonly variables: Variables
  readonly variablesJson: string
  outcomeSent = false
  lastOutcome: Outcome | undefined

  constructor(
    raw: ActivatedJob__Output,
    readonly activation: 'push' | 'poll',
    private readonly exec: Executor,
  ) {
    this.key = raw.key
    this.type = raw.type
    this.retries = raw.retries
    this.deadline = Number(raw.deadline)
    this.processInstanceKey = raw.processInstanceKey
    this.bpmnProcessId = raw.bpmnProcessId
    this.processDefinitionVersion = raw.processDefinitionVersion
    this.processDefinitionKey = raw.processDefinitionKey
    this.elementId = raw.elementId
    this.elementInstanceKey = raw.elementInstanceKey
    this.customHeaders = parseHeaders(raw.customHeaders)
    this.worker = raw.worker
    this.tenantId = raw.tenantId
    this.variablesJson = raw.variables || '{}'
    const v = parseLossless(this.variablesJson)
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new TypeError('job variables are not a JSON object')
    this.variables = v
  }

  private claim(what: string): boolean {
    if (this.outcomeSent) {
      this.exec.ctx.logger.warn(`${what} on job ${this.key} ignored: an outcome was already sent`)
      return false
    }
    this.outcomeSent = true
    return true
  }

  private record(o: Outcome, r: OutcomeResult): Outcome {
    this.lastOutcome = r === 'not_found' ? 'not_found' : o
    return this.lastOutcome
  }

  /** Sends CompleteJob with already-serialized variables. */
  async completeOutcome(varsJson: string): Promise<Outcome> {
    if (!this.claim('complete')) return this.lastOutcome ?? 'completed'
    return this.record('completed', await this.exec.send('CompleteJob', { jobKey: this.key, variables: varsJson }, this.key, this.deadline))
  }

  async failOutcome(o: FailOptions): Promise<Outcome> {
    const retries = o.retries ?? Math.max(0, this.retries - 1)
    let vars = ''
    try {
      vars = variablesToJson(o.variables, `fail variables of job ${this.key}`)
    } catch (err) {
      this.exec.ctx.reportError(err as Error)
    }
    if (!this.claim('fail')) return this.lastOutcome ?? 'failed'
    const backoff = o.retryBackOffMs ?? this.exec.ctx.opts.retryBackOffMs
    return this.record('failed', await this.exec.sendFail(({ key: this.key } as ActivatedJob__Output), retries, o.message ?? 'job failed', backoff, this.deadline, vars))
  }

  async throwErrorOutcome(e: ThrowErrorOptions | JobError): Promise<Outcome> {
    let vars: string
    try {
      vars = variablesToJson(e.variables, `error variables of job ${this.key}`)
    } catch (err) {
      // Invalid variables: nothing bad is sent; the job fails with the reason instead.
      this.exec.ctx.reportError(err as Error)
      return this.failOutcome({ message: (err as Error).message })
    }
    if (!this.claim('throwError')) return this.lastOutcome ?? 'error'
    const req = { jobKey: this.key, errorCode: e.code, errorMessage: (e.message ?? '').slice(0, MAX_MESSAGE), variables: vars }
    return this.record('error', await this.exec.send('ThrowError', req, this.key, this.deadline))
  }

  async complete(variables?: Record<string, unknown> | string): Promise<void> {
    const json = variablesToJson(variables, `complete of job ${this.key}`)
    await this.completeOutcome(json)
  }

  async fail(options?: FailOptions | string): Promise<void> {
    if (typeof options === 'object') variablesToJson(options.variables, `fail of job ${this.key}`)
    await this.failOutcome(typeof options === 'string' ? { message: options } : (options ?? {}))
  }

  async throwError(options: ThrowErrorOptions): Promise<void> {
    variablesToJson(options.variables, `throwError of job ${this.key}`) // a clear TypeError for the caller
    await this.throwErrorOutcome(options)
  }

  async extendTimeout(timeoutMs: number): Promise<void> {
    try {
      await this.extendTimeoutOrThrow(timeoutMs)
    } catch (e) {
      // benign for the process: the job is gone or the gateway refused; the caller sees it in the log
      this.exec.ctx.logger.warn(`extendTimeout of job ${this.key} failed: ${(e as Error).message}`)
    }
  }

  /** UpdateJobTimeout; throws typed errors (used by the auto-extender). */
  async extendTimeoutOrThrow(timeoutMs: number): Promise<void> {
    const sentAt = Date.now()
    await this.exec.ctx.transport.unary('UpdateJobTimeout', { jobKey: this.key, timeout: String(Math.round(timeoutMs)) })
    this.deadline = sentAt + timeoutMs
  }
}
