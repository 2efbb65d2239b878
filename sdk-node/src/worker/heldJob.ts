import type { ActivatedJob__Output } from '../generated/gateway_protocol/ActivatedJob.js'
import { JobwireError, type JobError } from '../errors.js'
import type { FailOptions, Job, ThrowErrorOptions, Variables } from '../job.js'
import { parseLossless, variablesToJson } from '../json.js'
import { MAX_MESSAGE, type OutcomeSender, type SendResult } from './outcome.js'
import type { Outcome } from './telemetry.js'

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

/** What an outcome send ended in: the outcome to count and, unless acknowledged, the typed error. */
export interface Settled {
  outcome: Outcome
  error?: JobwireError
}

function settle(kind: 'completed' | 'failed' | 'error', r: SendResult): Settled {
  if (r.result === 'ok') return { outcome: kind }
  if (r.result === 'not_found') return { outcome: 'not_found', error: r.error }
  return { outcome: 'undelivered', error: r.error }
}

/**
 * The held job: an activated job this worker holds, given to the handler as its `Job`, with its
 * one outcome (sent through the {@link OutcomeSender}) and its deadline. @internal
 */
export class HeldJob implements Job<Variables> {
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
  /** An outcome was claimed (sent or being sent): no other outcome is sent for this attempt. */
  outcomeSent = false
  /** The first outcome's result, once claimed. */
  private settling: Promise<Settled> | undefined
  private readonly claimWaiters: Array<() => void> = []

  constructor(
    raw: ActivatedJob__Output,
    readonly activation: 'push' | 'poll',
    private readonly outcomes: OutcomeSender,
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

  /** The first outcome's result, or undefined when none was claimed yet. */
  get settled(): Promise<Settled> | undefined {
    return this.settling
  }

  /**
   * Claims the job's one outcome and sends it. A second claim sends nothing: `strict` (the
   * public methods) rejects with an error, the worker's own paths get the first outcome's result.
   */
  private claim(what: string, strict: boolean, send: () => Promise<Settled>): Promise<Settled> {
    if (this.settling) {
      if (strict) return Promise.reject(new JobwireError(`jobwire: ${what} on job ${this.key}: an outcome was already sent for this job; nothing sent`))
      return this.settling
    }
    this.outcomeSent = true
    this.settling = send()
    for (const w of this.claimWaiters.splice(0)) w()
    return this.settling
  }

  /**
   * Manual mode: resolves with the outcome once one is claimed and settled, or `unsettled` once the
   * job's deadline (which extendTimeout moves) has passed with none, or when `signal` aborts.
   */
  async waitSettled(signal: AbortSignal): Promise<Outcome> {
    while (!this.settling) {
      const left = this.deadline - Date.now()
      if (left <= 0 || signal.aborted) return 'unsettled'
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, left)
        function done() {
          clearTimeout(t)
          signal.removeEventListener('abort', done)
          resolve()
        }
        this.claimWaiters.push(done)
        signal.addEventListener('abort', done, { once: true })
      })
    }
    return (await this.settling).outcome
  }

  /** Sends CompleteJob with already-serialized variables. */
  completeOutcome(varsJson: string, strict = false): Promise<Settled> {
    return this.claim('complete', strict, async () =>
      settle('completed', await this.outcomes.send('CompleteJob', { jobKey: this.key, variables: varsJson }, this.key, this.deadline, { quiet: strict })),
    )
  }

  failOutcome(o: FailOptions, strict = false): Promise<Settled> {
    const retries = o.retries ?? Math.max(0, this.retries - 1)
    let vars = ''
    try {
      vars = variablesToJson(o.variables, `fail variables of job ${this.key}`)
    } catch (err) {
      if (strict) return Promise.reject(err)
      this.outcomes.ctx.reportError(err as Error)
    }
    const backoff = o.retryBackOffMs ?? this.outcomes.ctx.opts.retryBackOffMs
    return this.claim('fail', strict, async () =>
      settle('failed', await this.outcomes.sendFail(this.key, retries, o.message ?? 'job failed', backoff, this.deadline, vars, strict)),
    )
  }

  throwErrorOutcome(e: ThrowErrorOptions | JobError, strict = false): Promise<Settled> {
    let vars: string
    try {
      vars = variablesToJson(e.variables, `error variables of job ${this.key}`)
    } catch (err) {
      if (strict) return Promise.reject(err)
      // Invalid variables: nothing bad is sent; the job fails with the reason instead.
      this.outcomes.ctx.reportError(err as Error)
      return this.failOutcome({ message: (err as Error).message })
    }
    const req = { jobKey: this.key, errorCode: e.code, errorMessage: (e.message ?? '').slice(0, MAX_MESSAGE), variables: vars }
    return this.claim('throwError', strict, async () => settle('error', await this.outcomes.send('ThrowError', req, this.key, this.deadline, { quiet: strict })))
  }

  /** Resolves when the engine acknowledged; rejects with the typed error (NotFoundError, ...) otherwise. */
  async complete(variables?: Record<string, unknown> | string): Promise<void> {
    const json = variablesToJson(variables, `complete of job ${this.key}`)
    const s = await this.completeOutcome(json, true)
    if (s.error) throw s.error
  }

  async fail(options?: FailOptions | string): Promise<void> {
    const s = await this.failOutcome(typeof options === 'string' ? { message: options } : (options ?? {}), true)
    if (s.error) throw s.error
  }

  async throwError(options: ThrowErrorOptions): Promise<void> {
    const s = await this.throwErrorOutcome(options, true)
    if (s.error) throw s.error
  }

  async extendTimeout(timeoutMs: number): Promise<void> {
    try {
      await this.extendTimeoutOrThrow(timeoutMs)
    } catch (e) {
      // benign for the process: the job is gone or the gateway refused; the caller sees it in the log
      this.outcomes.ctx.logger.warn(`extendTimeout of job ${this.key} failed: ${(e as Error).message}`)
    }
  }

  /** UpdateJobTimeout; throws typed errors (used by the auto-extender). */
  async extendTimeoutOrThrow(timeoutMs: number): Promise<void> {
    const sentAt = Date.now()
    await this.outcomes.updateTimeout(this.key, timeoutMs)
    this.deadline = sentAt + timeoutMs
  }
}
