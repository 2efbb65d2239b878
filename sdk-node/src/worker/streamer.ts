import { status as Status, type ClientReadableStream } from '@grpc/grpc-js'
import type { ActivatedJob__Output } from '../generated/gateway_protocol/ActivatedJob.js'
import { toJobwireError, type JobwireError } from '../errors.js'
import { Backoff, sleep } from './backoff.js'
import { activationDecision } from './codes.js'
import type { WorkerContext } from './context.js'
import type { Executor } from './executor.js'
import { MSG_CLOSING, MSG_RECYCLED } from './outcome.js'
import type { Poller } from './poller.js'
import { ReadGate, STREAM_ID_HEADER, type LongLease } from '../transport.js'

/** A stream that held a reserved slot this long without a delivery while a poll found jobs is stalled. */
export const STALL_MS = 2_000
/** At most one stall recycle per this interval. */
export const STALL_RECYCLE_INTERVAL_MS = 10_000
/** Draining ends when the stream was quiet this long... */
export const DRAIN_QUIET_MS = 50
/** ...or after this long (at close too: the close timeout does not cut the drain short; it bounds the wait for running handlers). */
export const DRAIN_MAX_MS = 500

type RecycleReason = 'recycled' | 'stalled'

/**
 * One open StreamActivatedJobs call. The reader reads only while it holds a
 * reserved slot (the readable stream is paused otherwise), so a pushed job
 * always lands in a slot of its own and, while the worker is full, the small
 * HTTP/2 window fills and the gateway gives jobs to other workers.
 */
class StreamSession {
  reserved = false
  armedSince = 0
  lastDelivery = 0
  draining = false
  private arming = false
  private readonly aside: ActivatedJob__Output[] = []
  private offLedger: () => void = () => {}
  private lastData = 0
  private wake: (() => void) | undefined
  /** Jobs this worker took from the stream (each is run or handed back by it). */
  private nread = 0
  /** The gateway's jobwire-stream-id response header (absent on Zeebe). */
  private streamId: string | undefined

  constructor(
    readonly call: ClientReadableStream<ActivatedJob__Output>,
    private readonly gate: ReadGate,
    readonly openedAt: number,
    private readonly ctx: WorkerContext,
    private readonly exec: Executor,
    private readonly long: LongLease,
  ) {
    this.lastDelivery = openedAt
    this.call.on('metadata', (md: { get(k: string): unknown[] }) => {
      const v = md.get(STREAM_ID_HEADER)
      if (v.length === 1 && typeof v[0] === 'string') this.streamId = v[0]
    })
  }

  start(): void {
    this.offLedger = this.ctx.ledger.onChange(() => this.arm())
    this.call.on('data', (job: ActivatedJob__Output) => this.onData(job))
    this.arm()
  }

  /**
   * Reserve a slot and read (ledger.reserveStream: a free slot, or one of a parked poll's pool; none
   * while a poll is due), or pause. The reader reads exactly while the ledger says it holds its
   * reservation; a due poll (backfill, fairness) never takes a reservation the reader holds (rule 8:
   * the read has started, its job lands there), it gets the next slot that frees.
   */
  arm(): void {
    if (this.draining || this.arming) return
    this.arming = true
    try {
      const holds = this.ctx.ledger.reserveStream()
      if (holds && !this.reserved) {
        this.reserved = true
        this.armedSince = Date.now()
        this.gate.grant(1) // read exactly one job: it lands in this slot
      } else if (!holds && this.reserved) {
        this.reserved = false // the ledger holds no reservation for the reader: stop reading
        this.gate.revoke()
      }
    } finally {
      this.arming = false
    }
  }

  private onData(job: ActivatedJob__Output): void {
    const { ctx } = this
    if (this.released) return // after ReleaseUnread's count: never run, the gateway hands it back
    this.nread++
    if (this.draining) {
      // Stopped running jobs from this stream: set aside, handed back after the cancel.
      this.lastData = Date.now()
      this.aside.push(job)
      this.wake?.()
      return
    }
    this.lastDelivery = Date.now()
    // The reservation becomes the job's slot. Without one (cannot happen while we read only with a
    // reserved slot) it takes a free slot, else it is given back.
    this.reserved = false
    const slot = ctx.ledger.claimStream()
    if (slot) this.exec.submit(job, slot, 'push')
    else this.exec.giveBack(job, 'push')
    this.arm()
  }

  /** The stream ended or failed: read nothing more and give the reservation back. */
  stopReading(): void {
    if (this.draining) return
    this.draining = true
    this.offLedger()
    if (this.reserved) {
      this.reserved = false
      this.gate.revoke()
      this.ctx.ledger.dropStream()
    }
    this.call.cancel()
  }

  /**
   * Stops running jobs from this stream but keeps reading it, setting every job aside; when it has
   * been quiet DRAIN_QUIET_MS or `maxMs` passed, cancels it and then hands every job set aside back.
   */
  async drain(message: string, maxMs: number): Promise<number> {
    if (this.draining) return 0
    this.draining = true
    this.offLedger()
    if (this.reserved) {
      this.reserved = false
      this.ctx.ledger.dropStream()
    }
    const start = Date.now()
    this.lastData = start
    this.gate.revoke()
    this.gate.grant(Infinity) // read everything buffered, to hand it back
    let ended = false
    const onEnd = () => {
      ended = true
      this.wake?.()
    }
    this.call.on('end', onEnd)
    this.call.on('error', onEnd)
    this.call.on('status', onEnd)
    for (;;) {
      const now = Date.now()
      const quietLeft = this.lastData + DRAIN_QUIET_MS - now
      const maxLeft = start + maxMs - now
      if (ended || quietLeft <= 0 || maxLeft <= 0) break
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(quietLeft, maxLeft))
        this.wake = () => {
          clearTimeout(t)
          resolve()
        }
      })
      this.wake = undefined
    }
    this.call.cancel()
    const jobs = this.aside.splice(0)
    await Promise.allSettled([this.releaseUnread(), ...jobs.map((j) => this.exec.handBack(j, 'push', message))])
    return jobs.length
  }

  private released = false

  /**
   * Asks a jobwire gateway to hand back what the (cancelled) stream sent and this worker never read:
   * jobs still in transport when the drain ended (docs/worker-semantics.md, push and poll rule 7).
   * The count is final: from here on a message still arriving is dropped, not run. A gateway without
   * the stream id header (Zeebe) is not asked; an error is logged at debug level (those jobs return
   * after their activation timeout).
   */
  private async releaseUnread(): Promise<void> {
    this.released = true
    const read = this.nread
    if (!this.streamId) return
    try {
      const r = await this.long.releaseUnread(this.streamId, read)
      if (Number(r.released) > 0) this.ctx.logger.debug(`released ${r.released} unread job(s) of the job stream (sent ${r.messagesSent}, read ${read})`)
    } catch (e) {
      this.ctx.logger.debug(`could not release the job stream's unread jobs; they return after their activation timeout: ${e instanceof Error ? e.message : String(e)}`)
    }
  }
}

/**
 * The push loop over StreamActivatedJobs. A stream that fails is reopened with
 * backoff, forever, each time followed by a backfill poll; a stream the gateway
 * ends cleanly is reopened at once. A healthy stream is recycled after
 * streamTimeout, or at once when it stalled; close and recycle drain the stream
 * instead of dropping what it buffered. UNIMPLEMENTED turns streaming off
 * (polling alone), logged once.
 * @internal
 */
export class Streamer {
  private readonly backoff: Backoff
  private current: StreamSession | undefined
  private recycle: ((reason: RecycleReason) => void) | undefined
  private lastStallRecycle = 0
  private readonly drains = new Set<Promise<unknown>>()
  private authRetried = false
  /** Jobs handed back by drains (close and recycles), for tests and the README numbers. */
  handedBack = 0

  constructor(private readonly ctx: WorkerContext, private readonly exec: Executor, private readonly poller: Poller) {
    this.backoff = new Backoff(Math.random, ctx.transport.config.backoff)
    poller.onJobsFound = () => this.checkStall()
  }

  /** Runs until the worker stops or the gateway lacks streaming; never throws. */
  async run(): Promise<void> {
    const { ctx } = this
    ctx.state.streamActive = true
    while (!ctx.stopSignal.aborted) {
      let res: { err?: JobwireError; recycled?: RecycleReason; stream?: StreamSession; openedAt: number }
      try {
        res = await this.openOnce()
      } catch (e) {
        res = { err: toJobwireError(e, 'StreamActivatedJobs'), openedAt: Date.now() }
      }
      ctx.state.streamOpen = false
      // The stream failed (or the gateway lacks it): polling must not wait for it any longer.
      if (res.err) this.poller.begin()
      if (ctx.stopSignal.aborted) {
        if (res.stream) await this.drainStream(res.stream, MSG_CLOSING, DRAIN_MAX_MS) // not cut by the close timeout (rule 7)
        break
      }
      if (res.recycled) {
        // Expected: open the new stream at once; the old one is drained meanwhile.
        ctx.telemetry.streamReconnect(res.recycled)
        if (res.stream) void this.drainStream(res.stream, MSG_RECYCLED, DRAIN_MAX_MS)
        this.backoff.reset()
        continue
      }
      res.stream?.stopReading()
      const { err } = res
      if (err && activationDecision('stream', err.code) === 'polling_only') {
        ctx.logger.warn('the gateway does not implement StreamActivatedJobs; this worker polls only')
        ctx.state.streamActive = false
        ctx.state.update()
        return
      }
      const shortLived = Date.now() - res.openedAt < 1_000
      if (!err) {
        // The gateway ended the stream cleanly: expected, reopened at once (after the shared backoff
        // when it lived less than 1 s, so a gateway that ends every stream at once is not hammered).
        ctx.telemetry.streamReconnect('closed')
        if (!shortLived) {
          ctx.logger.debug('job stream ended by the gateway; reopening')
          this.backoff.reset()
          continue
        }
        const delay = this.backoff.next()
        ctx.logger.debug(`job stream ended by the gateway right after opening; reopening in ${delay} ms`)
        await sleep(delay, ctx.stopSignal)
        continue
      }
      ctx.telemetry.streamReconnect('error')
      if (err.code === Status.UNAUTHENTICATED && ctx.transport.hasAuth && !this.authRetried) {
        this.authRetried = true // token refused: a new one is fetched on reopen; retry once at once
        continue
      }
      const loud = activationDecision('stream', err.code) === 'max_backoff_report'
      if (loud) ctx.reportError(err)
      const delay = loud ? this.backoff.max() : this.backoff.next()
      ctx.logger.debug(`job stream closed (${err.codeName}: ${err.details || err.message}); reopening in ${delay} ms`)
      ctx.warnConnection(err)
      if (err.code === Status.UNAVAILABLE) ctx.long.failover()
      ctx.state.streamBackoff = true
      ctx.state.update()
      await sleep(delay, ctx.stopSignal)
      ctx.state.streamBackoff = false
      ctx.state.update()
    }
    await Promise.allSettled([...this.drains])
    ctx.state.streamActive = false
  }

  private drainStream(s: StreamSession, message: string, maxMs: number): Promise<unknown> {
    const p = s.drain(message, maxMs).then((n) => {
      this.handedBack += n
      if (n > 0) this.ctx.logger.debug(`drained job stream: ${n} buffered job(s) handed back`)
    })
    this.drains.add(p)
    void p.finally(() => this.drains.delete(p))
    return p
  }

  /** A poll found jobs: if the stream sat on a reserved slot for STALL_MS meanwhile, it is stalled. */
  private checkStall(): void {
    const s = this.current
    const now = Date.now()
    if (!s || s.draining || !s.reserved || !this.recycle) return
    if (now - Math.max(s.armedSince, s.lastDelivery, s.openedAt) < STALL_MS) return
    if (now - this.lastStallRecycle < STALL_RECYCLE_INTERVAL_MS) return
    this.lastStallRecycle = now
    this.ctx.logger.info(`job stream of ${this.ctx.opts.jobType} delivered nothing for ${STALL_MS} ms while a poll found jobs; recycling it`)
    this.recycle('stalled')
  }

  /** Opens one stream and resolves when it ends, fails, or is to be recycled. */
  private async openOnce(): Promise<{ err?: JobwireError; recycled?: RecycleReason; stream?: StreamSession; openedAt: number }> {
    const { ctx } = this
    const o = ctx.opts
    const req = { type: o.jobType, worker: o.workerName, timeout: String(o.jobTimeoutMs), fetchVariable: o.fetchVariables, tenantIds: o.tenantIds }
    const openedAt = Date.now()
    // The recycle after streamTimeout is ours (a timer, then a drain); the RPC deadline is only a safety net.
    // Nothing passes the gate until the reader holds a reserved slot.
    const gate = new ReadGate()
    const { call, token } = await ctx.long.serverStream<ActivatedJob__Output>('StreamActivatedJobs', req, openedAt + o.streamTimeoutMs + 60_000, gate)
    const s = new StreamSession(call, gate, openedAt, ctx, this.exec, ctx.long)
    if (ctx.stopSignal.aborted) return { stream: s, openedAt }
    this.current = s
    ctx.state.streamOpen = true
    ctx.state.update()
    let timer: NodeJS.Timeout | undefined
    let onStop: (() => void) | undefined
    try {
      return await new Promise((resolve) => {
        this.recycle = (reason) => resolve({ recycled: reason, stream: s, openedAt })
        timer = setTimeout(() => {
          ctx.logger.debug('job stream reached streamTimeout; recycling')
          this.recycle?.('recycled')
        }, o.streamTimeoutMs)
        onStop = () => resolve({ stream: s, openedAt })
        ctx.stopSignal.addEventListener('abort', onStop, { once: true })
        call.on('error', (e: unknown) => {
          const err = toJobwireError(e, 'StreamActivatedJobs')
          if (err.code === Status.UNAUTHENTICATED) ctx.transport.invalidateToken(token)
          resolve({ err, stream: s, openedAt })
        })
        call.on('status', (st: { code: number }) => {
          if (st.code === Status.OK) resolve({ stream: s, openedAt })
        })
        call.on('data', () => {
          this.backoff.reset()
          this.authRetried = false
        })
        // Jobs created before (or while we were away) are not pushed: collect them with a poll. It is
        // due before the reader's first read (rule 8), so it gets the free slots: a reservation the
        // reader holds stays its own, and an idle one would keep a waiting job out until a slot frees.
        this.poller.requestBackfill()
        s.start()
      })
    } finally {
      clearTimeout(timer)
      if (onStop) ctx.stopSignal.removeEventListener('abort', onStop)
      this.recycle = undefined
      if (this.current === s) this.current = undefined
    }
  }
}
