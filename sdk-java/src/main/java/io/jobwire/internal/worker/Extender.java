package io.jobwire.internal.worker;

import static io.jobwire.internal.worker.Control.LOG;

import io.jobwire.JobwireException;
import io.jobwire.internal.gateway.GatewayGrpc;
import io.jobwire.internal.gateway.GatewayOuterClass.UpdateJobTimeoutRequest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Timeouts of held jobs: {@code job.extendTimeout} (any thread) and auto-extend, which pushes the
 * deadline out by jobTimeout whenever half the remaining time passed, until the handler returns.
 */
final class Extender {
  static final long EXTEND_MIN_WAIT_MS = 50;
  static final long EXTEND_MIN_RETRY_MS = 20;

  private final Control c;

  Extender(Control c) {
    this.c = c;
  }

  /** UpdateJobTimeout; on success the job's deadline is {@code timeoutMs} from the moment it was sent. */
  CompletableFuture<Void> extendTimeout(JobImpl job, long timeoutMs) {
    long sentAt = System.currentTimeMillis();
    return c.transport.unary(GatewayGrpc.getUpdateJobTimeoutMethod(), UpdateJobTimeoutRequest.newBuilder().setJobKey(job.key()).setTimeout(timeoutMs).build(), null)
        .thenApply(r -> {
          job.deadline = sentAt + timeoutMs;
          return null;
        });
  }

  /**
   * How long to wait before the next UpdateJobTimeout (docs/worker-semantics.md, the same in every
   * SDK): half of the time left until the deadline (at least 50 ms); after a failed attempt, the
   * back-off's next delay alone, capped at half of the time still left (at least 20 ms), so that the
   * retries fall before the deadline.
   */
  static long extendWaitMs(long leftMs, boolean retry, Backoff backoff) {
    if (retry) return Math.min(backoff.next(), Math.max(leftMs / 2, EXTEND_MIN_RETRY_MS));
    return Math.max(EXTEND_MIN_WAIT_MS, leftMs / 2);
  }

  /** Starts auto-extending a job whose handler starts now (control thread). */
  void start(HeldJob h) {
    schedule(h, false);
  }

  private void schedule(HeldJob h, boolean retry) {
    if (h.handlerDone || c.stopping && !c.closing) return;
    if (h.extendBackoff == null) h.extendBackoff = new Backoff(c.transport.config().backoff());
    long wait = extendWaitMs(h.job.deadline - System.currentTimeMillis(), retry, h.extendBackoff);
    h.extendTimer = c.ctl.schedule(() -> {
      if (h.handlerDone) return;
      extendTimeout(h.job, c.o.jobTimeout().toMillis()).whenCompleteAsync((v, e) -> {
        if (e != null) {
          JobwireException je = JobwireException.from(e, "UpdateJobTimeout");
          if (StatusRules.jobGone(je.code())) return; // the job is gone
          LOG.debug("auto-extend of job {} failed: {}", h.raw.getKey(), je.getMessage());
          schedule(h, true); // after the back-off alone
          return;
        }
        h.extendBackoff.reset();
        schedule(h, false);
      }, c.post);
    }, wait, TimeUnit.MILLISECONDS);
  }

  /** The handler returned: no more extensions (control thread). */
  void stop(HeldJob h) {
    if (h.extendTimer != null) h.extendTimer.cancel(false);
  }
}
