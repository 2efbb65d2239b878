package io.jobwire;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Decides what happens when a handler (or a middleware) throws anything but a
 * {@link JobErrorException}: retry after a back-off, a BPMN error or an incident. A
 * {@code JobErrorException} never reaches the policy (it is a ThrowError as always); input that
 * does not fit a typed handler ({@link InvalidInputException}) does, as an ordinary failure.
 *
 * <p>The default ({@link #defaultPolicy()}) is an exponential back-off computed from the job's
 * remaining retries: 1 s, 2 s, 4 s … (×2, at most 60 s, ±10 % jitter) for retries 3, 2, 1, and an
 * incident at once for a {@link NonRetryableException} anywhere in the cause chain. A policy that
 * throws or returns null falls back to the default's decision (logged at warn).
 *
 * <pre>{@code
 * client.newWorker().jobType("charge").handler(handler)
 *     .retryPolicy((job, error) -> error instanceof InvalidInputException
 *         ? RetryDecision.incident(error.getMessage())
 *         : RetryPolicy.defaultPolicy().decide(job, error))
 *     .open();
 * }</pre>
 */
@FunctionalInterface
public interface RetryPolicy {

  /**
   * Decides the outcome of a failed job.
   *
   * @param job the job whose handler failed
   * @param error what the handler (or a middleware) threw
   * @return the decision (not null)
   */
  RetryDecision decide(Job job, Throwable error);

  /**
   * The default policy: {@code exponentialBackoff().build()}.
   *
   * @return the default policy
   */
  static RetryPolicy defaultPolicy() {
    return ExponentialBackoff.DEFAULT;
  }

  /**
   * A builder of an exponential back-off policy; unset values are the defaults (initial 1 s,
   * max 60 s, multiplier 2, jitter 0.1, maxRetries 3).
   *
   * @return a builder
   */
  static ExponentialBackoff exponentialBackoff() {
    return new ExponentialBackoff();
  }

  /**
   * Builds an exponential back-off policy: {@code attempt = max(0, maxRetries − job.retries)},
   * {@code backoff = min(max, initial × multiplier^attempt) × (1 + jitter × u)} with u uniform
   * in [−1, 1], rounded to whole milliseconds. A {@link NonRetryableException} in the cause chain
   * is an incident with its message.
   */
  final class ExponentialBackoff {
    private static final RetryPolicy DEFAULT = new ExponentialBackoff().build();
    private Duration initial = Duration.ofSeconds(1);
    private Duration max = Duration.ofSeconds(60);
    private double multiplier = 2.0;
    private double jitter = 0.1;
    private int maxRetries = 3;

    ExponentialBackoff() {}

    /**
     * The first back-off.
     *
     * @param d the back-off of the first retry (default 1 s; positive)
     * @return this builder
     */
    public ExponentialBackoff initial(Duration d) {
      this.initial = d;
      return this;
    }

    /**
     * The longest back-off.
     *
     * @param d the cap before jitter (default 60 s; at least {@code initial})
     * @return this builder
     */
    public ExponentialBackoff max(Duration d) {
      this.max = d;
      return this;
    }

    /**
     * The growth per attempt.
     *
     * @param m factor per attempt (default 2; at least 1)
     * @return this builder
     */
    public ExponentialBackoff multiplier(double m) {
      this.multiplier = m;
      return this;
    }

    /**
     * The jitter.
     *
     * @param j relative jitter, uniform in ±j (default 0.1; 0 to 1)
     * @return this builder
     */
    public ExponentialBackoff jitter(double j) {
      this.jitter = j;
      return this;
    }

    /**
     * The retries a job starts with, from which the attempt number is computed.
     *
     * @param n the job's initial retries (default 3, the BPMN default; at least 1)
     * @return this builder
     */
    public ExponentialBackoff maxRetries(int n) {
      this.maxRetries = n;
      return this;
    }

    /**
     * Checks the values and builds the policy.
     *
     * @return the policy
     * @throws IllegalArgumentException on invalid values
     */
    public RetryPolicy build() {
      if (initial == null || initial.isNegative() || initial.isZero()) throw new IllegalArgumentException("jobwire: initial must be positive, got " + initial);
      if (max == null || max.compareTo(initial) < 0) throw new IllegalArgumentException("jobwire: max must be >= initial, got " + max);
      if (!(multiplier >= 1) || Double.isInfinite(multiplier)) throw new IllegalArgumentException("jobwire: multiplier must be >= 1, got " + multiplier);
      if (!(jitter >= 0 && jitter <= 1)) throw new IllegalArgumentException("jobwire: jitter must be between 0 and 1, got " + jitter);
      if (maxRetries < 1) throw new IllegalArgumentException("jobwire: maxRetries must be >= 1, got " + maxRetries);
      final double initialMs = initial.toMillis();
      final double maxMs = max.toMillis();
      final double mult = multiplier;
      final double jit = jitter;
      final int maxR = maxRetries;
      return (job, error) -> {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
          if (t instanceof NonRetryableException) return RetryDecision.incident(t.getMessage() == null ? t.toString() : t.getMessage());
        }
        int attempt = Math.max(0, maxR - job.retries());
        double ms = Math.min(maxMs, initialMs * Math.pow(mult, attempt));
        double u = jit == 0 ? 0 : ThreadLocalRandom.current().nextDouble(-1.0, Math.nextUp(1.0));
        return RetryDecision.retry(Duration.ofMillis(Math.max(0, Math.round(ms * (1 + jit * u)))));
      };
    }
  }
}
