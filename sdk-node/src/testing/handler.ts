// Level 1 of the test kit: run a handler through the worker's own executor with an in-process
// outcome sink instead of the gateway (no network, no engine).
import type { ActivatedJob__Output } from '../generated/gateway_protocol/ActivatedJob.js'
import type { Logger } from '../config.js'
import type { Job, Variables } from '../job.js'
import { parseLossless, variablesToJson, type JsonValue } from '../json.js'
import type { ExecutorContext } from '../worker/context.js'
import { Executor } from '../worker/executor.js'
import { HeldJob } from '../worker/heldJob.js'
import { Ledger, Slot } from '../worker/ledger.js'
import { resolveWorkerOptions, type JobHandler, type Middleware } from '../worker/options.js'
import type { RetryPolicy } from '../worker/retry.js'
import type { StandardSchemaV1 } from '../worker/schema.js'
import { MSG_CLOSING, type OutcomeMethod, type OutcomeSender, type SendResult } from '../worker/outcome.js'
import { Telemetry } from '../worker/telemetry.js'

/** Options of {@link makeJob}: the fields of the activated job. Every field has a default. */
export interface MakeJobOptions {
  /** Job variables: an object (bigint for int64 beyond 2^53) or a JSON object string. default: `{}` */
  variables?: Record<string, unknown> | string
  /** Task headers (zeebe:taskHeaders). default: `{}` */
  customHeaders?: Record<string, string>
  /** Retries left. default: 3 */
  retries?: number
  /** When the activation lapses, epoch ms. default: now + 300000 (the worker's default job timeout) */
  deadline?: number
  /** Job type. default: `"test"` */
  jobType?: string
  /** Job key (decimal string). default: a new key per job */
  key?: string
  /** Process instance key (decimal string). default: a new key per job */
  processInstanceKey?: string
  /** BPMN process id. default: `"test-process"` */
  bpmnProcessId?: string
  /** Process definition key (decimal string). default: `"1"` */
  processDefinitionKey?: string
  /** Process definition version. default: 1 */
  processDefinitionVersion?: number
  /** Id of the BPMN element that created the job. default: `"task"` */
  elementId?: string
  /** Element instance key (decimal string). default: a new key per job */
  elementInstanceKey?: string
  /** Worker name the job was activated for. default: `"test-worker"` */
  worker?: string
  /** Tenant of the job. default: `"<default>"` */
  tenantId?: string
}

/** How a handler run ended (what the worker sent, or would have sent, to the engine). */
export type HandlerOutcome = 'completed' | 'failed' | 'bpmnError' | 'cancelled'

/** The result of {@link runHandler}: the outcome the worker's execution path produced for the job. */
export interface HandlerRunResult {
  /** completed, failed (thrown error or `job.fail`), bpmnError (`JobError` or `job.throwError`), cancelled (handed back on close, retries unchanged). */
  outcome: HandlerOutcome
  /** Variables sent with the outcome (completed, bpmnError; failed when `job.fail` set some); `{}` when none. */
  variables: Record<string, JsonValue>
  /** Retries sent with FailJob (failed: usually job.retries − 1; cancelled: unchanged); otherwise the job's retries. */
  retries: number
  /** Error message sent with FailJob / ThrowError; undefined for completed. */
  errorMessage?: string
  /** Retry back-off sent with FailJob, ms (failed and cancelled). */
  retryBackoffMs?: number
  /** BPMN error code (bpmnError). */
  errorCode?: string
  /** What the handler threw, when it threw. */
  exception?: unknown
  /** The timeouts (ms) of the UpdateJobTimeout calls the worker made while the handler ran (auto-extend, `job.extendTimeout`), in order. */
  extensions: number[]
}

/** Options of {@link runHandler}: the worker options that shape a run, and the run's own limits. */
export interface RunHandlerOptions {
  /** The worker's `jobTimeoutMs`: the timeout auto-extend asks for. default: 300000 */
  jobTimeoutMs?: number
  /** The worker's `autoComplete`. default: true */
  autoComplete?: boolean
  /** The worker's `autoExtend`. default: false */
  autoExtend?: boolean
  /** The worker's `retryBackOffMs` (a fixed back-off after a handler error). default: unset (the retry policy decides) */
  retryBackOffMs?: number
  /** The worker's `retryPolicy`. default: the SDK's default policy (exponential back-off) */
  retryPolicy?: RetryPolicy
  /** The worker's `middleware`, outer first. default: none */
  middleware?: Middleware[]
  /** The worker's `variables` schema: the job's variables are validated (invalid input fails the job without the handler). default: none */
  variables?: StandardSchemaV1
  /** The worker's `customHeaders` schema. default: none */
  customHeaders?: StandardSchemaV1
  /** Closes the worker this long after the handler started, ms: the handler's `signal` aborts as on `worker.close()`. default: never */
  cancelAfterMs?: number
  /** How long the run may take before runHandler rejects, ms. default: 10000 */
  timeoutMs?: number
  /** Where the worker logs. default: nothing is logged */
  logger?: Logger
}

interface SentOutcome {
  method: OutcomeMethod
  req: Record<string, unknown>
}

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} }

/** The jobs makeJob built, with the activation they came from (runHandler hands that to the executor). */
const activations = new WeakMap<object, ActivatedJob__Output>()
let nextKey = 2251799813685248n

/** Records outcomes instead of sending them: the in-process sink of runHandler and of standalone jobs. */
class RecordingSink implements OutcomeSender {
  readonly sent: SentOutcome[] = []
  readonly extensions: number[] = []
  constructor(readonly ctx: ExecutorContext) {}

  sendFail(key: string, retries: number, message: string, backoffMs: number, deadline: number, variables = '', quiet = false): Promise<SendResult> {
    return this.send('FailJob', { jobKey: key, retries, errorMessage: message, retryBackOff: String(backoffMs), variables }, key, deadline, { quiet })
  }

  send(method: OutcomeMethod, req: object, _key?: string, _deadline?: number, _o?: { quiet?: boolean }): Promise<SendResult> {
    this.sent.push({ method, req: req as Record<string, unknown> })
    return Promise.resolve({ result: 'ok' })
  }

  updateTimeout(_key: string, timeoutMs: number): Promise<void> {
    this.extensions.push(Math.round(timeoutMs))
    return Promise.resolve()
  }
}

function contextFor(handler: JobHandler<never>, jobType: string, o: RunHandlerOptions): { ctx: ExecutorContext; errors: Error[] } {
  const opts = resolveWorkerOptions({
    jobType,
    handler: handler as JobHandler<Variables>,
    workerName: 'test-worker',
    maxJobsActive: 1,
    jobTimeoutMs: o.jobTimeoutMs,
    autoComplete: o.autoComplete,
    autoExtend: o.autoExtend,
    retryBackOffMs: o.retryBackOffMs,
    retryPolicy: o.retryPolicy,
    middleware: o.middleware,
    variables: o.variables as StandardSchemaV1<unknown, Variables> | undefined,
    customHeaders: o.customHeaders as StandardSchemaV1<unknown, Record<string, string>> | undefined,
  })
  const errors: Error[] = []
  const logger = o.logger ?? silent
  const ctx: ExecutorContext = {
    opts,
    logger,
    telemetry: new Telemetry(jobType, opts.workerName, () => 0),
    reportError: (e: Error) => {
      errors.push(e)
      logger.error(`jobwire: ${e.message}`)
    },
  }
  return { ctx, errors }
}

function newKey(): string {
  return String(nextKey++)
}

/**
 * Builds a job as the worker receives it: the SDK's own {@link Job} made from an ActivatedJob with
 * these fields, so typed variables and the Job API behave as in a real worker. Its outcome methods
 * (`complete`, `fail`, ...) record instead of sending, when called outside {@link runHandler}.
 *
 * @example
 * const job = makeJob({ variables: { orderId: 7 }, customHeaders: { region: 'eu' }, retries: 2 })
 */
export function makeJob<V = Variables>(options: MakeJobOptions = {}): Job<V> {
  const raw: ActivatedJob__Output = {
    key: options.key ?? newKey(),
    type: options.jobType ?? 'test',
    processInstanceKey: options.processInstanceKey ?? newKey(),
    bpmnProcessId: options.bpmnProcessId ?? 'test-process',
    processDefinitionVersion: options.processDefinitionVersion ?? 1,
    processDefinitionKey: options.processDefinitionKey ?? '1',
    elementId: options.elementId ?? 'task',
    elementInstanceKey: options.elementInstanceKey ?? newKey(),
    customHeaders: JSON.stringify(options.customHeaders ?? {}),
    worker: options.worker ?? 'test-worker',
    retries: options.retries ?? 3,
    deadline: String(options.deadline ?? Date.now() + 300_000),
    variables: variablesToJson(options.variables ?? {}, 'makeJob variables'),
    tenantId: options.tenantId ?? '<default>',
    kind: 'BPMN_ELEMENT',
    listenerEventType: 'UNSPECIFIED',
    tags: [],
  }
  const { ctx } = contextFor((() => undefined) as JobHandler<never>, raw.type, {})
  ctx.telemetry.dispose() // a job built here never runs in this context: nothing to observe
  const job = new HeldJob(raw, 'poll', new RecordingSink(ctx))
  activations.set(job, raw)
  return job as unknown as Job<V>
}

/** A slot of a one-job ledger that tells when the executor is done with the job. */
class WatchedSlot extends Slot {
  constructor(
    ledger: Ledger,
    private readonly onRelease: () => void,
  ) {
    super(ledger)
  }

  override release(): void {
    const first = !this.isReleased
    super.release()
    if (first) this.onRelease()
  }
}

function parseVars(json: unknown): Record<string, JsonValue> {
  if (typeof json !== 'string' || json === '') return {}
  const v = parseLossless(json)
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, JsonValue>) : {}
}

function toResult(raw: ActivatedJob__Output, sent: SentOutcome, exception: unknown, thrown: boolean, extensions: number[]): HandlerRunResult {
  const r = sent.req
  const base = { extensions, ...(thrown ? { exception } : {}) }
  switch (sent.method) {
    case 'CompleteJob':
      return { outcome: 'completed', variables: parseVars(r['variables']), retries: raw.retries, ...base }
    case 'ThrowError':
      return { outcome: 'bpmnError', variables: parseVars(r['variables']), retries: raw.retries, errorCode: String(r['errorCode']), errorMessage: String(r['errorMessage']), ...base }
    default: {
      const retries = Number(r['retries'])
      const cancelled = r['errorMessage'] === MSG_CLOSING && retries === raw.retries
      return {
        outcome: cancelled ? 'cancelled' : 'failed',
        variables: parseVars(r['variables']),
        retries,
        errorMessage: String(r['errorMessage']),
        retryBackoffMs: Number(r['retryBackOff']),
        ...base,
      }
    }
  }
}

/**
 * Runs `handler` on `job` exactly as a worker does (the worker's executor: auto-complete, BPMN
 * errors, failures with retries − 1, auto-extend, cancellation on close), with an in-process sink
 * in place of the gateway; resolves to the outcome the worker sent. Rejects when the run takes
 * longer than `timeoutMs`, or ends without an outcome (a manual-completion handler that never
 * settled the job before its deadline, or a job whose deadline had passed).
 *
 * @example
 * const result = await runHandler(async (job) => ({ total: job.variables.price * 2 }), makeJob({ variables: { price: 21 } }))
 * assert.equal(result.outcome, 'completed')
 * assert.deepEqual(result.variables, { total: 42 })
 */
export async function runHandler<V = Variables>(handler: JobHandler<V>, job: Job<V>, options: RunHandlerOptions = {}): Promise<HandlerRunResult> {
  const raw = activations.get(job as object)
  if (!raw) throw new TypeError('jobwire: runHandler needs a job built by makeJob()')
  let exception: unknown
  let thrown = false
  const observed: JobHandler<V> = async (j, c) => {
    try {
      return await handler(j, c)
    } catch (e) {
      exception = e
      thrown = true
      throw e
    }
  }
  const { ctx, errors } = contextFor(observed as JobHandler<never>, raw.type, options)
  const sink = new RecordingSink(ctx)
  const executor = new Executor(ctx, sink)
  const timeoutMs = options.timeoutMs ?? 10_000
  const timers: NodeJS.Timeout[] = []
  try {
    await new Promise<void>((resolve, reject) => {
      const ledger = new Ledger(1)
      ledger.tryTake() // the ledger's one slot, held by the watched slot below
      const slot = new WatchedSlot(ledger, resolve)
      timers.push(
        setTimeout(() => {
          void executor.close(0)
          reject(new Error(`jobwire: runHandler: the handler did not finish within ${timeoutMs} ms`))
        }, timeoutMs),
      )
      if (options.cancelAfterMs !== undefined) timers.push(setTimeout(() => void executor.close(0), options.cancelAfterMs))
      executor.submit(raw, slot, 'poll')
    })
  } finally {
    for (const t of timers) clearTimeout(t)
    ctx.telemetry.dispose()
  }
  const sent = sink.sent[0]
  if (!sent) {
    const why = errors.length > 0 ? `: ${errors.map((e) => e.message).join('; ')}` : ''
    throw new Error(`jobwire: runHandler: the job ended without an outcome (its deadline passed before the handler started or before it settled the job)${why}`)
  }
  return toResult(raw, sent, exception, thrown, [...sink.extensions])
}
