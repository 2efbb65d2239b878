import { NotFoundError, FailedPreconditionError } from '../errors.js'

/**
 * Auto-extend ("heartbeat"): while a handler runs, push the job's deadline out
 * by jobTimeout whenever half of the remaining time has passed.
 * @internal
 */
export class Extender {
  private timer: NodeJS.Timeout | undefined
  private stopped = false

  constructor(
    private readonly timeoutMs: number,
    private readonly getDeadline: () => number,
    private readonly extend: (ms: number) => Promise<void>,
    private readonly onError: (e: unknown) => void,
  ) {}

  start(): void {
    this.schedule()
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
  }

  private schedule(): void {
    if (this.stopped) return
    const wait = Math.max(50, (this.getDeadline() - Date.now()) / 2)
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
    }
    this.schedule()
  }
}
