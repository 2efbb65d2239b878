/** Lifecycle states of a worker, reported through `worker.on('state', ...)` and `worker.state`. */
export type WorkerState = 'idle' | 'polling' | 'streaming' | 'backoff' | 'closing' | 'closed'

/**
 * The worker's lifecycle as a state machine derived from its parts:
 * closing/closed win; then backoff when the active transport waits after an
 * error; a open stream wins over a poll in backoff; else polling.
 * @internal
 */
export class StateMachine {
  private current: WorkerState = 'idle'
  private lifecycle: 'idle' | 'running' | 'closing' | 'closed' = 'idle'
  streamOpen = false
  streamBackoff = false
  pollBackoff = false
  streamActive = false

  constructor(private readonly emit: (s: WorkerState) => void) {}

  get state(): WorkerState {
    return this.current
  }

  start(): void {
    this.lifecycle = 'running'
    this.update()
  }

  closing(): void {
    this.lifecycle = 'closing'
    this.update()
  }

  closed(): void {
    this.lifecycle = 'closed'
    this.update()
  }

  /** Recomputes the state after a part changed and reports a transition. */
  update(): void {
    let next: WorkerState
    if (this.lifecycle !== 'running') next = this.lifecycle
    else if (this.streamActive && this.streamOpen) next = 'streaming'
    else if (this.streamActive && this.streamBackoff) next = 'backoff'
    else next = this.pollBackoff ? 'backoff' : 'polling'
    if (next !== this.current) {
      this.current = next
      this.emit(next)
    }
  }
}
