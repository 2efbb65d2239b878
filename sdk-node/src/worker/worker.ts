import { EventEmitter } from 'node:events'
import type { Logger } from '../config.js'
import type { Variables } from '../job.js'
import type { LongLease, Transport } from '../transport.js'
import type { WorkerContext } from './context.js'
import { Executor } from './executor.js'
import { Ledger } from './ledger.js'
import { resolveWorkerOptions, type ResolvedWorkerOptions, type WorkerOptions } from './options.js'
import { Poller } from './poller.js'
import { StateMachine, type WorkerState } from './state.js'
import { Streamer } from './streamer.js'
import { Telemetry } from './telemetry.js'

/** Events of a {@link Worker}. */
export interface WorkerEvents {
  /** Every lifecycle transition. */
  state: [state: WorkerState]
  /** Errors the application should see (auth, invalid requests, outcomes given up). Only emitted when a listener exists; otherwise logged. */
  error: [error: Error]
}

/**
 * A job worker: created by {@link Client.createWorker}, it starts at once
 * (push + poll) and runs until {@link Worker.close}. Transport errors never
 * escape as exceptions: they move the worker to `backoff` and it retries forever.
 *
 * @example
 * const worker = client.createWorker({ jobType: 'email', handler: async (job) => ({ sent: true }) })
 * worker.on('state', (s) => console.log('worker is', s))
 * process.on('SIGTERM', () => worker.close({ timeoutMs: 10_000 }))
 */
export class Worker<V = Variables, H = Record<string, string>> extends EventEmitter<WorkerEvents> {
  /** The options after defaults. */
  readonly options: Readonly<ResolvedWorkerOptions<V, H>>
  private readonly machine: StateMachine
  private readonly ledger: Ledger
  private readonly executor: Executor
  private readonly stop = new AbortController()
  private readonly telemetry: Telemetry
  private readonly long: LongLease
  private readonly loops: Promise<void>[] = []
  private closePromise: Promise<void> | undefined
  private readonly ctx: WorkerContext
  private streamer: Streamer | undefined

  /** @internal use Client.createWorker */
  constructor(transport: Transport, options: WorkerOptions<V, H>, private readonly logger: Logger, private readonly onClosed: () => void = () => {}) {
    super()
    this.options = resolveWorkerOptions(options)
    this.ledger = new Ledger(this.options.maxJobsActive)
    this.machine = new StateMachine((s) => this.safeEmit('state', s))
    this.long = transport.leaseLong()
    this.telemetry = new Telemetry(this.options.jobType, this.options.workerName, () => this.ledger.held)
    const ctx: WorkerContext = {
      opts: this.options as unknown as ResolvedWorkerOptions<Variables>,
      transport,
      long: this.long,
      ledger: this.ledger,
      state: this.machine,
      telemetry: this.telemetry,
      logger,
      stopSignal: this.stop.signal,
      reportError: (e) => this.reportError(e),
      warnConnection: (e) => this.warnConnection(e),
    }
    this.ctx = ctx
    this.executor = new Executor(ctx)
    const poller = new Poller(ctx, this.executor)
    // Start on the next tick so listeners attached right after createWorker see every state.
    setImmediate(() => {
      if (this.stop.signal.aborted) return
      this.machine.start()
      if (this.options.streamEnabled) {
        ctx.state.streamActive = true
        this.streamer = new Streamer(ctx, this.executor, poller)
        this.loops.push(this.streamer.run())
      }
      this.loops.push(poller.run())
    })
  }

  /** Current lifecycle state: idle | polling | streaming | backoff | closing | closed. */
  get state(): WorkerState {
    return this.machine.state
  }

  /** Jobs held right now (received, not yet finished); never above maxJobsActive. */
  get heldJobs(): number {
    return this.ledger.held
  }

  /** Jobs handed back by stream drains (close, recycles) so far. */
  get drainedJobs(): number {
    return this.streamer?.handedBack ?? 0
  }

  /**
   * Stops taking jobs at once (cancels the parked long poll, drains the stream
   * and hands back every job it had buffered), fails back received-but-unstarted
   * jobs (retries unchanged, no backoff),
   * lets running handlers finish until `timeoutMs`, then aborts their signal.
   * Resolves when the worker is closed; calling it again returns the same promise.
   */
  close(options: { timeoutMs?: number } = {}): Promise<void> {
    if (!this.closePromise) {
      const t = options.timeoutMs ?? 30_000
      if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) return Promise.reject(new RangeError(`jobwire: close timeoutMs must be a number ≥ 0, got ${String(t)}`))
      this.closePromise = this.doClose(t)
    }
    return this.closePromise
  }

  private async doClose(timeoutMs: number): Promise<void> {
    this.machine.closing()
    this.ctx.closeTimeoutMs = timeoutMs
    this.stop.abort()
    await Promise.allSettled([this.executor.close(timeoutMs), ...this.loops])
    this.long.release()
    // A closed worker leaves the meter and its client (no leak with dynamic workers).
    this.telemetry.dispose()
    this.onClosed()
    this.machine.closed()
  }

  /** Connection warnings given: message key -> time until which it is not repeated. */
  private readonly warned = new Map<string, number>()

  private warnConnection(err: { message: string; details?: string }): void {
    const text = err.details || err.message
    if (!/certificate|ssl|tls|handshake|altnames/i.test(text)) return
    const now = Date.now()
    const key = connectionWarningKey(text)
    if ((this.warned.get(key) ?? 0) > now) return
    for (const [k, until] of this.warned) if (until <= now) this.warned.delete(k)
    this.warned.set(key, now + 30_000)
    this.logger.warn(`worker ${this.options.jobType}: cannot connect to the gateway (TLS certificate or handshake problem; retrying with backoff): ${text}`)
  }

  private reportError(err: Error): void {
    if (this.listenerCount('error') > 0) this.safeEmit('error', err)
    else this.logger.error(`worker ${this.options.jobType}: ${err.message}`)
  }

  // A throwing listener must never break the worker's loops.
  private safeEmit<K extends keyof WorkerEvents>(event: K, ...args: WorkerEvents[K]): void {
    try {
      ;(this.emit as (e: string, ...a: unknown[]) => boolean)(event, ...args)
    } catch (e) {
      this.logger.error(`a '${event}' listener threw: ${String(e)}`)
    }
  }
}

/**
 * What makes two connection failures "the same message" for the once-per-30-s warning: grpc-js
 * stamps each failure with its time ("… (2026-11-26T11:42:41.720Z). Resolution note: …"), so
 * the raw text would differ every time (a warning per retry, and one map entry per retry).
 * @internal
 */
export function connectionWarningKey(text: string): string {
  return text.replace(/\(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\)/g, '(…)')
}
