package io.jobwire.internal.worker;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * What the {@link io.jobwire.Job} given to a handler calls for its own job: an outcome (complete,
 * fail, throwError) or a new timeout. Implemented per held job by the executor, which sends it over
 * the worker's control thread (see {@link Outcomes} for the sending with retries). Any thread.
 */
interface OutcomeSender {
  enum Kind { COMPLETE, FAIL, ERROR }

  /**
   * Sends the job's outcome; completes when the gateway acknowledged it, exceptionally when the job
   * already has an outcome, is gone, or the outcome could not be delivered. {@code backoff} null:
   * the worker's retry back-off.
   */
  CompletableFuture<Void> send(Kind kind, String variables, String message, int retries, Duration backoff, String errorCode);

  /** Sets the job's timeout to {@code timeoutMs} from now (UpdateJobTimeout). */
  CompletableFuture<Void> extendTimeout(long timeoutMs);
}
