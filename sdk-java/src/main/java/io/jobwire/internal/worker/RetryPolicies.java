package io.jobwire.internal.worker;

import io.jobwire.NonRetryableException;
import io.jobwire.RetryDecision;
import io.jobwire.RetryPolicy;
import java.time.Duration;

/** The fixed back-off policy of an explicit {@code retryBackOff}. */
public final class RetryPolicies {
  private RetryPolicies() {}

  /**
   * @param backoff the back-off of every retry
   * @return a policy that retries after {@code backoff}; a {@link NonRetryableException} in the cause chain is an incident
   */
  public static RetryPolicy fixed(Duration backoff) {
    return (job, error) -> {
      NonRetryableException n = nonRetryable(error);
      if (n != null) return RetryDecision.incident(n.getMessage() == null ? n.toString() : n.getMessage());
      return RetryDecision.retry(backoff);
    };
  }

  /** @return the first {@link NonRetryableException} of the cause chain, or null */
  static NonRetryableException nonRetryable(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof NonRetryableException) return (NonRetryableException) t;
    }
    return null;
  }
}
