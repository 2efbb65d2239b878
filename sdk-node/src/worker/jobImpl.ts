import type { ActivatedJob__Output } from '../generated/gateway_protocol/ActivatedJob.js'
import type { JobError } from '../errors.js'
import type { FailOptions, Job, ThrowErrorOptions, Variables } from '../job.js'
import { parseLossless, variablesToJson } from '../json.js'
import type { Executor, OutcomeResult } from './executor.js'
import type { Outcome } from './telemetry.js'

/** Longest error message sent with FailJob / ThrowError. */
export const MAX_MESSAGE = 2_000

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
