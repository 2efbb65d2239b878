import { status as Status, type ClientReadableStream } from '@grpc/grpc-js'
import type { ActivateJobsResponse__Output } from '../generated/gateway_protocol/ActivateJobsResponse.js'
import type { ActivatedJob__Output } from '../generated/gateway_protocol/ActivatedJob.js'
import { toJobwireError, type JobwireError } from '../errors.js'
import { Backoff, sleep } from './backoff.js'
import { activationDecision } from './codes.js'
import type { WorkerContext } from './context.js'
import type { Executor } from './executor.js'
import { afterPoll, emptyPollPause, planPoll, pollDeadlineMs, type PollInput } from './pollplan.js'

export { pollDeadlineMs } from './pollplan.js'

/** A poll the loop decided to send, with the slots set aside for it. */
interface Planned {
  ask: number
  requestTimeoutMs: number
  parks: boolean
  backfill: boolean
  pushing: boolean
}

/**
 * The poll loop: reserve (the slots a poll asks for are set aside from just before sending until the
 * call ends) → receive (a slot per job) → run (executor) → release (executor). At most one
 * ActivateJobs in flight. Which poll to send and what its answer means are the pure functions of
 * pollplan.ts; the ledger keeps the slots.
 * @internal
 */
export class Poller {
  private backfillDue = false
  /** With streaming on, the worker opens the stream first, then polls (rule 1): polls start at the first backfill or when the stream cannot open. */
  private started: boolean
  private moreDue = false // the last poll got every job it asked for while pushing: there is more waiting
  private lastPollEnded = Date.now()
  private inFlight = false
  /** The poll in flight is a parked long poll: it serves as the backfill of a stream that opened meanwhile. */
  private inFlightParks = false
  private inFlightBackfill = false
  /** pausing (pollInterval after an empty answer, back-off after an error): no poll is due */
  private resting = false
  private readonly backoff: Backoff
  private kick: (() => void) | undefined
  private authRetried = false
  private call: ClientReadableStream<ActivateJobsResponse__Output> | undefined
  private fairnessTimer: NodeJS.Timeout | undefined
  /** When the armed fairness timer fires (Date.now() time; 0: none armed). */
  private fairnessAt = 0
  /** Called when a poll (not the backfill after a stream opened) returned jobs: the stall watchdog listens. */
  onJobsFound: (() => void) | undefined

  constructor(private readonly ctx: WorkerContext, private readonly exec: Executor) {
    this.backoff = new Backoff(Math.random, ctx.transport.config.backoff)
    this.started = !ctx.opts.streamEnabled
    ctx.stopSignal.addEventListener(
      'abort',
      () => {
        this.call?.cancel()
        this.disarmFairness()
        this.kick?.()
      },
      { once: true },
    )
  }

  /**
   * Asks for one poll even above the threshold (after a stream (re)open). It is due at once: the
   * stream reader leaves the next free slot to it (not while the poller rests: a sleeping poller has
   * no poll due, and it marks the backfill due itself when it wakes and finds no free slot).
   */
  requestBackfill(): void {
    this.started = true
    if (this.inFlight && this.inFlightParks) {
      // A parked poll is in flight: jobs that no stream takes go to it, so it is the backfill.
      this.inFlightBackfill = true
      return
    }
    this.backfillDue = true
    this.ctx.ledger.setPollDue(true)
    this.kick?.()
  }

  /** The stream could not open (error, UNIMPLEMENTED): poll without waiting for it. */
  begin(): void {
    if (this.started) return
    this.started = true
    this.kick?.()
  }

  /** Runs until the worker stops; never throws. */
  async run(): Promise<void> {
    const { ctx } = this
    const { ledger, stopSignal } = ctx
    while (!stopSignal.aborted) {
      const p = await this.nextPoll()
      if (!p) break
      // nextPoll set the slots aside (ledger.reservePoll) and marked the poll in flight; the slots
      // are returned when the call ends.
      const started = Date.now()
      let got = 0
      let firstJobMs: number | null = null
      let failed: JobwireError | undefined
      try {
        const r = await this.poll(p.ask, p.requestTimeoutMs)
        got = r.got
        firstJobMs = r.firstJobMs
        if (r.deadlineExceeded) ctx.logger.debug('poll ended at its deadline with no job: an empty poll')
      } catch (e) {
        failed = toJobwireError(e, 'ActivateJobs')
      }
      const backfill = this.inFlightBackfill
      const after = afterPoll({ pushing: p.pushing, failed: failed !== undefined, asked: p.ask, got, backfill, parks: p.parks, firstJobMs })
      // While streaming, a poll that filled every slot it asked for means more is waiting (jobs the
      // engine yielded are never pushed again): the next poll is due at once.
      this.moreDue = after.due
      this.inFlight = false
      this.inFlightParks = false
      this.lastPollEnded = Date.now()
      ledger.returnPoll()
      if (stopSignal.aborted) break
      if (failed) {
        await this.onError(failed)
        continue
      }
      this.backoff.reset()
      this.authRetried = false
      ctx.telemetry.pollRequest(got > 0 ? 'jobs' : 'empty')
      // Stall evidence (rule 6): jobs that reached a parked poll (not the backfill) at least
      // STALL_PARKED_MIN_MS after it was sent became activatable while it waited and the stream did
      // not get them. An answer at once is a backlog (e.g. yielded jobs) and proves nothing.
      if (after.stall) this.onJobsFound?.()
      if (got === 0 && emptyPollPause(p.requestTimeoutMs, Date.now() - started)) await this.rest(ctx.opts.pollIntervalMs)
    }
    ledger.setPollDue(false)
  }

  /** The poller's view for planPoll now. */
  private input(): PollInput {
    const { ctx } = this
    const { free, below } = ctx.ledger.pollWanted()
    return {
      free,
      below,
      pushing: ctx.state.streamActive && ctx.state.streamOpen,
      backfill: this.backfillDue,
      due: this.moreDue,
      sinceLastEndMs: Date.now() - this.lastPollEnded,
      streamEnabled: ctx.opts.streamEnabled,
      requestTimeoutMs: ctx.opts.requestTimeoutMs,
    }
  }

  /**
   * Waits until planPoll says send, and sets the poll's slots aside in the same step (so nothing takes
   * them between the decision and the call). While a backfill or fairness poll waits for a free slot
   * the ledger carries the due mark: the stream reader leaves it the next one. Resolves undefined at stop.
   */
  private nextPoll(): Promise<Planned | undefined> {
    const { ledger, stopSignal } = this.ctx
    const attempt = (): Planned | undefined => {
      if (!this.started || this.resting || this.inFlight) {
        this.disarmFairness()
        ledger.setPollDue(false)
        return undefined
      }
      const i = this.input()
      const d = planPoll(i)
      if (!d.send) {
        ledger.setPollDue(d.markDue)
        // Look again when the fairness poll becomes due even if nothing changes.
        if (d.fairnessInMs !== null) this.armFairness(d.fairnessInMs)
        else this.disarmFairness()
        return undefined
      }
      this.disarmFairness()
      // In flight from here: the change callbacks reservePoll runs must not plan a second poll.
      this.inFlight = true
      this.inFlightParks = d.parks
      this.inFlightBackfill = i.backfill
      this.backfillDue = false
      this.moreDue = false
      const ask = ledger.reservePoll(d.ask, d.parks)
      return { ask, requestTimeoutMs: d.requestTimeoutMs, parks: d.parks, backfill: i.backfill, pushing: i.pushing }
    }
    if (stopSignal.aborted) return Promise.resolve(undefined)
    return new Promise((resolve) => {
      let done = false
      const check = () => {
        if (done) return
        if (stopSignal.aborted) return finish(undefined)
        const p = attempt()
        if (p) finish(p)
      }
      const finish = (p: Planned | undefined) => {
        done = true
        off()
        stopSignal.removeEventListener('abort', check)
        this.disarmFairness()
        this.kick = undefined
        resolve(p)
      }
      // Listen before the first attempt, so no change between the attempt and the subscription is missed.
      const off = ledger.onChange(check)
      stopSignal.addEventListener('abort', check, { once: true })
      this.kick = check
      check()
    })
  }

  /**
   * Makes the poller look again in `inMs` (+1) even if the ledger does not change. Every ledger change
   * re-plans while a poll waits, and the fairness poll's due time (1 s after the last poll ended) does
   * not move meanwhile: a timer that already fires by then is kept instead of being replaced on every
   * change (one per slot taken or freed on a full worker). A timer that fires early re-plans and arms
   * the rest.
   */
  private armFairness(inMs: number): void {
    const at = Date.now() + inMs + 1
    if (this.fairnessTimer !== undefined && this.fairnessAt <= at) return
    clearTimeout(this.fairnessTimer)
    this.fairnessAt = at
    this.fairnessTimer = setTimeout(() => {
      this.fairnessTimer = undefined
      this.fairnessAt = 0
      this.kick?.()
    }, inMs + 1)
    this.fairnessTimer.unref?.()
  }

  private disarmFairness(): void {
    if (this.fairnessTimer === undefined) return
    clearTimeout(this.fairnessTimer)
    this.fairnessTimer = undefined
    this.fairnessAt = 0
  }

  /**
   * Pauses the poller (pollInterval after an empty answer, back-off after an error). No poll is
   * due meanwhile, so the stream reader is not held back: with a gateway that answers polls at once
   * (no long polling) or refuses them (RESOURCE_EXHAUSTED), holding it back through every pause
   * starved the stream.
   */
  private async rest(ms: number): Promise<void> {
    this.resting = true
    this.ctx.ledger.restPoll(true)
    try {
      await sleep(ms, this.ctx.stopSignal)
    } finally {
      this.resting = false
      this.ctx.ledger.restPoll(false)
    }
  }

  /**
   * One ActivateJobs call; resolves with the number of jobs received. A parked poll is never
   * cancelled because the stream filled the worker (rule 3 of "Push and poll",
   * docs/worker-semantics.md, the same in every SDK): a cancel drops whatever the gateway had
   * already sent for it, and those jobs wait out their whole activation timeout. What it brings
   * while the worker is full is handed back at once (overflow). Only close cancels it.
   */
  private async poll(max: number, requestTimeoutMs: number): Promise<{ got: number; deadlineExceeded: boolean; firstJobMs: number | null }> {
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
    const { call, token } = await ctx.long.serverStream<ActivateJobsResponse__Output>('ActivateJobs', req, deadline)
    this.call = call
    if (ctx.stopSignal.aborted) call.cancel()
    let got = 0
    let deadlineExceeded = false
    const sentAt = Date.now()
    let firstJobMs: number | null = null
    try {
      await new Promise<void>((resolve, reject) => {
        call.on('data', (res: ActivateJobsResponse__Output) => {
          if (firstJobMs === null && res.jobs.length > 0) firstJobMs = Date.now() - sentAt
          for (const job of res.jobs) {
            got++
            this.receive(job)
          }
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
      this.call = undefined
    }
    return { got, deadlineExceeded, firstJobMs }
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
