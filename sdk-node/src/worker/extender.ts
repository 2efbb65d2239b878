import { NotFoundError, FailedPreconditionError } from '../errors.js'
import { Backoff } from './backoff.js'

/** Floor of the wait before an extension (ms); the same in every SDK. */
const MIN_WAIT_MS = 50
/** Floor of the wait before a retry after a failed UpdateJobTimeout (ms). */
const MIN_RETRY_MS = 20

/**
 * How long to wait before the next UpdateJobTimeout (docs/worker-semantics.md, the same in every
 * SDK): half of the time left until the deadline (at least 50 ms); after a failed attempt, the
 * back-off's next delay alone, capped at half of the time still left (at least 20 ms), so that the
 * retries fall before the deadline.
 * @internal
 */
export function extendWaitMs(leftMs: number, retry: boolean, backoff: Backoff): number {
  if (retry) return Math.min(backoff.next(), Math.max(leftMs / 2, MIN_RETRY_MS))
  return Math.max(MIN_WAIT_MS, leftMs / 2)
}

/**
 * Auto-extend ("heartbeat"): while a handler runs, push the job's deadline out by jobTimeout
 * whenever half of the remaining time has passed; a failed UpdateJobTimeout is retried after the
 * back-off (extendWaitMs); NOT_FOUND / FAILED_PRECONDITION (the job is gone) end it.
 * @internal
 */
export class Extender {
  private timer: NodeJS.Timeout | undefined
  private stopped = false
  private readonly backoff = new Backoff()

  constructor(
    private readonly timeoutMs: number,
    private readonly getDeadline: () => number,
    private readonly extend: (ms: number) => Promise<void>,
    private readonly onError: (e: unknown) => void,
  ) {}

  start(): void {
    this.schedule(false)
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
  }

  private schedule(retry: boolean): void {
    if (this.stopped) return
    const wait = extendWaitMs(this.getDeadline() - Date.now(), retry, this.backoff)
    this.timer = setTimeout(() => void this.tick(), wait)
    this.timer.unref?.()
  }

  private async tick(): Promise<void> {
    if (this.stopped) return
    try {
      await this.extend(this.timeoutMs)
    } catch (e) {
      if (e instanceof NotFoundError || e instanceof FailedPreconditionError) return // job is gone: stop extending
      this.onError(e)
      this.schedule(true)
      return
    }
    this.backoff.reset()
    this.schedule(false)
  }
}
