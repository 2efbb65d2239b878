package io.jobwire.internal.worker;

import static io.jobwire.internal.worker.Control.LOG;

import io.jobwire.RequestCancelledException;
import io.jobwire.InvalidVariablesException;
import io.jobwire.InvalidInputException;
import io.jobwire.JobErrorException;
import io.jobwire.RetryDecision;
import io.jobwire.RetryPolicy;
import io.jobwire.internal.Json;
import io.jobwire.internal.gateway.GatewayOuterClass.ActivatedJob;
import io.jobwire.internal.worker.Outcomes.Sent;
import io.jobwire.internal.worker.Outcomes.SendResult;
import io.jobwire.internal.worker.OutcomeSender.Kind;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The executor: runs the handlers of held jobs, at most {@code concurrency} at a time, on its own
 * threads; queues the rest; sends each job's outcome (through {@link Outcomes}) when its handler
 * returns, and releases the job's slot exactly once when the outcome settled. Control thread,
 * except the handlers themselves.
 */
final class JobExecutor {
  static final long EXPIRY_MARGIN_MS = 100;

  private final Control c;
  private final Outcomes outcomes;
  private final Extender extender;
  private final ExecutorService handlers;

  private final Map<Long, HeldJob> heldJobs = new HashMap<>();
  private final ArrayDeque<HeldJob> queue = new ArrayDeque<>();
  private int running;
  private final List<CompletableFuture<Void>> idleWaiters = new ArrayList<>();

  JobExecutor(Control c, Outcomes outcomes, Extender extender) {
    this.c = c;
    this.outcomes = outcomes;
    this.extender = extender;
    this.handlers = handlerExecutor(c.o.concurrency(), "jobwire-handler-" + c.o.jobType());
  }

  static ThreadFactory daemon(String name, boolean numbered) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, numbered ? name + "-" + n.incrementAndGet() : name);
      t.setDaemon(true);
      return t;
    };
  }

  /** Virtual threads when the runtime has them (21+), else a fixed pool of {@code concurrency} threads. */
  static ExecutorService handlerExecutor(int concurrency, String name) {
    try {
      Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
      Class<?> ofVirtual = Class.forName("java.lang.Thread$Builder$OfVirtual");
      builder = ofVirtual.getMethod("name", String.class, long.class).invoke(builder, name + "-", 1L);
      ThreadFactory f = (ThreadFactory) Class.forName("java.lang.Thread$Builder").getMethod("factory").invoke(builder);
      return (ExecutorService) Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class).invoke(null, f);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return Executors.newFixedThreadPool(concurrency, daemon(name, true));
    }
  }

  /** A received job whose slot is taken. */
  void submit(ActivatedJob raw, String activation, boolean counted, Ledger.Slot slot) {
    if (!counted) c.tel.jobActivated(activation);
    HeldJob prev = heldJobs.get(raw.getKey());
    if (prev != null) {
      if (!prev.outcomeSent) {
        // redelivered while queued/running: do not run it twice; the newer deadline counts
        LOG.debug("job {} delivered again while its handler runs; keeping the running attempt", raw.getKey());
        prev.job.deadline = Math.max(prev.job.deadline, raw.getDeadline());
        c.tel.jobHandled("duplicate", null);
        slot.release();
        c.onLedgerChange();
      } else {
        // the outcome is in flight and the engine activated the job again: run it after the acknowledgement
        LOG.debug("job {} delivered again while its outcome is in flight; it runs after the acknowledgement", raw.getKey());
        if (prev.redelivery != null) {
          c.tel.jobHandled("duplicate", null);
          prev.redelivery.slot.release();
          c.onLedgerChange();
        }
        prev.redelivery = new HeldJob(raw, activation, slot);
      }
      return;
    }
    HeldJob h = new HeldJob(raw, activation, slot);
    h.job = new JobImpl(raw, activation, senderFor(h));
    heldJobs.put(raw.getKey(), h);
    if (c.closing) {
      failBack(h, Outcomes.MSG_CLOSING);
      return;
    }
    queue.add(h);
    pump();
  }

  /** The outcome sender the job object of {@code h} calls (any thread). */
  private OutcomeSender senderFor(HeldJob h) {
    return new OutcomeSender() {
      @Override
      public CompletableFuture<Void> send(Kind kind, String vars, String message, int retries, Duration backoff, String code) {
        return manualOutcome(h, kind, vars, message, retries, backoff, code);
      }

      @Override
      public CompletableFuture<Void> extendTimeout(long timeoutMs) {
        return extender.extendTimeout(h.job, timeoutMs);
      }
    };
  }

  private void pump() {
    while (!c.closing && running < c.o.concurrency() && !queue.isEmpty()) {
      HeldJob h = queue.poll();
      if (h.job.deadline - System.currentTimeMillis() < EXPIRY_MARGIN_MS) {
        LOG.debug("job {} expired before its handler could start; dropped", h.raw.getKey());
        c.tel.jobHandled("expired", null);
        h.outcome = "expired";
        finish(h);
        continue;
      }
      running++;
      h.running = true;
      startHandler(h);
    }
    checkIdle();
  }

  private void startHandler(HeldJob h) {
    h.t0 = System.nanoTime();
    h.span = c.tel.startJobSpan(h.job, h.activation, h.job.traceparent());
    if (c.o.autoExtend()) extender.start(h);
    Context spanCtx = Context.current().with(h.span);
    handlers.execute(() -> {
      h.thread = Thread.currentThread();
      Object result = null;
      Throwable err = null;
      try (Scope ignored = spanCtx.makeCurrent()) {
        result = c.o.handler().handle(h.job);
      } catch (Throwable t) {
        err = t;
      } finally {
        h.thread = null;
        Thread.interrupted(); // never leak an interrupt to the next handler on this thread
      }
      // the retry policy is user code: it runs here, on the handler's thread, not on the control thread
      RetryDecision d = err == null || err instanceof JobErrorException ? null : decide(h, err);
      Object r = result;
      Throwable e = err;
      try {
        c.post.execute(() -> handlerDone(h, r, e, d));
      } catch (RuntimeException rejected) {
        // the worker is gone (closed without waiting for this abandoned handler)
      }
    });
  }

  /**
   * The retry policy's decision for a failed job; a policy that throws or returns null falls back
   * to the default policy's decision.
   */
  RetryDecision decide(HeldJob h, Throwable err) {
    try {
      RetryDecision d = c.o.retryPolicy().decide(h.job, err);
      if (d != null) return d;
      LOG.warn("job {}: the retry policy returned null; using the default policy", h.raw.getKey());
    } catch (Throwable t) {
      LOG.warn("job {}: the retry policy threw {}; using the default policy", h.raw.getKey(), t.toString());
    }
    return RetryPolicy.defaultPolicy().decide(h.job, err);
  }

  /**
   * Sends what the retry policy decided for a failed job (control thread). {@code d} is null when
   * the failure happened here (a handler result or BPMN error variables that are not a JSON
   * object): then the policy runs here, on the control thread.
   */
  private void failByPolicy(HeldJob h, Throwable err, RetryDecision d) {
    if (d == null) d = decide(h, err);
    int left = Math.max(0, h.raw.getRetries() - 1);
    if (d instanceof RetryDecision.Retry r) {
      // the SDK's own input/output errors carry their message only; a handler's error its stack trace (as always)
      String msg = err instanceof InvalidInputException || err instanceof InvalidVariablesException ? err.getMessage() : Outcomes.errorMessage(err);
      sendOutcome(h, Kind.FAIL, "", msg, left, r.backoff().toMillis(), null, null);
    } else if (d instanceof RetryDecision.Incident i) {
      sendOutcome(h, Kind.FAIL, "", i.message() == null ? "job failed" : i.message(), 0, 0, null, null);
    } else {
      RetryDecision.BpmnError b = (RetryDecision.BpmnError) d;
      String vars;
      try {
        vars = Json.variablesToJson(b.variables(), "error variables of job " + h.raw.getKey());
      } catch (InvalidVariablesException x) {
        c.reportError(x);
        h.failure = x;
        failByPolicy(h, x, RetryPolicy.defaultPolicy().decide(h.job, x)); // never a BPMN error: no loop
        return;
      }
      sendOutcome(h, Kind.ERROR, vars, b.message(), 0, 0, b.code(), null);
    }
  }

  private void handlerDone(HeldJob h, Object result, Throwable err, RetryDecision decision) {
    if (h.running) { // an abandoned handler was already taken off the running count by close
      running--;
      h.running = false;
    }
    h.handlerDone = true;
    extender.stop(h);
    try {
      if (h.abandoned) {
        // handed back by close(): whatever the handler returns later is not sent
        Telemetry.endJobSpan(h.span, "cancelled", err);
        h.span = null;
        return;
      }
      if (err == null) {
        if (result instanceof JobErrorException) {
          autoOutcome(h, Kind.ERROR, (JobErrorException) result);
        } else if (c.o.autoComplete() && !h.outcomeSent) {
          String vars;
          try {
            // no result (the common case): no variables, and no error context built for nothing
            vars = result == null ? "" : Json.variablesToJson(result, "handler result of job " + h.raw.getKey());
          } catch (InvalidVariablesException e) {
            c.reportError(e);
            h.failure = e;
            failByPolicy(h, e, null);
            return;
          }
          sendOutcome(h, Kind.COMPLETE, vars, null, 0, 0, null, null);
        } else if (!h.outcomeSent) {
          // manual mode: the slot stays held until an outcome is acknowledged or the deadline passes
          long wait = Math.max(0, h.job.deadline - System.currentTimeMillis());
          h.unsettledTimer = c.ctl.schedule(() -> {
            if (!h.outcomeSent && !h.finished) {
              LOG.warn("job {}: no outcome before its deadline (manual mode); releasing its slot", h.raw.getKey());
              h.outcome = "unsettled";
              settle(h);
            }
          }, wait, TimeUnit.MILLISECONDS);
        } else {
          maybeSettle(h);
        }
      } else {
        h.failure = err;
        Throwable cause = err;
        if (cause instanceof JobErrorException) {
          autoOutcome(h, Kind.ERROR, (JobErrorException) cause);
        } else if (h.job.cancelled && c.closing && !h.outcomeSent) {
          failBackInRun(h);
        } else if (h.outcomeSent) {
          maybeSettle(h);
        } else {
          failByPolicy(h, err, decision);
        }
      }
    } finally {
      pump();
    }
  }

  private void autoOutcome(HeldJob h, Kind kind, JobErrorException e) {
    if (h.outcomeSent) {
      maybeSettle(h);
      return;
    }
    String vars;
    try {
      vars = Json.variablesToJson(e.variables(), "error variables of job " + h.raw.getKey());
    } catch (InvalidVariablesException x) {
      c.reportError(x);
      h.failure = x;
      failByPolicy(h, x, null);
      return;
    }
    sendOutcome(h, kind, vars, e.getMessage(), 0, 0, e.code(), null);
  }

  /**
   * Sends an outcome for a held job; when acknowledged (or not found / given up) records it and
   * settles the job once its handler returned.
   */
  private void sendOutcome(HeldJob h, Kind kind, String vars, String message, int retries, long backoffMs, String code, CompletableFuture<Void> caller) {
    h.outcomeSent = true;
    if (h.unsettledTimer != null) h.unsettledTimer.cancel(false);
    long key = h.raw.getKey();
    CompletableFuture<Sent> f;
    String name;
    switch (kind) {
      case COMPLETE:
        name = "completed";
        f = outcomes.complete(key, vars, h.job.deadline);
        break;
      case FAIL:
        name = "failed";
        f = outcomes.fail(key, retries, message == null ? "job failed" : message, backoffMs, vars, h.job.deadline, false);
        break;
      default:
        name = "error";
        f = outcomes.throwError(key, code, message, vars, h.job.deadline);
    }
    outcomes.track(f.thenAcceptAsync(r -> {
      switch (r.result()) {
        case OK:
          h.outcome = name;
          if (caller != null) caller.complete(null);
          break;
        case NOT_FOUND:
          h.outcome = "not_found";
          if (caller != null) caller.completeExceptionally(r.error());
          break;
        default:
          h.outcome = "undelivered";
          if (h.failure == null) h.failure = r.error();
          LOG.warn("job {}: outcome {} was not delivered: {}", key, name, r.error().getMessage());
          if (caller != null) caller.completeExceptionally(r.error());
      }
      maybeSettle(h);
    }, c.post));
  }

  /** An outcome the handler sent through its job (any thread): goes through the control thread. */
  private CompletableFuture<Void> manualOutcome(HeldJob h, Kind kind, String vars, String message, int retries, Duration backoff, String code) {
    CompletableFuture<Void> caller = new CompletableFuture<>();
    try {
      c.post.execute(() -> {
        if (h.outcomeSent || h.finished) {
          caller.completeExceptionally(new IllegalStateException("jobwire: job " + h.raw.getKey() + " already has an outcome; nothing sent"));
          return;
        }
        long b = backoff == null ? c.o.retryBackOff().toMillis() : backoff.toMillis();
        sendOutcome(h, kind, vars, message, retries, b, code, caller);
      });
    } catch (RuntimeException rejected) {
      caller.completeExceptionally(new RequestCancelledException("jobwire: the worker is closed", null, "", rejected));
    }
    return caller;
  }

  private void maybeSettle(HeldJob h) {
    if (h.handlerDone && h.outcome != null && !h.finished) settle(h);
  }

  /** Records the outcome (metric, span) and releases the slot. */
  private void settle(HeldJob h) {
    Double durationS = h.t0 == 0 ? null : (System.nanoTime() - h.t0) / 1e9;
    c.tel.jobHandled(h.outcome, durationS);
    if (h.span != null) {
      Telemetry.endJobSpan(h.span, h.outcome, h.failure);
      h.span = null;
    }
    finish(h);
  }

  /** Releases a held job's slot, exactly once; a redelivery waiting for this job runs next. */
  private void finish(HeldJob h) {
    if (h.finished) return;
    h.finished = true;
    if (heldJobs.get(h.raw.getKey()) == h) heldJobs.remove(h.raw.getKey());
    HeldJob next = h.redelivery;
    h.redelivery = null;
    h.slot.release();
    // the redelivery took its own slot when it arrived and keeps it for its run (not taken again)
    if (next != null) submit(next.raw, next.activation, true, next.slot);
    c.onLedgerChange();
    pump();
  }

  private void checkIdle() {
    if (running == 0 && !idleWaiters.isEmpty()) {
      for (CompletableFuture<Void> w : idleWaiters) w.complete(null);
      idleWaiters.clear();
    }
  }

  /** Fails a queued/held job back at once (retries unchanged, no backoff) over the long-call connection. */
  private void failBack(HeldJob h, String msg) {
    h.outcomeSent = true;
    h.handlerDone = true;
    CompletableFuture<Sent> f = outcomes.fail(h.raw.getKey(), h.raw.getRetries(), msg, 0, "", Math.min(h.job.deadline, System.currentTimeMillis() + 5_000), true);
    outcomes.track(f.thenAcceptAsync(r -> {
      h.outcome = Outcomes.handBackOutcome(r);
      h.t0 = 0;
      settle(h);
    }, c.post));
  }

  /** A cancelled handler's job: failed back with retries unchanged, no backoff. */
  private void failBackInRun(HeldJob h) {
    h.outcomeSent = true;
    CompletableFuture<Sent> f = outcomes.fail(h.raw.getKey(), h.raw.getRetries(), Outcomes.MSG_CLOSING, 0, "", Math.min(h.job.deadline, System.currentTimeMillis() + 5_000), true);
    outcomes.track(f.thenAcceptAsync(r -> {
      h.outcome = Outcomes.handBackOutcome(r);
      maybeSettle(h);
    }, c.post));
  }

  // ---- close (control thread) ----

  /** Jobs received but not started go back at once. */
  void failBackQueued() {
    for (HeldJob h : queue) failBack(h, Outcomes.MSG_CLOSING);
    queue.clear();
  }

  /** Marks every running job cancelled and interrupts its handler. */
  void cancelRunning() {
    for (HeldJob h : heldJobs.values()) {
      if (h.running) {
        h.job.cancelled = true;
        Thread t = h.thread;
        if (t != null) t.interrupt();
      }
    }
  }

  /** Hands back the jobs of handlers that ignored cancellation; returns how many. */
  int abandonStuck() {
    int n = 0;
    for (HeldJob h : new ArrayList<>(heldJobs.values())) {
      if (h.running && !h.abandoned && !h.outcomeSent) {
        h.abandoned = true;
        n++;
        running--;
        h.running = false;
        failBack(h, Outcomes.MSG_CLOSING);
      }
    }
    checkIdle();
    return n;
  }

  /** Completes when no handler runs. */
  CompletableFuture<Void> idleFuture() {
    CompletableFuture<Void> f = new CompletableFuture<>();
    if (running == 0) f.complete(null);
    else idleWaiters.add(f);
    return f;
  }

  void shutdown() {
    handlers.shutdown();
  }
}
