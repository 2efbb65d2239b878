/**
 * The capacity ledger: the only place that counts the jobs a worker holds,
 * pushed and polled alike. A slot is taken when a job is received and
 * released exactly once (outcome acknowledged, given up, or job dropped).
 *
 * Besides held jobs it counts two kinds of reservation:
 * - the poll's pool: the slots a poll asked for are set aside from just
 *   before it is sent until the call ends ({@link reservePoll} /
 *   {@link returnPoll}), so its answer finds them;
 * - the stream reader's one reserved slot: the reader reads from the stream
 *   only while it holds one, and a pushed job lands in it. It takes a free
 *   slot, or one of the pool of a poll that may park (a long poll never stops
 *   the stream); a polled job that then finds no slot is handed back. While a
 *   poll is due (backfill, fairness) and none is in flight, the reader does
 *   not reserve: the poll gets the next free slot ({@link setPollDue}). A due
 *   poll never takes the reservation the reader already holds (that read has
 *   started: its job lands there), and a sleeping poller (pollInterval,
 *   back-off) has no poll due ({@link restPoll}).
 * Invariant: 0 ≤ held + reader's reservation + pool ≤ max, always.
 *
 * The verbs are those of every SDK (docs/worker-semantics.md, rule 8) and are
 * checked by the shared vectors (conformance-tests/vectors/ledger.json).
 * @internal
 */
export class Ledger {
  private heldCount = 0
  private streamRes = false
  private pollRes = 0
  private pollParks = false
  private pollInFlight = false
  private pollDueMark = false
  private pollRests = false
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
    return this.streamRes ? 1 : 0
  }

  /** Slots left in the pool of the poll in flight. */
  get pollReserved(): number {
    return this.pollRes
  }

  /** Slots free right now: neither held nor reserved. */
  get free(): number {
    return this.max - this.heldCount - this.reserved - this.pollRes
  }

  /** A poll is due and waits for a free slot, none in flight: the reader leaves it the next one. */
  get pollDue(): boolean {
    return this.pollDueMark && !this.pollInFlight
  }

  /**
   * How many jobs a poll may ask for now (max − held − reserved) and whether the jobs held are at or
   * below the poll threshold (30 % of capacity). With a poll in flight: {free: 0, below: false}.
   */
  pollWanted(): { free: number; below: boolean } {
    if (this.pollInFlight) return { free: 0, below: false }
    return { free: this.free, below: this.heldCount * 10 <= this.max * 3 }
  }

  /**
   * Marks (or clears) a poll waiting for a free slot: while it is set and no poll is in flight the reader does not
   * reserve. While the poller rests ({@link restPoll}) no poll is due and marking one does nothing.
   */
  setPollDue(due: boolean): void {
    if (this.pollRests) due = false
    if (this.pollDueMark === due) return
    this.pollDueMark = due
    this.notify()
  }

  /**
   * The poller sleeps (`resting` true: pollInterval after an empty answer, back-off after an error) or woke up
   * (false). A sleeping poller has no poll due: the mark is cleared and {@link setPollDue} does nothing until it
   * wakes, so the stream reader is never held back through a pause. Awake, the poller plans again and marks its
   * poll due anew if it still finds no free slot.
   */
  restPoll(resting: boolean): void {
    this.pollRests = resting
    if (resting && this.pollDueMark) {
      this.pollDueMark = false
      this.notify()
    }
  }

  /**
   * Sets aside up to `n` free slots for the poll about to be sent, until {@link returnPoll}; returns
   * how many. `parks`: the poll is a long poll that may park (the reader may borrow from its pool).
   * Clears the due mark.
   */
  reservePoll(n: number, parks: boolean): number {
    const got = Math.max(0, Math.min(n, this.free))
    this.pollRes += got
    this.pollParks = parks
    this.pollInFlight = true
    this.pollDueMark = false
    this.notify()
    return got
  }

  /** A polled job takes one slot of the poll's pool, else a free slot; undefined when no capacity is left. */
  takePoll(): Slot | undefined {
    if (this.pollRes > 0) {
      this.pollRes--
      this.heldCount++
      this.notify()
      return new Slot(this)
    }
    return this.tryTake()
  }

  /** The poll ended: what is left of its pool is free again. */
  returnPoll(): void {
    this.pollRes = 0
    this.pollParks = false
    this.pollInFlight = false
    this.notify()
  }

  /** Takes one free slot, or returns undefined when none is free. */
  tryTake(): Slot | undefined {
    if (this.free <= 0) return undefined
    this.heldCount++
    this.notify()
    return new Slot(this)
  }

  /**
   * The stream reader asks for its one reserved slot without waiting: true if it holds one now (a free
   * slot, or one of a parked poll's pool; never while a poll is due and none is in flight). A reservation
   * the reader holds stays its own, a due poll or not: the read has started and its job lands there.
   */
  reserveStream(): boolean {
    if (this.streamRes) return true
    if (this.pollDueMark && !this.pollInFlight) return false
    if (this.free > 0) {
      this.streamRes = true
    } else if (this.pollRes > 0 && this.pollParks) {
      this.pollRes--
      this.streamRes = true
    } else {
      return false
    }
    this.notify()
    return true
  }

  /** A pushed job arrived: the reader's reservation (else a free slot) becomes its slot; undefined when there is none. */
  claimStream(): Slot | undefined {
    if (!this.streamRes) return this.tryTake()
    this.streamRes = false
    this.heldCount++
    this.notify()
    return new Slot(this)
  }

  /** The reader gives its reservation back unused (no-op without one). */
  dropStream(): void {
    if (!this.streamRes) return
    this.streamRes = false
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
