package io.jobwire.internal.worker;

import io.jobwire.Job;
import io.jobwire.internal.gateway.GatewayOuterClass.ActivatedJob;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Jobs the application activated itself ({@code JobwireClient.activateJobs}): the same {@link Job}
 * a handler gets, but each outcome is one command through the client, sent once (no worker, no
 * resend). A second outcome fails with {@link IllegalStateException} and sends nothing.
 */
public final class DirectJob {
  private DirectJob() {}

  /** The client's job commands, by key. */
  public interface Commands {
    /** CompleteJob. @param key job @param variables JSON object text @return acknowledged */
    CompletableFuture<Void> complete(long key, String variables);

    /** FailJob. @param key job @param retries left @param message text @param backoff or null @param variables JSON text @return acknowledged */
    CompletableFuture<Void> fail(long key, int retries, String message, Duration backoff, String variables);

    /** ThrowError. @param key job @param code error code @param message text @param variables JSON text @return acknowledged */
    CompletableFuture<Void> throwError(long key, String code, String message, String variables);

    /** UpdateJobTimeout. @param key job @param timeout from now @return acknowledged */
    CompletableFuture<Void> updateTimeout(long key, Duration timeout);
  }

  /**
   * @param raw the activated job as received
   * @param commands the client's commands
   * @return the job
   */
  public static Job of(ActivatedJob raw, Commands commands) {
    long key = raw.getKey();
    AtomicBoolean settled = new AtomicBoolean();
    OutcomeSender sender = new OutcomeSender() {
      @Override
      public CompletableFuture<Void> send(Kind kind, String variables, String message, int retries, Duration backoff, String errorCode) {
        if (!settled.compareAndSet(false, true)) {
          return CompletableFuture.failedFuture(new IllegalStateException("jobwire: job " + key + " already has an outcome; nothing sent"));
        }
        switch (kind) {
          case COMPLETE:
            return commands.complete(key, variables);
          case FAIL:
            return commands.fail(key, retries, message, backoff, variables);
          default:
            return commands.throwError(key, errorCode, message, variables);
        }
      }

      @Override
      public CompletableFuture<Void> extendTimeout(long timeoutMs) {
        return commands.updateTimeout(key, Duration.ofMillis(timeoutMs));
      }
    };
    return new JobImpl(raw, "poll", sender);
  }
}
