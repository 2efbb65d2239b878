package io.jobwire.internal.worker;

import io.grpc.Status;
import io.jobwire.JobwireException;

/**
 * The worker's decisions on a failed gateway call, by status code, as pure functions: what happens
 * to an outcome that failed ({@link #classifyOutcome}) and to a poll or stream that failed
 * ({@link #activationDecision}). The poller, the streamer and the outcome sender ask these and
 * nothing else. The command rule is {@link JobwireException#isRetryable(Status.Code)}, the error
 * mapping {@link JobwireException#fromStatus}. See docs/worker-semantics.md ("Sending outcomes",
 * "Errors"); conformance-tests/vectors/status-codes.json pins every case.
 */
public final class StatusRules {
  private StatusRules() {}

  /** What the worker does with an outcome (CompleteJob, FailJob, ThrowError) that failed. */
  public enum Outcome {
    /** resent with backoff until the job's deadline */
    RETRY,
    /** the job is no longer activated (timed out, cancelled, or an earlier attempt applied): counted not_found, not reported, not resent */
    BENIGN,
    /** undelivered: reported, not resent */
    GIVE_UP
  }

  /** The activation call that failed. */
  public enum Call {
    /** ActivateJobs */
    POLL,
    /** StreamActivatedJobs */
    STREAM
  }

  /** What the worker does after a failed poll or stream. */
  public enum Activation {
    /** wait the next step of the backoff, log, do not report */
    BACKOFF,
    /** report the error to the application and wait the maximum backoff */
    MAX_BACKOFF_REPORT,
    /** the gateway has no job streaming: poll only, never reopen */
    POLLING_ONLY
  }

  /**
   * Whether a call naming a job by key failed because the job is no longer activated
   * (NOT_FOUND, FAILED_PRECONDITION).
   *
   * @param code the status code
   * @return true when the job is gone
   */
  public static boolean jobGone(Status.Code code) {
    return code == Status.Code.NOT_FOUND || code == Status.Code.FAILED_PRECONDITION;
  }

  /**
   * Whether a RESOURCE_EXHAUSTED message is a size refusal (the message is over the gateway's or
   * client's limit, refused the same way every time) rather than backpressure.
   *
   * @param message the status description (may be null)
   * @return true for a size refusal
   */
  public static boolean isSizeRefusal(String message) {
    return message != null && (message.contains("larger than max") || message.contains("exceeds maximum size"));
  }

  /**
   * What happens to an outcome that failed with this status.
   *
   * @param code the status code
   * @param message the status description (may be null or empty)
   * @return retry, benign or give up
   */
  public static Outcome classifyOutcome(Status.Code code, String message) {
    if (jobGone(code)) return Outcome.BENIGN;
    if (code == Status.Code.RESOURCE_EXHAUSTED && isSizeRefusal(message)) return Outcome.GIVE_UP;
    return JobwireException.isOutcomeRetryable(code) ? Outcome.RETRY : Outcome.GIVE_UP;
  }

  /**
   * What happens after a poll or stream failed with this status (the one retry with a fresh
   * OAuth token on UNAUTHENTICATED, and a long poll's empty DEADLINE_EXCEEDED, come before).
   *
   * @param call the failed call
   * @param code the status code
   * @return backoff, report at the maximum backoff, or polling only
   */
  public static Activation activationDecision(Call call, Status.Code code) {
    if (call == Call.STREAM && code == Status.Code.UNIMPLEMENTED) return Activation.POLLING_ONLY;
    if (code == Status.Code.INVALID_ARGUMENT || code == Status.Code.PERMISSION_DENIED || code == Status.Code.UNAUTHENTICATED) {
      return Activation.MAX_BACKOFF_REPORT;
    }
    return Activation.BACKOFF;
  }
}
