/**
 * Bounds of the transport back-off (polls, stream reopens, outcome and command resends):
 * {@link ClientOptions.backoff}. Every field is optional; absent fields keep the defaults.
 */
export interface BackoffOptions {
  /** First delay, ms. default: 50 */
  initialMs?: number
  /** Longest delay, ms (≥ initialMs). default: 5000 */
  maxMs?: number
  /** Growth per failure (≥ 1). default: 1.6 */
  multiplier?: number
}

/** Back-off bounds after defaults. @internal */
export interface BackoffBounds {
  initialMs: number
  maxMs: number
  multiplier: number
}

/** Today's transport back-off: 50 ms → 5 s, ×1.6. @internal */
export const DEFAULT_BACKOFF: Readonly<BackoffBounds> = Object.freeze({ initialMs: 50, maxMs: 5_000, multiplier: 1.6 })

/**
 * Applies the defaults and validates (initialMs > 0, maxMs ≥ initialMs, multiplier ≥ 1); throws a
 * RangeError (the SDK's configuration error) otherwise. @internal
 */
export function resolveBackoff(o: BackoffOptions | undefined): BackoffBounds {
  if (o === undefined) return { ...DEFAULT_BACKOFF }
  if (o === null || typeof o !== 'object') throw new TypeError('jobwire: backoff must be an object { initialMs, maxMs, multiplier }')
  const initialMs = o.initialMs ?? DEFAULT_BACKOFF.initialMs
  const maxMs = o.maxMs ?? Math.max(DEFAULT_BACKOFF.maxMs, initialMs)
  const multiplier = o.multiplier ?? DEFAULT_BACKOFF.multiplier
  if (typeof initialMs !== 'number' || !Number.isFinite(initialMs) || initialMs <= 0) throw new RangeError(`jobwire: backoff.initialMs must be a number > 0, got ${String(initialMs)}`)
  if (typeof maxMs !== 'number' || !Number.isFinite(maxMs) || maxMs < initialMs) throw new RangeError(`jobwire: backoff.maxMs must be a number ≥ initialMs (${initialMs}), got ${String(maxMs)}`)
  if (typeof multiplier !== 'number' || !Number.isFinite(multiplier) || multiplier < 1) throw new RangeError(`jobwire: backoff.multiplier must be a number ≥ 1, got ${String(multiplier)}`)
  return { initialMs, maxMs, multiplier }
}

/**
 * Exponential backoff shared by polls, stream reopens and outcome retries:
 * by default 50 ms → 5 s, ×1.6 per failure, ±10 % jitter, back to the start on success
 * (the bounds come from {@link ClientOptions.backoff}; the jitter is fixed).
 * delay(n) = min(max, initial·multiplierⁿ) · (1 ± 0.1·random)
 * @internal
 */
export class Backoff {
  static readonly MIN_MS = DEFAULT_BACKOFF.initialMs
  static readonly MAX_MS = DEFAULT_BACKOFF.maxMs
  static readonly FACTOR = DEFAULT_BACKOFF.multiplier
  static readonly JITTER = 0.1

  private current = 0

  constructor(
    private readonly random: () => number = Math.random,
    private readonly bounds: Readonly<BackoffBounds> = DEFAULT_BACKOFF,
  ) {}

  /** The delay before the next attempt; grows on every call until reset(). */
  next(): number {
    const b = this.bounds
    this.current = this.current === 0 ? b.initialMs : Math.min(b.maxMs, this.current * b.multiplier)
    return this.jitter(this.current)
  }

  /** The longest delay (with jitter): used after errors that need a human (auth, bad request). */
  max(): number {
    this.current = this.bounds.maxMs
    return this.jitter(this.bounds.maxMs)
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
