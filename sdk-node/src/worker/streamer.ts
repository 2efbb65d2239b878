import { status as Status, type ClientReadableStream } from '@grpc/grpc-js'
import type { ActivatedJob__Output } from '../generated/gateway_protocol/ActivatedJob.js'
import { toJobwireError, type JobwireError } from '../errors.js'
import { Backoff, sleep } from './backoff.js'
import type { WorkerContext } from './context.js'
import type { Executor } from './executor.js'
import type { Poller } from './poller.js'

/**
 * The push loop over StreamActivatedJobs. Backpressure: the readable stream is
 * paused whenever no slot is free, so grpc-js stops reading, the small HTTP/2
 * window fills and the gateway gives jobs to other workers. A stream that ends
 * or fails is reopened with backoff, forever, each time followed by a backfill
 * poll; UNIMPLEMENTED turns streaming off (polling alone), logged once.
 * @internal
 */
export class Streamer {
  private readonly backoff = new Backoff()
  private call: ClientReadableStream<ActivatedJob__Output> | undefined

  constructor(private readonly ctx: WorkerContext, private readonly exec: Executor, private readonly poller: Poller) {
    ctx.stopSignal.addEventListener('abort', () => this.call?.cancel(), { once: true })
  }

  /** Runs until the worker stops or the gateway lacks streaming; never throws. */
  async run(): Promise<void> {
    const { ctx } = this
    ctx.state.streamActive = true
    while (!ctx.stopSignal.aborted) {
      let err: JobwireError | undefined
      try {
        err = await this.openOnce()
      } catch (e) {
        err = toJobwireError(e, 'StreamActivatedJobs')
      }
      ctx.state.streamOpen = false
      if (ctx.stopSignal.aborted) break
      if (err?.code === Status.UNIMPLEMENTED) {
        ctx.logger.warn('the gateway does not implement StreamActivatedJobs; this worker polls only')
        ctx.state.streamActive = false
        ctx.state.update()
        return
      }
      ctx.telemetry.streamReconnect()
      const shortLived = Date.now() - this.openedAt < 1_000
      if ((!err && !shortLived) || (err?.code === Status.DEADLINE_EXCEEDED && this.recycled)) {
        // Expected close (recycle after streamTimeout, or the server ended it): reopen at once.
        ctx.logger.debug('job stream recycled; reopening')
        this.backoff.reset()
        continue // no state report: the stream is back at once
      }
      if (err?.code === Status.UNAUTHENTICATED && ctx.transport.hasAuth && !this.authRetried) {
        this.authRetried = true // token refused: a new one is fetched on reopen; retry once at once
        continue
      }
      if (!err) err = toJobwireError({ code: Status.UNAVAILABLE, details: 'stream ended right after opening' }, 'StreamActivatedJobs')
      if (err.code === Status.UNAUTHENTICATED || err.code === Status.PERMISSION_DENIED || err.code === Status.INVALID_ARGUMENT) {
        ctx.reportError(err)
      }
      const delay = err.code === Status.UNAUTHENTICATED || err.code === Status.PERMISSION_DENIED || err.code === Status.INVALID_ARGUMENT
        ? this.backoff.max()
        : this.backoff.next()
      ctx.logger.debug(`job stream closed (${err.codeName}: ${err.details}); reopening in ${delay} ms`)
      ctx.state.streamBackoff = true
      ctx.state.update()
      await sleep(delay, ctx.stopSignal)
      ctx.state.streamBackoff = false
      ctx.state.update()
    }
    ctx.state.streamActive = false
  }

  private recycled = false
  private authRetried = false
  private openedAt = 0

  /** Opens one stream and resolves when it ends (undefined) or fails (the error). */
  private async openOnce(): Promise<JobwireError | undefined> {
    const { ctx } = this
    const o = ctx.opts
    const req = { type: o.jobType, worker: o.workerName, timeout: String(o.jobTimeoutMs), fetchVariable: o.fetchVariables, tenantIds: o.tenantIds }
    const openedAt = Date.now()
    this.openedAt = openedAt
    this.recycled = false
    const { call, token } = await ctx.long.serverStream<ActivatedJob__Output>('StreamActivatedJobs', req, openedAt + o.streamTimeoutMs)
    this.call = call
    if (ctx.stopSignal.aborted) call.cancel()
    // Keep at most one decoded job buffered in the Readable (default is 16): the rest stays with the gateway.
    const rs = (call as unknown as { _readableState?: { highWaterMark: number } })._readableState
    if (rs && typeof rs.highWaterMark === 'number') rs.highWaterMark = 1

    ctx.state.streamOpen = true
    ctx.state.update()
    // Jobs created before (or while we were away) are not pushed: collect them with a poll.
    this.poller.requestBackfill()

    const off = ctx.ledger.onChange(() => {
      if (ctx.ledger.free > 0 && call.isPaused()) call.resume()
    })
    try {
      return await new Promise<JobwireError | undefined>((resolve) => {
        call.on('data', (job: ActivatedJob__Output) => {
          this.backoff.reset()
          this.authRetried = false
          const slot = ctx.ledger.tryTake()
          if (!slot) {
            // Cannot happen while we pause on a full ledger; if it does, give the job back at once.
            this.exec.giveBack(job, 'push')
          } else {
            this.exec.submit(job, slot, 'push')
          }
          if (ctx.ledger.free === 0) call.pause()
        })
        call.on('error', (e: unknown) => {
          const err = toJobwireError(e, 'StreamActivatedJobs')
          if (err.code === Status.UNAUTHENTICATED) ctx.transport.invalidateToken(token)
          if (err.code === Status.DEADLINE_EXCEEDED && Date.now() >= openedAt + o.streamTimeoutMs - 1_000) this.recycled = true
          resolve(err)
        })
        call.on('status', (s: { code: number }) => {
          if (s.code === Status.OK) resolve(undefined)
        })
        if (ctx.ledger.free === 0) call.pause()
      })
    } finally {
      off()
      this.call = undefined
    }
  }
}
