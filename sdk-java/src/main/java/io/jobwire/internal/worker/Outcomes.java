package io.jobwire.internal.worker;

import static io.jobwire.internal.worker.Control.LOG;

import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import io.jobwire.JobwireException;
import io.jobwire.internal.gateway.GatewayGrpc;
import io.jobwire.internal.gateway.GatewayOuterClass.ActivatedJob;
import io.jobwire.internal.gateway.GatewayOuterClass.CompleteJobRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.FailJobRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.ThrowErrorRequest;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The outcome sender: CompleteJob, FailJob and ThrowError with retries until the job's deadline, and
 * the hand-backs (FailJob with retries unchanged, no back-off) of jobs the worker will not run. Every
 * send is tracked until its bookkeeping on the control thread is done, so that close can wait for them.
 */
final class Outcomes {
  static final int MAX_MESSAGE = 2_000;
  static final String MSG_CLOSING = "jobwire: worker closing; job returned";
  static final String MSG_AT_CAPACITY = "jobwire: worker at capacity; job returned";
  static final String MSG_RECYCLED = "jobwire: stream recycled; job returned";

  enum SendResult { OK, NOT_FOUND, GAVE_UP }

  record Sent(SendResult result, JobwireException error) {}

  private final Control c;
  /**
   * Sends in flight and their bookkeeping: added on the control thread, removed by whichever thread
   * completes them (no extra hop to the control thread per send).
   */
  private final Set<CompletableFuture<?>> pendingSends = ConcurrentHashMap.newKeySet();

  Outcomes(Control c) {
    this.c = c;
  }

  /** The outcome metric of a hand-back. */
  static String handBackOutcome(Sent r) {
    return r.result() == SendResult.NOT_FOUND ? "not_found" : r.result() == SendResult.OK ? "returned" : "undelivered";
  }

  CompletableFuture<Sent> complete(long key, String vars, long deadline) {
    return send(GatewayGrpc.getCompleteJobMethod(), CompleteJobRequest.newBuilder().setJobKey(key).setVariables(vars).build(), key, deadline, false);
  }

  CompletableFuture<Sent> throwError(long key, String code, String message, String vars, long deadline) {
    return send(GatewayGrpc.getThrowErrorMethod(), ThrowErrorRequest.newBuilder().setJobKey(key).setErrorCode(code)
        .setErrorMessage(cut(message == null ? "" : message)).setVariables(vars).build(), key, deadline, false);
  }

  CompletableFuture<Sent> fail(long key, int retries, String message, long backoffMs, String vars, long deadline, boolean viaLong) {
    FailJobRequest req = FailJobRequest.newBuilder().setJobKey(key).setRetries(retries).setErrorMessage(cut(message))
        .setRetryBackOff(backoffMs).setVariables(vars == null ? "" : vars).build();
    return send(GatewayGrpc.getFailJobMethod(), req, key, deadline, viaLong);
  }

  /** A received job that found no free slot: failed back at once, counted `returned`; never run. */
  void giveBack(ActivatedJob raw, String activation) {
    c.tel.jobActivated(activation);
    LOG.debug("job {}: no free slot ({}); returning it to the engine", raw.getKey(), activation);
    track(fail(raw.getKey(), raw.getRetries(), MSG_AT_CAPACITY, 0, "", Math.min(raw.getDeadline(), System.currentTimeMillis() + 10_000), false)
        .thenAcceptAsync(r -> c.tel.jobHandled(handBackOutcome(r), null), c.post));
  }

  /** A job read from a drained stream: failed back over the long-call connection, counted by its result. */
  CompletableFuture<Sent> handBack(ActivatedJob j, String msg) {
    CompletableFuture<Sent> f = fail(j.getKey(), j.getRetries(), msg, 0, "", Math.min(j.getDeadline(), System.currentTimeMillis() + 5_000), true);
    track(f.thenAcceptAsync(r -> c.tel.jobHandled(handBackOutcome(r), null), c.post));
    return f;
  }

  /**
   * Sends an outcome; what follows a failure is {@link StatusRules#classifyOutcome}: UNAVAILABLE /
   * RESOURCE_EXHAUSTED (not a size refusal) / DEADLINE_EXCEEDED / ABORTED are retried with backoff
   * until the job's deadline, NOT_FOUND / FAILED_PRECONDITION are benign, the rest is given up.
   */
  private <Q extends Message, R> CompletableFuture<Sent> send(MethodDescriptor<Q, R> method, Q req, long key, long deadline, boolean viaLong) {
    // not tracked itself: every caller tracks the bookkeeping that follows it, which completes after it
    CompletableFuture<Sent> out = new CompletableFuture<>();
    attempt(method, req, key, deadline, viaLong, null, out);
    return out;
  }

  private <Q extends Message, R> void attempt(MethodDescriptor<Q, R> method, Q req, long key, long deadline, boolean viaLong, Backoff backoff, CompletableFuture<Sent> out) {
    long left = deadline - System.currentTimeMillis();
    Duration timeout = Duration.ofMillis(Math.max(1_000, Math.min(c.transport.config().commandTimeout().toMillis(), left)));
    // completes on the connection's event loop: what follows only hands its work on (reportError goes to the control thread)
    CompletableFuture<R> f = viaLong ? c.lease.unary(method, req, timeout) : c.transport.workerUnary(method, req, timeout);
    f.whenComplete((r, e) -> {
      if (e == null) {
        out.complete(new Sent(SendResult.OK, null));
        return;
      }
      JobwireException je = JobwireException.from(e, method.getBareMethodName());
      StatusRules.Outcome decision = StatusRules.classifyOutcome(je.code(), je.details());
      if (decision == StatusRules.Outcome.BENIGN) {
        LOG.info("{} for job {}: {} (job timed out, was cancelled or completed elsewhere)", method.getBareMethodName(), key, je.codeName());
        out.complete(new Sent(SendResult.NOT_FOUND, je));
        return;
      }
      Backoff b = backoff != null ? backoff : new Backoff(c.transport.config().backoff()); // made on the first failure
      long delay = b.next();
      if (decision == StatusRules.Outcome.RETRY && System.currentTimeMillis() + delay < deadline && !c.transport.isClosed()) {
        LOG.debug("{} for job {} failed ({}); retrying in {} ms", method.getBareMethodName(), key, je.codeName(), delay);
        try {
          c.ctl.schedule(() -> attempt(method, req, key, deadline, viaLong, b, out), delay, TimeUnit.MILLISECONDS);
        } catch (RuntimeException rejected) {
          out.complete(new Sent(SendResult.GAVE_UP, je));
        }
        return;
      }
      c.post.execute(() -> c.reportError(je));
      out.complete(new Sent(SendResult.GAVE_UP, je));
    });
  }

  /**
   * Tracks a send (or its bookkeeping) until it completed; control thread. A send's bookkeeping is
   * tracked as well (a future completed on the control thread after it ran), so close, which reads
   * {@link #pending()} on the control thread, waits for both.
   */
  void track(CompletableFuture<?> f) {
    pendingSends.add(f);
    f.whenComplete((r, e) -> pendingSends.remove(f));
  }

  /** The sends in flight (control thread). */
  CompletableFuture<?>[] pending() {
    return pendingSends.toArray(new CompletableFuture[0]);
  }

  static String cut(String s) {
    return s.length() > MAX_MESSAGE ? s.substring(0, MAX_MESSAGE) : s;
  }

  static String errorMessage(Throwable err) {
    StringWriter w = new StringWriter();
    err.printStackTrace(new PrintWriter(w));
    return cut(w.toString());
  }
}
