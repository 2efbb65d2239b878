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
export class Worker<V = Variables> extends EventEmitter<WorkerEvents> {
  /** The options after defaults. */
  readonly options: Readonly<ResolvedWorkerOptions<V>>
  private readonly machine: StateMachine
  private readonly ledger: Ledger
  private readonly executor: Executor
  private readonly stop = new AbortController()
  private readonly telemetry: Telemetry
  private readonly long: LongLease
  private readonly loops: Promise<void>[] = []
  private closePromise: Promise<void> | undefined

  /** @internal use Client.createWorker */
  constructor(transport: Transport, options: WorkerOptions<V>, private readonly logger: Logger) {
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
    }
    this.executor = new Executor(ctx)
    const poller = new Poller(ctx, this.executor)
    // Start on the next tick so listeners attached right after createWorker see every state.
    setImmediate(() => {
      if (this.stop.signal.aborted) return
      this.machine.start()
      if (this.options.streamEnabled) {
        ctx.state.streamActive = true
        this.loops.push(new Streamer(ctx, this.executor, poller).run())
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

  /**
   * Stops taking jobs at once (cancels the parked long poll and the stream),
   * fails back received-but-unstarted jobs (retries unchanged, no backoff),
   * lets running handlers finish until `timeoutMs`, then aborts their signal.
   * Resolves when the worker is closed; calling it again returns the same promise.
   */
  close(options: { timeoutMs?: number } = {}): Promise<void> {
    if (!this.closePromise) this.closePromise = this.doClose(options.timeoutMs ?? 30_000)
    return this.closePromise
  }

  private async doClose(timeoutMs: number): Promise<void> {
    this.machine.closing()
    this.stop.abort()
    await this.executor.close(timeoutMs)
    await Promise.allSettled(this.loops)
    this.long.release()
    // The capacity gauge keeps reporting (0 once closed) so exporters still see the last value.
    this.machine.closed()
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
