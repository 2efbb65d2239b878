package io.jobwire.internal.worker;

import io.grpc.MethodDescriptor;
import io.jobwire.JobHandler;
import io.jobwire.internal.ClientConfig;
import io.jobwire.internal.Transport;
import io.jobwire.internal.gateway.GatewayOuterClass.ActivatedJob;
import io.jobwire.internal.gateway.GatewayOuterClass.CompleteJobRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.FailJobRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.ThrowErrorRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.UpdateJobTimeoutRequest;
import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The entry point of the handler runner ({@code io.jobwire.testing.TestJobs#runHandler}): runs one
 * handler on one job through the worker's own parts — {@link JobExecutor} (handler threads, result
 * and exception mapping, manual outcomes), {@link Outcomes} (CompleteJob / FailJob / ThrowError
 * requests), {@link Extender} (auto-extend, {@code job.extendTimeout}) and {@link JobImpl} — wired as
 * {@link WorkerImpl} wires them, with a {@link Transport#local local transport} that records the
 * requests instead of sending them to a gateway. The job arrives as a polled job; {@code cancelAfter}
 * runs the worker's close steps (queued jobs back, running handlers cancelled and interrupted, a
 * handler that ignores it abandoned after the grace period). Internal API: use io.jobwire.testing.
 */
public final class LocalRun {
  private LocalRun() {}

  /** How to run: the worker options that matter for one job, the simulated close and the wait. */
  public record Options(Duration jobTimeout, boolean autoComplete, boolean autoExtend, Duration retryBackOff,
      Duration cancelAfter, Duration timeout) {}

  /**
   * What the worker sent for the job. {@code outcome}: "completed", "failed", "error" (BPMN error),
   * "cancelled" (handed back by close: retries unchanged) or "expired" (its deadline passed before the
   * handler started: dropped, nothing sent); the fields of the request that was sent;
   * {@code handlerError} what the handler threw (null if it returned); {@code extensionsMs} the
   * timeouts of the UpdateJobTimeout calls, in order.
   */
  public record Recorded(String outcome, String variables, int retries, String message, long backoffMs,
      String errorCode, Throwable handlerError, List<Long> extensionsMs) {}

  /**
   * Runs {@code handler} on {@code raw} and returns what the worker sent.
   *
   * @throws TimeoutException when the job did not settle within {@code options.timeout()}
   * @throws InterruptedException when the calling thread is interrupted
   */
  public static Recorded run(ActivatedJob raw, JobHandler handler, Options options) throws TimeoutException, InterruptedException {
    return run(raw, handler, options,
        options.retryBackOff() == null ? io.jobwire.RetryPolicy.defaultPolicy() : RetryPolicies.fixed(options.retryBackOff()));
  }

  /**
   * Runs {@code handler} on {@code raw} with a retry policy and returns what the worker sent.
   *
   * @throws TimeoutException when the job did not settle within {@code options.timeout()}
   * @throws InterruptedException when the calling thread is interrupted
   */
  public static Recorded run(ActivatedJob raw, JobHandler handler, Options options, io.jobwire.RetryPolicy policy)
      throws TimeoutException, InterruptedException {
    List<Object> sent = new CopyOnWriteArrayList<>();
    List<Long> extensions = new CopyOnWriteArrayList<>();
    Transport.LocalCalls sink = new Transport.LocalCalls() {
      @Override
      public <Q, R> CompletableFuture<R> call(MethodDescriptor<Q, R> method, Q request) {
        if (request instanceof UpdateJobTimeoutRequest u) extensions.add(u.getTimeout());
        else sent.add(request);
        // every call is acknowledged: the empty response message of its method
        return CompletableFuture.completedFuture(method.parseResponse(new ByteArrayInputStream(new byte[0])));
      }
    };
    ClientConfig config = new ClientConfig(List.of("in-process"), true, null, null, Duration.ofSeconds(45),
        ClientConfig.DEFAULT_STREAM_WINDOW, Duration.ofSeconds(30), null, null, null);
    Transport transport = Transport.local(config, sink);
    Transport.Lease lease = transport.leaseLong();
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    JobHandler observed = job -> {
      try {
        return handler.handle(job);
      } catch (Throwable t) {
        thrown.set(t);
        throw t;
      }
    };
    WorkerOptions o = new WorkerOptions(raw.getType(), observed, "jobwire-test", 1, 1, options.jobTimeout(), Duration.ofSeconds(10),
        Duration.ofMillis(100), false, Duration.ofHours(1), List.of(), List.of(), options.autoComplete(), options.autoExtend(),
        options.retryBackOff() == null ? Duration.ZERO : options.retryBackOff(), policy, null, null);
    ScheduledThreadPoolExecutor ctl = new ScheduledThreadPoolExecutor(1, JobExecutor.daemon("jobwire-test-" + raw.getType(), false));
    ctl.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    ctl.setRemoveOnCancelPolicy(true);
    Executor post = r -> {
      try {
        ctl.execute(r);
      } catch (RejectedExecutionException closed) {
        // finished
      }
    };
    CompletableFuture<Void> settled = new CompletableFuture<>();
    boolean[] claimed = {false};
    Ledger ledger = new Ledger(1, n -> {
      if (n > 0) claimed[0] = true;
      else if (claimed[0]) settled.complete(null);
    });
    Telemetry tel = new Telemetry(o.jobType(), o.workerName(), ledger::jobs);
    StateMachine machine = new StateMachine(s -> {});
    Control c = new Control(o, transport, lease, ctl, post, tel, machine, ledger, () -> {});
    Outcomes outcomes = new Outcomes(c);
    JobExecutor executor = new JobExecutor(c, outcomes, new Extender(c));
    try {
      post.execute(() -> {
        machine.start();
        ledger.reservePoll(1, false);
        Ledger.Slot slot = ledger.takePoll();
        ledger.returnPoll();
        executor.submit(raw, "poll", false, slot);
      });
      if (options.cancelAfter() != null) {
        ctl.schedule(() -> {
          // the worker's close: stop, queued jobs back, running handlers cancelled
          c.closing = true;
          c.stopping = true;
          executor.failBackQueued();
          executor.cancelRunning();
          ctl.schedule(executor::abandonStuck, WorkerImpl.CLOSE_GRACE_MS, TimeUnit.MILLISECONDS);
        }, options.cancelAfter().toMillis(), TimeUnit.MILLISECONDS);
      }
      try {
        settled.get(options.timeout().toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        throw new IllegalStateException(e.getCause());
      }
      return recorded(raw, c, sent, thrown.get(), extensions);
    } finally {
      post.execute(() -> {
        c.stopping = true;
        c.closing = true;
        executor.cancelRunning();
      });
      ctl.shutdown();
      executor.shutdown();
      lease.release();
      transport.close();
    }
  }

  private static Recorded recorded(ActivatedJob raw, Control c, List<Object> sent, Throwable thrown, List<Long> extensions) {
    List<Long> ext = List.copyOf(new ArrayList<>(extensions));
    // an expired job is dropped by the executor before its handler starts: nothing is sent
    if (sent.isEmpty()) return new Recorded("expired", null, raw.getRetries(), null, 0, null, thrown, ext);
    Object last = sent.get(sent.size() - 1);
    if (last instanceof CompleteJobRequest r) {
      return new Recorded("completed", r.getVariables(), raw.getRetries(), null, 0, null, thrown, ext);
    }
    if (last instanceof ThrowErrorRequest r) {
      return new Recorded("error", r.getVariables(), raw.getRetries(), r.getErrorMessage(), 0, r.getErrorCode(), thrown, ext);
    }
    FailJobRequest r = (FailJobRequest) last;
    boolean handedBack = c.closing && r.getRetries() == raw.getRetries() && Outcomes.MSG_CLOSING.equals(r.getErrorMessage());
    return new Recorded(handedBack ? "cancelled" : "failed", r.getVariables(), r.getRetries(), r.getErrorMessage(), r.getRetryBackOff(),
        null, thrown, ext);
  }
}
