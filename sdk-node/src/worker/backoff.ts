/**
 * Exponential backoff shared by polls, stream reopens and outcome retries:
 * 50 ms → 5 s, ×1.6 per failure, ±10 % jitter, back to the start on success.
 * delay(n) = min(max, min·1.6ⁿ) · (1 ± 0.1·random)
 * @internal
 */
export class Backoff {
  static readonly MIN_MS = 50
  static readonly MAX_MS = 5_000
  static readonly FACTOR = 1.6
  static readonly JITTER = 0.1

  private current = 0

  constructor(private readonly random: () => number = Math.random) {}

  /** The delay before the next attempt; grows on every call until reset(). */
  next(): number {
    this.current = this.current === 0 ? Backoff.MIN_MS : Math.min(Backoff.MAX_MS, this.current * Backoff.FACTOR)
    return this.jitter(this.current)
  }

  /** The longest delay (with jitter): used after errors that need a human (auth, bad request). */
  max(): number {
    this.current = Backoff.MAX_MS
    return this.jitter(Backoff.MAX_MS)
  }

  /** Back to the first step; called after every success. */
  reset(): void {
    this.current = 0
  }

  private jitter(ms: number): number {
    return Math.round(ms * (1 + Backoff.JITTER * (2 * this.random() - 1)))
  }
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). @internal */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const t = setTimeout(done, ms)
    function done() {
      clearTimeout(t)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
  })
}
