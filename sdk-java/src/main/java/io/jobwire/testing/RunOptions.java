package io.jobwire.testing;

import java.time.Duration;

/**
 * Options of {@link TestJobs#runHandler(io.jobwire.JobHandler, TestJob, RunOptions)}: the worker
 * settings that matter for one job (same names and defaults as {@link io.jobwire.JobWorkerBuilder}),
 * a simulated close while the handler runs, and how long to wait.
 *
 * @param jobTimeout the worker's job timeout (default 5 minutes): the deadline of a job without one,
 *     and the timeout auto-extend asks for
 * @param autoComplete complete the job with the handler's result (default true)
 * @param autoExtend extend the job's timeout while the handler runs (default true)
 * @param retryBackOff a fixed retry back-off for failures, as the worker's {@code retryBackOff} (default null: the
 *     worker's default retry policy, exponential back-off from the job's retries)
 * @param cancelAfter close the worker this long after the handler started (null: never)
 * @param timeout how long to wait for the job's outcome (default 30 seconds)
 */
public record RunOptions(
    Duration jobTimeout, boolean autoComplete, boolean autoExtend, Duration retryBackOff, Duration cancelAfter, Duration timeout) {

  /** @return a builder with the defaults */
  public static Builder builder() {
    return new Builder();
  }

  /** @return the defaults */
  public static RunOptions defaults() {
    return builder().build();
  }

  /** Builds {@link RunOptions}. */
  public static final class Builder {
    private Duration jobTimeout = Duration.ofMinutes(5);
    private boolean autoComplete = true;
    private boolean autoExtend = true;
    private Duration retryBackOff;
    private Duration cancelAfter;
    private Duration timeout = Duration.ofSeconds(30);

    private Builder() {}

    /**
     * @param jobTimeout the worker's job timeout
     * @return this builder
     */
    public Builder jobTimeout(Duration jobTimeout) {
      this.jobTimeout = positive("jobTimeout", jobTimeout);
      return this;
    }

    /**
     * @param autoComplete complete with the handler's result
     * @return this builder
     */
    public Builder autoComplete(boolean autoComplete) {
      this.autoComplete = autoComplete;
      return this;
    }

    /**
     * @param autoExtend extend the timeout while the handler runs
     * @return this builder
     */
    public Builder autoExtend(boolean autoExtend) {
      this.autoExtend = autoExtend;
      return this;
    }

    /**
     * @param retryBackOff the worker's retry back-off
     * @return this builder
     */
    public Builder retryBackOff(Duration retryBackOff) {
      if (retryBackOff != null && retryBackOff.isNegative()) throw new IllegalArgumentException("retryBackOff must be >= 0");
      this.retryBackOff = retryBackOff;
      return this;
    }

    /**
     * @param cancelAfter close the worker this long after the handler started
     * @return this builder
     */
    public Builder cancelAfter(Duration cancelAfter) {
      if (cancelAfter != null && cancelAfter.isNegative()) throw new IllegalArgumentException("cancelAfter must be >= 0");
      this.cancelAfter = cancelAfter;
      return this;
    }

    /**
     * @param timeout how long to wait for the outcome
     * @return this builder
     */
    public Builder timeout(Duration timeout) {
      this.timeout = positive("timeout", timeout);
      return this;
    }

    /** @return the options */
    public RunOptions build() {
      return new RunOptions(jobTimeout, autoComplete, autoExtend, retryBackOff, cancelAfter, timeout);
    }

    private static Duration positive(String name, Duration d) {
      if (d == null || d.isNegative() || d.isZero()) throw new IllegalArgumentException(name + " must be positive");
      return d;
    }
  }
}
