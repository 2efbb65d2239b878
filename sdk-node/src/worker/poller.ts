import { status as Status, type ClientReadableStream } from '@grpc/grpc-js'
import type { ActivateJobsResponse__Output } from '../generated/gateway_protocol/ActivateJobsResponse.js'
import type { ActivatedJob__Output } from '../generated/gateway_protocol/ActivatedJob.js'
import { toJobwireError, type JobwireError } from '../errors.js'
import { Backoff, sleep } from './backoff.js'
import { activationDecision } from './codes.js'
import type { WorkerContext } from './context.js'
import type { Executor } from './executor.js'

/** Poll only when at most this share of the capacity is held (or a backfill or fairness poll is due). */
export const THRESHOLD = 0.3
/** While the stream keeps held above the threshold, a fairness poll is due this long after the last poll ended. */
export const FAIRNESS_INTERVAL_MS = 1_000
/**
 * The slots a poll asked for are its own this long (or until it answers): a backlog answer arrives
 * within it and finds its slots; after it the poll is parked and the stream may use them.
 */
const FIRM_MS = 100
/** Jobs a parked poll got at least this long after it was sent are stall evidence (rule 6). */
const STALL_EVIDENCE_MS = 500
/** How long the stream reader's turn (after a full fairness poll) is kept for it. */
const READER_TURN_MS = 200

/**
 * The RPC deadline of an ActivateJobs call (same rule in every SDK): the long-poll time plus 10 s;
 * with requestTimeout 0 (the gateway's default long poll, 10 s in Zeebe) 20 s; with long polling
 * off (negative) 10 s.
 */
export function pollDeadlineMs(requestTimeoutMs: number): number {
  if (requestTimeoutMs < 0) return 10_000
  if (requestTimeoutMs === 0) return 20_000
  return requestTimeoutMs + 10_000
}

/** How long a poll with this requestTimeout is parked at most (0 → the gateway default, 10 s). */
function longPollMs(requestTimeoutMs: number): number {
  return requestTimeoutMs === 0 ? 10_000 : requestTimeoutMs
}

type PollKind = 'normal' | 'backfill' | 'fairness'

/**
 * The poll loop: reserve (size the request by free slots) → receive (a slot
 * per job) → run (executor) → release (executor). At most one ActivateJobs in flight.
 * @internal
 */
export class Poller {
  private backfillDue = false
  /** With streaming on, the worker opens the stream first, then polls (rule 1): polls start at the first backfill or when the stream cannot open. */
  private started: boolean
  private moreDue = false // the last poll got every job it asked for: there is more waiting
  private lastPollEnded = Date.now()
  private inFlight: PollKind | undefined
  /** pausing (pollInterval after an empty answer, back-off after an error): no poll is due */
  private resting = false
  /**
   * After a fairness poll that filled its ask, the stream reader gets the next slot before the next
   * poll (until this time): jobs already in the stream's transport buffers must not wait for the
   * whole overload either.
   */
  private readerOwedUntil = 0
  private owedTimer: NodeJS.Timeout | undefined
  /** The poll in flight serves as the backfill of a stream that opened meanwhile. */
  private inFlightBackfill = false
  private readonly backoff = new Backoff()
  private kick: (() => void) | undefined
  private authRetried = false
  private call: ClientReadableStream<ActivateJobsResponse__Output> | undefined
  private fairnessTimer: NodeJS.Timeout | undefined
  /** Called when a poll (not the backfill after a stream opened) returned jobs: the stall watchdog listens. */
  onJobsFound: (() => void) | undefined

  constructor(private readonly ctx: WorkerContext, private readonly exec: Executor) {
    this.started = !ctx.opts.streamEnabled
    ctx.stopSignal.addEventListener(
      'abort',
      () => {
        this.call?.cancel()
        clearTimeout(this.fairnessTimer)
        clearTimeout(this.owedTimer)
      },
      { once: true },
    )
  }

  /** Asks for one poll even above the threshold (after a stream (re)open). */
  requestBackfill(): void {
    this.started = true
    if (this.inFlight === 'normal' || this.inFlight === 'backfill') {
      // A parked poll is in flight: jobs that no stream takes go to it, so it is the backfill.
      this.inFlightBackfill = true
      return
    }
    this.backfillDue = true
    this.ctx.ledger.poke()
    this.kick?.()
  }

  private aboveThreshold(): boolean {
    const { ledger } = this.ctx
    return ledger.held > ledger.max * THRESHOLD
  }

  private fairnessDue(): boolean {
    const { state } = this.ctx
    return state.streamActive && state.streamOpen && this.aboveThreshold() && Date.now() - this.lastPollEnded >= FAIRNESS_INTERVAL_MS
  }

  /** The stream could not open (error, UNIMPLEMENTED): poll without waiting for it. */
  begin(): void {
    if (this.started) return
    this.started = true
    this.ctx.ledger.poke()
    this.kick?.()
  }

  /** A poll would be sent now if a slot were free. */
  due(): boolean {
    if (this.inFlight || this.resting || !this.started || this.ctx.stopSignal.aborted) return false
    return !this.aboveThreshold() || this.backfillDue || this.moreDue || this.fairnessDue()
  }

  /**
   * The stream reader must not reserve a slot now: a poll is due (it goes out as soon as a slot is
   * free) or a fairness poll is in flight (it answers at once) — unless the reader is owed its turn
   * after a poll that filled its ask.
   */
  blocksReader(): boolean {
    if (this.readerOwed()) return false
    return this.due() || this.inFlight === 'fairness'
  }

  private readerOwed(): boolean {
    return this.readerOwedUntil > Date.now()
  }

  /** The stream reader is owed a turn: true when it was (it takes it now). */
  readerTookTurn(): boolean {
    if (!this.readerOwed()) return false
    this.readerOwedUntil = 0
    clearTimeout(this.owedTimer)
    this.ctx.ledger.poke()
    return true
  }

  /** Runs until the worker stops; never throws. */
  async run(): Promise<void> {
    const { ctx } = this
    const { ledger, stopSignal } = ctx
    while (!stopSignal.aborted) {
      await this.waitForTurn()
      if (stopSignal.aborted) break
      const kind: PollKind = this.aboveThreshold() ? 'fairness' : this.backfillDue ? 'backfill' : 'normal'
      this.backfillDue = false
      this.moreDue = false
      // In flight before the slots are taken: the stream reader must not mistake it for a due poll.
      this.inFlight = kind
      this.inFlightBackfill = kind === 'backfill'
      const want = ledger.firmPoll(ledger.free)
      // Fairness and backfill polls do not park: they hold the stream reader back while in flight.
      const rt = kind === 'normal' ? ctx.opts.requestTimeoutMs : -1
      const started = Date.now()
      let got = 0
      let wasBackfill = true
      let parkedThenGot = false
      try {
        const r = await this.poll(want, rt)
        got = r.got
        parkedThenGot = r.parkedThenGot
        // While streaming, a poll that filled every slot it asked for means more is waiting (jobs the
        // engine yielded are never pushed again): the next poll is due at once, alternating with the
        // stream reader. Set before the poll counts as ended, so the reader sees it.
        if (ctx.state.streamOpen && got > 0 && got >= want) {
          this.moreDue = true
          // The reader gets the next slot first (for READER_TURN_MS): jobs already in the stream's
          // transport buffers must not wait for the whole overload either.
          this.readerOwedUntil = Date.now() + READER_TURN_MS
          clearTimeout(this.owedTimer)
          this.owedTimer = setTimeout(() => {
            ledger.poke()
            this.kick?.()
          }, READER_TURN_MS + 5)
          this.owedTimer.unref?.()
        }
        if (r.deadlineExceeded) ctx.logger.debug('poll ended at its deadline with no job: an empty poll')
      } catch (e) {
        if (stopSignal.aborted) break
        this.ended()
        await this.onError(toJobwireError(e, 'ActivateJobs'))
        continue
      } finally {
        wasBackfill = this.inFlightBackfill
        if (this.inFlight) this.ended()
      }
      this.backoff.reset()
      this.authRetried = false
      ctx.telemetry.pollRequest(got > 0 ? 'jobs' : 'empty')
      // Stall evidence (rule 6): a parked poll — not the backfill, not a fairness poll — got jobs at
      // least STALL_EVIDENCE_MS after it was sent: they became activatable while it waited and the
      // stream did not get them. An answer at once is a backlog (e.g. yielded jobs) and proves nothing.
      if (got > 0 && kind === 'normal' && !wasBackfill && parkedThenGot) this.onJobsFound?.()
      if (this.moreDue) continue
      const longPolled = rt >= 0 && Date.now() - started >= longPollMs(rt) / 2
      if (got === 0 && !longPolled) await this.rest(ctx.opts.pollIntervalMs)
    }
  }

  /**
   * Pauses the poller (pollInterval after an empty answer, back-off after an error). No poll is
   * due meanwhile, so the stream reader is not held back: with a gateway that answers polls at once
   * (no long polling) or refuses them (RESOURCE_EXHAUSTED), holding it back through every pause
   * starved the stream (Zeebe's in-memory engine: 33 jobs/s push against 248 poll).
   */
  private async rest(ms: number): Promise<void> {
    this.resting = true
    this.ctx.ledger.poke()
    try {
      await sleep(ms, this.ctx.stopSignal)
    } finally {
      this.resting = false
      this.ctx.ledger.poke()
    }
  }

  private ended(): void {
    this.inFlight = undefined
    this.lastPollEnded = Date.now()
    this.ctx.ledger.softenPoll()
    clearTimeout(this.fairnessTimer)
    if (!this.ctx.stopSignal.aborted) {
      // Wake the loop and the stream reader when a fairness poll becomes due.
      this.fairnessTimer = setTimeout(() => {
        this.ctx.ledger.poke()
        this.kick?.()
      }, FAIRNESS_INTERVAL_MS + 5)
      this.fairnessTimer.unref?.()
    }
    this.ctx.ledger.poke()
  }

  private waitForTurn(): Promise<void> {
    const { ledger, stopSignal } = this.ctx
    const ready = () => ledger.free > 0 && this.due() && !this.readerOwed()
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
   * One ActivateJobs call; resolves with the number of jobs received. A parked poll is never
   * cancelled because the stream filled the worker (rule 3 of "Push and poll",
   * docs/worker-semantics.md, the same in every SDK): a cancel drops whatever the gateway had
   * already sent for it, and those jobs wait out their whole activation timeout. What it brings
   * while the worker is full is handed back at once (overflow). Only close cancels it.
   */
  private async poll(max: number, requestTimeoutMs: number): Promise<{ got: number; deadlineExceeded: boolean; parkedThenGot: boolean }> {
    const { ctx } = this
    const o = ctx.opts
    const req = {
      type: o.jobType,
      worker: o.workerName,
      timeout: String(o.jobTimeoutMs),
      maxJobsToActivate: max,
      fetchVariable: o.fetchVariables,
      requestTimeout: String(requestTimeoutMs),
      tenantIds: o.tenantIds,
    }
    const deadline = Date.now() + pollDeadlineMs(requestTimeoutMs)
    const firmTimer = setTimeout(() => ctx.ledger.softenPoll(), FIRM_MS)
    let call: ClientReadableStream<ActivateJobsResponse__Output>
    let token: string | undefined
    try {
      ;({ call, token } = await ctx.long.serverStream<ActivateJobsResponse__Output>('ActivateJobs', req, deadline))
    } catch (e) {
      clearTimeout(firmTimer)
      throw e
    }
    this.call = call
    if (ctx.stopSignal.aborted) call.cancel()
    let got = 0
    let deadlineExceeded = false
    const sentAt = Date.now()
    let firstDataAfter = -1
    const { ledger } = ctx
    try {
      await new Promise<void>((resolve, reject) => {
        call.on('data', (res: ActivateJobsResponse__Output) => {
          if (firstDataAfter < 0 && res.jobs.length > 0) firstDataAfter = Date.now() - sentAt
          for (const job of res.jobs) {
            got++
            this.receive(job)
          }
          // Firm slots stay until the call ends or FIRM_MS passed: the gateway answers with one
          // message per partition, and the next one must still find its slots.
        })
        call.on('error', (e: unknown) => {
          const err = toJobwireError(e, 'ActivateJobs')
          if (err.code === Status.DEADLINE_EXCEEDED) {
            // The gateway kept the poll until our deadline: an empty poll (or the jobs received so far), not an error.
            deadlineExceeded = got === 0
            return resolve()
          }
          if (err.code === Status.UNAUTHENTICATED) ctx.transport.invalidateToken(token)
          reject(err)
        })
        call.on('end', () => resolve())
      })
    } finally {
      clearTimeout(firmTimer)
      ledger.softenPoll()
      this.call = undefined
    }
    // Jobs that reached a poll after it was parked became activatable while it waited (not backlog).
    return { got, deadlineExceeded, parkedThenGot: got > 0 && firstDataAfter >= STALL_EVIDENCE_MS }
  }

  private receive(job: ActivatedJob__Output): void {
    const slot = this.ctx.ledger.takePoll()
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
    if (activationDecision('poll', err.code) === 'max_backoff_report') {
      // needs a human (INVALID_ARGUMENT, PERMISSION_DENIED, UNAUTHENTICATED): reported loudly, retried at the maximum backoff
      ctx.reportError(err)
      delay = this.backoff.max()
    } else {
      delay = this.backoff.next()
      ctx.logger.debug(`poll failed (${err.codeName}: ${err.details || err.message}); backing off ${delay} ms`)
      ctx.warnConnection(err)
    }
    if (err.code === Status.UNAVAILABLE) ctx.long.failover()
    ctx.state.pollBackoff = true
    ctx.state.update()
    await this.rest(delay)
    ctx.state.pollBackoff = false
    ctx.state.update()
  }
}
