import type { Logger } from '../config.js'
import type { LongLease, Transport } from '../transport.js'
import type { Variables } from '../job.js'
import type { Ledger } from './ledger.js'
import type { ResolvedWorkerOptions } from './options.js'
import type { StateMachine } from './state.js'
import type { Telemetry } from './telemetry.js'

/** What the parts of one worker share. @internal */
export interface WorkerContext {
  readonly opts: ResolvedWorkerOptions<Variables>
  readonly transport: Transport
  /** This worker's place for long polls and the push stream. */
  readonly long: LongLease
  readonly ledger: Ledger
  readonly state: StateMachine
  readonly telemetry: Telemetry
  readonly logger: Logger
  /** Aborted when close() starts: stop taking jobs at once. */
  readonly stopSignal: AbortSignal
  /** Set by close() before stopSignal aborts: bounds the stream drain. */
  closeTimeoutMs?: number
  /**
   * Logs at warn a connection failure that needs a human (a TLS certificate or handshake problem),
   * at most once per 30 s per message; other failures stay at debug. Never throws.
   */
  warnConnection(err: { message: string; details?: string }): void
  /** Reports an error to the application ('error' listener, else the log). Never throws. */
  reportError(err: Error): void
}

/** The part of a {@link WorkerContext} that running handlers and sending their outcomes needs (the executor; the test kit's in-process runs). @internal */
export type ExecutorContext = Pick<WorkerContext, 'opts' | 'telemetry' | 'logger' | 'reportError'>
