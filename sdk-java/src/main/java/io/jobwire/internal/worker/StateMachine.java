package io.jobwire.internal.worker;

import io.jobwire.WorkerState;
import java.util.function.Consumer;

/**
 * The worker's lifecycle derived from its parts: closing/closed win; then backoff when the active
 * transport waits after an error; an open stream wins over a poll in backoff; else polling.
 * Used on the worker's control thread only; {@link #state()} may be read from anywhere.
 */
public final class StateMachine {
  private enum Lifecycle { IDLE, RUNNING, CLOSING, CLOSED }

  private final Consumer<WorkerState> emit;
  private volatile WorkerState current = WorkerState.IDLE;
  private Lifecycle lifecycle = Lifecycle.IDLE;
  boolean streamOpen;
  boolean streamBackoff;
  boolean pollBackoff;
  boolean streamActive;

  public StateMachine(Consumer<WorkerState> emit) {
    this.emit = emit;
  }

  public WorkerState state() {
    return current;
  }

  public void start() {
    lifecycle = Lifecycle.RUNNING;
    update();
  }

  public void closing() {
    lifecycle = Lifecycle.CLOSING;
    update();
  }

  public void closed() {
    lifecycle = Lifecycle.CLOSED;
    update();
  }

  /** Recomputes the state after a part changed and reports a transition. */
  public void update() {
    WorkerState next;
    switch (lifecycle) {
      case IDLE:
        next = WorkerState.IDLE;
        break;
      case CLOSING:
        next = WorkerState.CLOSING;
        break;
      case CLOSED:
        next = WorkerState.CLOSED;
        break;
      default:
        if (streamActive && streamOpen) next = WorkerState.STREAMING;
        else if (streamActive && streamBackoff) next = WorkerState.BACKOFF;
        else next = pollBackoff ? WorkerState.BACKOFF : WorkerState.POLLING;
    }
    if (next != current) {
      current = next;
      emit.accept(next);
    }
  }
}
