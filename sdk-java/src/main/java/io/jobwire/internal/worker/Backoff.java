package io.jobwire.internal.worker;

import io.jobwire.internal.ClientConfig.TransportBackoff;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Exponential backoff shared by polls, stream reopens and outcome retries: by default 50 ms → 5 s,
 * ×1.6 per failure (the client's {@code backoff} option), ±10 % jitter, back to the start on success.
 */
public final class Backoff {
  public static final long MIN_MS = 50;
  public static final long MAX_MS = 5_000;
  public static final double FACTOR = 1.6;
  public static final double JITTER = 0.1;

  private final DoubleSupplier random;
  private final double minMs;
  private final double maxMs;
  private final double factor;
  private double current;

  public Backoff() {
    this(TransportBackoff.DEFAULT);
  }

  public Backoff(TransportBackoff bounds) {
    this(bounds, () -> ThreadLocalRandom.current().nextDouble());
  }

  public Backoff(DoubleSupplier random) {
    this(TransportBackoff.DEFAULT, random);
  }

  public Backoff(TransportBackoff bounds, DoubleSupplier random) {
    this.random = random;
    this.minMs = bounds.initial().toMillis();
    this.maxMs = bounds.max().toMillis();
    this.factor = bounds.multiplier();
  }

  /** @return the delay before the next attempt in ms; grows on every call until {@link #reset()} */
  public long next() {
    current = current == 0 ? minMs : Math.min(maxMs, current * factor);
    return jitter(current);
  }

  /** @return the longest delay (with jitter): after errors that need a human (auth, bad request) */
  public long max() {
    current = maxMs;
    return jitter(maxMs);
  }

  /** Back to the first step; called after every success. */
  public void reset() {
    current = 0;
  }

  private long jitter(double ms) {
    return Math.round(ms * (1 + JITTER * (2 * random.getAsDouble() - 1)));
  }
}
