package io.jobwire.internal.worker;

import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Exponential backoff shared by polls, stream reopens and outcome retries: 50 ms → 5 s, ×1.6 per
 * failure, ±10 % jitter, back to the start on success.
 */
public final class Backoff {
  public static final long MIN_MS = 50;
  public static final long MAX_MS = 5_000;
  public static final double FACTOR = 1.6;
  public static final double JITTER = 0.1;

  private final DoubleSupplier random;
  private double current;

  public Backoff() {
    this(() -> ThreadLocalRandom.current().nextDouble());
  }

  public Backoff(DoubleSupplier random) {
    this.random = random;
  }

  /** @return the delay before the next attempt in ms; grows on every call until {@link #reset()} */
  public long next() {
    current = current == 0 ? MIN_MS : Math.min(MAX_MS, current * FACTOR);
    return jitter(current);
  }

  /** @return the longest delay (with jitter): after errors that need a human (auth, bad request) */
  public long max() {
    current = MAX_MS;
    return jitter(MAX_MS);
  }

  /** Back to the first step; called after every success. */
  public void reset() {
    current = 0;
  }

  private long jitter(double ms) {
    return Math.round(ms * (1 + JITTER * (2 * random.getAsDouble() - 1)));
  }
}
