/**
 * The capacity ledger: the only place that counts the jobs a worker holds,
 * pushed and polled alike. A slot is taken when a job is received and
 * released exactly once (outcome acknowledged, given up, or job dropped).
 *
 * Besides held jobs it counts two kinds of reservation:
 * - the stream reader's reserved slot (0 or 1): the reader reads from the
 *   stream only while it holds one, and a pushed job lands in it;
 * - a poll's firm slots: for the first moments of an ActivateJobs call (until
 *   it answers or is parked) the slots it asked for are its own, so a backlog
 *   answer finds them free.
 * Invariant: 0 ≤ held + reserved + pollFirm ≤ max, always.
 *
 * Verbs shared with the other SDKs: tryTake, takePoll, reserveStream /
 * claimStream / dropStream, Slot.release. The poll's slots are Node's own
 * model (firmPoll / softenPoll: firm for at most 100 ms, then free for
 * anyone), not the reservePoll / returnPoll of the other SDKs.
 * @internal
 */
export class Ledger {
  private heldCount = 0
  private reservedCount = 0
  private pollFirmCount = 0
  private readonly listeners = new Set<() => void>()

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`maxJobsActive must be an integer ≥ 1, got ${max}`)
  }

  /** Jobs held right now (reservations excluded). */
  get held(): number {
    return this.heldCount
  }

  /** Slots reserved by the stream reader (0 or 1). */
  get reserved(): number {
    return this.reservedCount
  }

  /** Slots a young poll holds firmly. */
  get pollFirm(): number {
    return this.pollFirmCount
  }

  /** Slots free right now: neither held nor reserved. */
  get free(): number {
    return this.max - this.heldCount - this.reservedCount - this.pollFirmCount
  }

  /** Takes one slot, or returns undefined when none is free. */
  tryTake(): Slot | undefined {
    if (this.free <= 0) return undefined
    this.heldCount++
    this.notify()
    return new Slot(this)
  }

  /** The stream reader reserves a slot; false when none is free (it never takes a poll's firm slot). */
  reserveStream(): boolean {
    if (this.free <= 0) return false
    this.reservedCount++
    this.notify()
    return true
  }

  /** Gives the stream reader's reservation back unused. */
  dropStream(): void {
    if (this.reservedCount <= 0) throw new Error('jobwire: ledger underflow (no reservation to give back)')
    this.reservedCount--
    this.notify()
  }

  /** Turns the stream reader's reservation into the slot of the job that landed in it. */
  claimStream(): Slot {
    if (this.reservedCount <= 0) throw new Error('jobwire: ledger underflow (no reservation to take)')
    this.reservedCount--
    this.heldCount++
    this.notify()
    return new Slot(this)
  }

  /** A poll holds `n` (≤ free) slots firmly until {@link softenPoll}. Returns how many it got. */
  firmPoll(n: number): number {
    const got = Math.max(0, Math.min(n, this.free))
    this.pollFirmCount += got
    if (got > 0) this.notify()
    return got
  }

  /** Takes one of the poll's firm slots for a polled job, else a free slot. */
  takePoll(): Slot | undefined {
    if (this.pollFirmCount > 0) {
      this.pollFirmCount--
      this.heldCount++
      this.notify()
      return new Slot(this)
    }
    return this.tryTake()
  }

  /** The poll answered or is parked: its firm slots become free again. */
  softenPoll(): void {
    if (this.pollFirmCount === 0) return
    this.pollFirmCount = 0
    this.notify()
  }

  /** Registers a callback run after every change; returns the unsubscribe function. */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
  }

  /** Runs the change callbacks without a change (a part's own condition changed). */
  poke(): void {
    this.notify()
  }

  /** Resolves once `cond()` holds (checked now and after every change) or the signal aborts. */
  waitFor(cond: () => boolean, signal: AbortSignal): Promise<void> {
    if (cond() || signal.aborted) return Promise.resolve()
    return new Promise((resolve) => {
      const check = () => {
        if (cond() || signal.aborted) {
          off()
          signal.removeEventListener('abort', check)
          resolve()
        }
      }
      const off = this.onChange(check)
      signal.addEventListener('abort', check, { once: true })
    })
  }

  /** @internal called by Slot.release only */
  giveBack(): void {
    if (this.heldCount <= 0) throw new Error('jobwire: ledger underflow (a slot was released twice)')
    this.heldCount--
    this.notify()
  }

  private notifying = false
  private again = false

  // Callbacks may change the ledger themselves; run them again (not nested) until it is calm.
  private notify(): void {
    if (this.notifying) {
      this.again = true
      return
    }
    this.notifying = true
    try {
      do {
        this.again = false
        for (const fn of [...this.listeners]) fn()
      } while (this.again)
    } finally {
      this.notifying = false
    }
  }
}

/** One held job's place in the ledger; release() is idempotent, so it counts once. @internal */
export class Slot {
  private released = false
  constructor(private readonly ledger: Ledger) {}

  /** Gives the slot back; later calls do nothing. */
  release(): void {
    if (this.released) return
    this.released = true
    this.ledger.giveBack()
  }

  get isReleased(): boolean {
    return this.released
  }
}
