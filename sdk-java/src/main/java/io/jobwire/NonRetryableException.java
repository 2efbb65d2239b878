package io.jobwire;

/**
 * A failure that retrying cannot fix: the default retry policy (and the fixed back-off of
 * {@link JobWorkerBuilder#retryBackOff}) answers it with an incident at once (FailJob with
 * retries 0), whatever retries the job has left. Found anywhere in the cause chain, so a
 * library may wrap it. It is {@code NonRetryableError} in the other jobwire SDKs.
 *
 * <pre>{@code
 * throw new NonRetryableException("customer " + id + " does not exist");
 * }</pre>
 */
public class NonRetryableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** @param message the incident's message */
  public NonRetryableException(String message) {
    super(message);
  }

  /**
   * @param message the incident's message
   * @param cause the underlying failure
   */
  public NonRetryableException(String message, Throwable cause) {
    super(message, cause);
  }
}
