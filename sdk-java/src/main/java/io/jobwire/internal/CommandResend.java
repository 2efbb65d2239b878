package io.jobwire.internal;

import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.jobwire.JobwireException;
import io.jobwire.internal.worker.Backoff;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Which of the client's commands EvaluateDecision, ModifyProcessInstance, MigrateProcessInstance,
 * DeleteResource and BroadcastSignal are sent again, and how (docs/worker-semantics.md, "Client
 * commands: which are resent"): a command is resent only after a status that proves it was not
 * applied, with the shared {@link Backoff} (50 ms, ×1.6, ±10 %), at most {@link #MAX_ATTEMPTS}
 * attempts and never past the call's deadline (the client's {@code commandTimeout}, counted from
 * the first attempt). Every other error is the typed error of its status at once.
 *
 * <p>One function per command answers "is it resent after this status?"; {@link #send} does the
 * rest.
 */
public final class CommandResend {
  private CommandResend() {}

  /** At most this many attempts of one command. */
  public static final int MAX_ATTEMPTS = 5;

  /**
   * EvaluateDecision changes no process state: resent after UNAVAILABLE and RESOURCE_EXHAUSTED.
   *
   * @param code the status of the failed attempt
   * @return true when the evaluation is sent again
   */
  public static boolean evaluateDecision(Status.Code code) {
    return code == Status.Code.UNAVAILABLE || code == Status.Code.RESOURCE_EXHAUSTED;
  }

  /**
   * ModifyProcessInstance: resent only after RESOURCE_EXHAUSTED (refused under backpressure before
   * it was written); after UNAVAILABLE it may have been applied, and a resend would activate its
   * elements twice.
   *
   * @param code the status of the failed attempt
   * @return true when the modification is sent again
   */
  public static boolean modifyProcessInstance(Status.Code code) {
    return code == Status.Code.RESOURCE_EXHAUSTED;
  }

  /**
   * MigrateProcessInstance: resent only after RESOURCE_EXHAUSTED; a resend of an applied migration
   * would be refused and hide the success.
   *
   * @param code the status of the failed attempt
   * @return true when the migration is sent again
   */
  public static boolean migrateProcessInstance(Status.Code code) {
    return code == Status.Code.RESOURCE_EXHAUSTED;
  }

  /**
   * DeleteResource: resent only after RESOURCE_EXHAUSTED; a resend of an applied deletion would be
   * answered NOT_FOUND and hide the success.
   *
   * @param code the status of the failed attempt
   * @return true when the deletion is sent again
   */
  public static boolean deleteResource(Status.Code code) {
    return code == Status.Code.RESOURCE_EXHAUSTED;
  }

  /**
   * BroadcastSignal: resent only after RESOURCE_EXHAUSTED; a resend of an applied broadcast would
   * start a second instance of every process with a matching signal start event.
   *
   * @param code the status of the failed attempt
   * @return true when the signal is sent again
   */
  public static boolean broadcastSignal(Status.Code code) {
    return code == Status.Code.RESOURCE_EXHAUSTED;
  }

  /**
   * Sends one command on the command channel, resending it after the statuses {@code resendAfter}
   * accepts: at most {@link #MAX_ATTEMPTS} attempts, waiting the next step of a fresh
   * {@link Backoff} between two, each attempt's deadline the time left of the call's deadline; a
   * resend that would start after the deadline is not made (the last error is returned).
   * Cancelling the returned future stops further attempts.
   *
   * @param transport the client's transport
   * @param method the RPC
   * @param request the request (sent unchanged on every attempt)
   * @param resendAfter the command's rule, e.g. {@link #deleteResource}
   * @param <Q> request type
   * @param <R> response type
   * @return the response, or the typed error of the last attempt
   */
  public static <Q, R> CompletableFuture<R> send(Transport transport, MethodDescriptor<Q, R> method, Q request, Predicate<Status.Code> resendAfter) {
    return send(transport, method, request, resendAfter, new Backoff(transport.config().backoff()));
  }

  static <Q, R> CompletableFuture<R> send(Transport transport, MethodDescriptor<Q, R> method, Q request, Predicate<Status.Code> resendAfter, Backoff backoff) {
    CompletableFuture<R> out = new CompletableFuture<>();
    long deadline = System.nanoTime() + transport.config().commandTimeout().toNanos();
    attempt(transport, method, request, resendAfter, backoff, deadline, 1, out);
    return out;
  }

  private static <Q, R> void attempt(Transport transport, MethodDescriptor<Q, R> method, Q request, Predicate<Status.Code> resendAfter, Backoff backoff,
      long deadline, int n, CompletableFuture<R> out) {
    if (out.isDone()) return; // cancelled by the caller
    long left = deadline - System.nanoTime();
    transport.unary(method, request, Duration.ofNanos(Math.max(left, TimeUnit.MILLISECONDS.toNanos(1)))).whenComplete((r, e) -> {
      if (e == null) {
        out.complete(r);
        return;
      }
      JobwireException je = JobwireException.from(e, method.getBareMethodName());
      if (n >= MAX_ATTEMPTS || je.code() == null || !resendAfter.test(je.code())) {
        out.completeExceptionally(je);
        return;
      }
      long waitMs = backoff.next();
      if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs) >= deadline) {
        out.completeExceptionally(je); // the resend would start past the call's deadline
        return;
      }
      CompletableFuture.delayedExecutor(waitMs, TimeUnit.MILLISECONDS)
          .execute(() -> attempt(transport, method, request, resendAfter, backoff, deadline, n + 1, out));
    });
  }
}
