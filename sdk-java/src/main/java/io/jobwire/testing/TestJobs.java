package io.jobwire.testing;

import io.jobwire.JobHandler;
import io.jobwire.internal.Json;
import io.jobwire.internal.worker.LocalRun;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * Runs a handler on a {@link TestJob} exactly as a worker runs it — the worker's own executor, job
 * object, result and exception mapping, manual outcomes, auto-extend and close — with an in-process
 * recorder in place of the gateway; no network, no engine.
 */
public final class TestJobs {
  private TestJobs() {}

  /**
   * Runs {@code handler} on {@code job} with the default {@link RunOptions}.
   *
   * @param handler the handler under test
   * @param job the job
   * @return what the worker sent
   */
  public static HandlerResult runHandler(JobHandler handler, TestJob job) {
    return runHandler(handler, job, RunOptions.defaults());
  }

  /**
   * Runs {@code handler} on {@code job}.
   *
   * @param handler the handler under test
   * @param job the job
   * @param options worker options, a simulated close and the wait
   * @return what the worker sent
   * @throws AssertionError when the job has no outcome within {@code options.timeout()}, or its
   *     deadline passed before the handler could start
   */
  public static HandlerResult runHandler(JobHandler handler, TestJob job, RunOptions options) {
    LocalRun.Options o = new LocalRun.Options(options.jobTimeout(), options.autoComplete(), options.autoExtend(),
        options.retryBackOff(), options.cancelAfter(), options.timeout());
    LocalRun.Recorded r;
    try {
      r = LocalRun.run(job.toActivated(System.currentTimeMillis() + options.jobTimeout().toMillis()), handler, o);
    } catch (TimeoutException e) {
      throw new AssertionError("jobwire: job " + job.key() + " (" + job.jobType() + ") has no outcome after " + options.timeout()
          + " (a manual-mode handler that sent none, or a handler still running)", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("jobwire: interrupted while the handler ran", e);
    }
    if (r.outcome().equals("expired")) {
      throw new AssertionError("jobwire: job " + job.key() + " expired before its handler could start (its deadline "
          + job.deadline() + " has passed); the worker drops such a job without running it");
    }
    HandlerResult.Outcome outcome = switch (r.outcome()) {
      case "completed" -> HandlerResult.Outcome.COMPLETED;
      case "error" -> HandlerResult.Outcome.BPMN_ERROR;
      case "cancelled" -> HandlerResult.Outcome.CANCELLED;
      default -> HandlerResult.Outcome.FAILED;
    };
    Map<String, Object> vars = r.variables() == null || r.variables().isEmpty() ? Map.of() : Json.parseObject(r.variables());
    List<Duration> ext = r.extensionsMs().stream().map(Duration::ofMillis).toList();
    return new HandlerResult(outcome, vars, r.retries(), r.message(), Duration.ofMillis(r.backoffMs()), r.errorCode(),
        r.handlerError(), ext);
  }
}
