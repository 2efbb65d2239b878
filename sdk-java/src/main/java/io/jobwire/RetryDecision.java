package io.jobwire;

import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link RetryPolicy} decides for a failed job: retry after a back-off (FailJob with the
 * job's retries − 1), a BPMN error (ThrowError) or an incident now (FailJob with retries 0).
 * The three kinds are records, so a test can inspect a decision with {@code instanceof}.
 */
public sealed interface RetryDecision permits RetryDecision.Retry, RetryDecision.BpmnError, RetryDecision.Incident {

  /**
   * Retry: FailJob with the job's retries − 1 and this back-off; the message is the error's.
   *
   * @param backoff how long the engine waits before the job can be activated again (not negative)
   * @return the decision
   */
  static RetryDecision retry(Duration backoff) {
    return new Retry(backoff);
  }

  /**
   * A BPMN error: ThrowError with this code, message and variables.
   *
   * @param code matched against the errorCode of error events
   * @param message the error message (may be null)
   * @param variables a Map, a POJO, a JSON object text or null
   * @return the decision
   */
  static RetryDecision bpmnError(String code, String message, Object variables) {
    return new BpmnError(code, message, variables);
  }

  /**
   * An incident now: FailJob with retries 0 and this message.
   *
   * @param message the incident's message
   * @return the decision
   */
  static RetryDecision incident(String message) {
    return new Incident(message);
  }

  /**
   * Retry after a back-off.
   *
   * @param backoff the back-off sent with FailJob
   */
  record Retry(Duration backoff) implements RetryDecision {
    /**
     * Checks the back-off.
     *
     * @param backoff the back-off sent with FailJob (not negative)
     */
    public Retry {
      Objects.requireNonNull(backoff, "backoff");
      if (backoff.isNegative()) throw new IllegalArgumentException("jobwire: a retry back-off must not be negative, got " + backoff);
    }
  }

  /**
   * A BPMN error.
   *
   * @param code the error code
   * @param message the error message
   * @param variables the error variables (Map, POJO, JSON object text) or null
   */
  record BpmnError(String code, String message, Object variables) implements RetryDecision {
    /**
     * Checks the code.
     *
     * @param code the error code (not empty)
     * @param message the error message
     * @param variables the error variables or null
     */
    public BpmnError {
      if (code == null || code.isEmpty()) throw new IllegalArgumentException("jobwire: a BPMN error needs an error code");
    }
  }

  /**
   * An incident.
   *
   * @param message the incident's message
   */
  record Incident(String message) implements RetryDecision {}
}
