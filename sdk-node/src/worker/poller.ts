import { status as Status, type ClientReadableStream } from '@grpc/grpc-js'
import type { ActivateJobsResponse__Output } from '../generated/gateway_protocol/ActivateJobsResponse.js'
import type { ActivatedJob__Output } from '../generated/gateway_protocol/ActivatedJob.js'
import { toJobwireError, type JobwireError } from '../errors.js'
import { Backoff, sleep } from './backoff.js'
import type { WorkerContext } from './context.js'
import type { Executor } from './executor.js'

/** Poll only when at most this share of the capacity is held (or a backfill is due). */
const THRESHOLD = 0.3
/**
 * Held must stay above the threshold this long before a parked poll is cancelled (same in every SDK):
 * a poll response already in flight when the stream filled the worker arrives meanwhile and is handed
 * back losslessly; cancelling at once would drop it in the transport until its activation timeout.
 */
const CANCEL_DELAY_MS = 100
/** The RPC deadline is the long-poll time plus this. */
const DEADLINE_OFFSET_MS = 10_000
/** Activation errors that need a human: reported loudly, retried at the maximum backoff. */
const LOUD = new Set<number>([Status.INVALID_ARGUMENT, Status.PERMISSION_DENIED, Status.UNAUTHENTICATED])

/**
 * The poll loop: reserve (size the request by free slots) → receive (a slot
 * per job) → run (executor) → release (executor). At most one ActivateJobs in flight.
 * @internal
 */
export class Poller {
  private backfillDue = true // the first poll collects the backlog
  private readonly backoff = new Backoff()
  private kick: (() => void) | undefined
  private authRetried = false
  private call: ClientReadableStream<ActivateJobsResponse__Output> | undefined

  constructor(private readonly ctx: WorkerContext, private readonly exec: Executor) {
    ctx.stopSignal.addEventListener('abort', () => this.call?.cancel(), { once: true })
  }

  /** Asks for one poll even above the threshold (after a stream (re)open). */
  requestBackfill(): void {
    this.backfillDue = true
    this.kick?.()
  }

  /** Runs until the worker stops; never throws. */
  async run(): Promise<void> {
    const { ctx } = this
    const { ledger, stopSignal } = ctx
    while (!stopSignal.aborted) {
      await this.waitForTurn()
      if (stopSignal.aborted) break
      this.backfillDue = false
      const want = ledger.free
      const started = Date.now()
      let got = 0
      try {
        const r = await this.poll(want)
        if (r.cancelled && !stopSignal.aborted) {
          // The stream filled the worker past the threshold while the poll was parked:
          // poll again once held falls back to it (no backoff).
          ctx.logger.debug('parked poll cancelled: the stream filled the worker past the poll threshold')
          ctx.telemetry.pollRequest('cancelled')
          continue
        }
        got = r.got
      } catch (e) {
        if (stopSignal.aborted) break
        await this.onError(toJobwireError(e, 'ActivateJobs'))
        continue
      }
      this.backoff.reset()
      this.authRetried = false
      ctx.telemetry.pollRequest(got > 0 ? 'jobs' : 'empty')
      const rt = ctx.opts.requestTimeoutMs
      const longPolled = rt >= 0 && Date.now() - started >= (rt === 0 ? 10_000 : rt) / 2
      if (got === 0 && !longPolled) await sleep(ctx.opts.pollIntervalMs, stopSignal)
    }
  }

  private waitForTurn(): Promise<void> {
    const { ledger, stopSignal } = this.ctx
    const ready = () => ledger.free > 0 && (ledger.held <= ledger.max * THRESHOLD || this.backfillDue)
    if (ready() || stopSignal.aborted) return Promise.resolve()
    return new Promise((resolve) => {
      const check = () => {
        if (ready() || stopSignal.aborted) {
          off()
          stopSignal.removeEventListener('abort', check)
          this.kick = undefined
          resolve()
        }
      }
      const off = ledger.onChange(check)
      stopSignal.addEventListener('abort', check, { once: true })
      this.kick = check
    })
  }

  /**
   * One ActivateJobs call; resolves with the number of jobs received. While it is parked (no job
   * received yet), a rise of held from at most the threshold to above it cancels the call
   * (`cancelled`): the gateway fails back whatever it activated for it.
   */
  private async poll(max: number): Promise<{ got: number; cancelled: boolean }> {
    const { ctx } = this
    const o = ctx.opts
    const req = {
      type: o.jobType,
      worker: o.workerName,
      timeout: String(o.jobTimeoutMs),
      maxJobsToActivate: max,
      fetchVariable: o.fetchVariables,
      requestTimeout: String(o.requestTimeoutMs),
      tenantIds: o.tenantIds,
    }
    const deadline = Date.now() + Math.max(0, o.requestTimeoutMs) + DEADLINE_OFFSET_MS
    const { call, token } = await ctx.long.serverStream<ActivateJobsResponse__Output>('ActivateJobs', req, deadline)
    this.call = call
    if (ctx.stopSignal.aborted) call.cancel()
    let got = 0
    let cancelled = false
    const { ledger } = ctx
    const above = () => ledger.held > ledger.max * THRESHOLD
    let below = !above()
    let timer: NodeJS.Timeout | undefined
    const off = ledger.onChange(() => {
      if (!above()) {
        below = true
        clearTimeout(timer)
        timer = undefined
      } else if (below && got === 0 && !cancelled && !timer) {
        // Held must stay above the threshold for CANCEL_DELAY_MS: a response already in flight
        // arrives meanwhile and is handed back losslessly instead of being dropped by the cancel.
        timer = setTimeout(() => {
          timer = undefined
          if (above() && got === 0 && !cancelled) {
            cancelled = true
            call.cancel()
          }
        }, CANCEL_DELAY_MS)
      }
    })
    try {
      await new Promise<void>((resolve, reject) => {
        call.on('data', (res: ActivateJobsResponse__Output) => {
          for (const job of res.jobs) {
            got++
            this.receive(job)
          }
        })
        call.on('error', (e: unknown) => {
          if (cancelled) return resolve()
          const err = toJobwireError(e, 'ActivateJobs')
          if (err.code === Status.UNAUTHENTICATED) ctx.transport.invalidateToken(token)
          reject(err)
        })
        call.on('end', () => resolve())
      })
    } finally {
      off()
      clearTimeout(timer)
      this.call = undefined
    }
    return { got, cancelled: cancelled && got === 0 }
  }

  private receive(job: ActivatedJob__Output): void {
    const slot = this.ctx.ledger.tryTake()
    if (slot) {
      this.exec.submit(job, slot, 'poll')
      return
    }
    // The stream filled the capacity while this poll was parked: give the job back at once.
    this.exec.giveBack(job, 'poll')
  }

  private async onError(err: JobwireError): Promise<void> {
    const { ctx } = this
    ctx.telemetry.pollRequest('error')
    let delay: number
    if (err.code === Status.UNAUTHENTICATED && ctx.transport.hasAuth && !this.authRetried) {
      // The token was refused (expired early, rotated): fetch a new one and retry once at once.
      this.authRetried = true
      return
    }
    if (err.code !== undefined && LOUD.has(err.code)) {
      ctx.reportError(err)
      delay = this.backoff.max()
    } else {
      delay = this.backoff.next()
      ctx.logger.debug(`poll failed (${err.codeName}: ${err.details}); backing off ${delay} ms`)
    }
    ctx.state.pollBackoff = true
    ctx.state.update()
    await sleep(delay, ctx.stopSignal)
    ctx.state.pollBackoff = false
    ctx.state.update()
  }
}
