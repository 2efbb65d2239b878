package io.jobwire.internal.worker;

import static io.jobwire.internal.worker.Control.LOG;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Hands events to the control thread: a lock-free queue drained by one task on the control executor
 * at a time. An event costs a queue node, not a scheduled task of its own; while a drain is queued or
 * running, posting takes no lock and wakes nothing. Events run in the order they were posted, and an
 * event posted before a task is submitted to the control executor directly runs before that task (its
 * drain was submitted first, or is running). Events posted after the executor shut down are dropped.
 */
final class ControlPost implements Executor {
  private final Executor ctl;
  private final ConcurrentLinkedQueue<Runnable> events = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private final Runnable drain = this::drain;

  ControlPost(Executor ctl) {
    this.ctl = ctl;
  }

  @Override
  public void execute(Runnable r) {
    events.add(r);
    if (scheduled.get() || !scheduled.compareAndSet(false, true)) return;
    submit();
  }

  private void drain() {
    for (;;) {
      for (Runnable r; (r = events.poll()) != null; ) {
        try {
          r.run();
        } catch (RuntimeException | Error e) {
          LOG.error("jobwire: an event of the worker's control thread threw", e);
        }
      }
      scheduled.set(false);
      // an event added after the last poll but before the flag was cleared found it set: run it here
      if (events.isEmpty() || !scheduled.compareAndSet(false, true)) return;
    }
  }

  private void submit() {
    try {
      ctl.execute(drain);
    } catch (RejectedExecutionException closed) {
      // the worker is closed: nothing is waiting for these events any more
      events.clear();
      scheduled.set(false);
    }
  }
}
