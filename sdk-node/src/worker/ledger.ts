/**
 * The capacity ledger: the only place that counts the jobs a worker holds,
 * pushed and polled alike. A slot is taken when a job is received and
 * released exactly once (outcome acknowledged, given up, or job dropped).
 * Invariant: 0 ≤ held ≤ max, always.
 * @internal
 */
export class Ledger {
  private heldCount = 0
  private readonly listeners = new Set<() => void>()

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`maxJobsActive must be an integer ≥ 1, got ${max}`)
  }

  /** Jobs held right now. */
  get held(): number {
    return this.heldCount
  }

  /** Slots free right now. */
  get free(): number {
    return this.max - this.heldCount
  }

  /** Takes one slot, or returns undefined when none is free. */
  tryTake(): Slot | undefined {
    if (this.heldCount >= this.max) return undefined
    this.heldCount++
    this.notify()
    return new Slot(this)
  }

  /** Registers a callback run after every change; returns the unsubscribe function. */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
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

  private notify(): void {
    for (const fn of [...this.listeners]) fn()
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
