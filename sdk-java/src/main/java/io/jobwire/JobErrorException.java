package io.jobwire;

/**
 * A BPMN error: thrown by a handler, the worker sends {@code ThrowError} with this code,
 * message and variables, so that a matching error boundary event catches it. It is
 * {@code JobError} in the other jobwire SDKs; in Java, exception classes end in
 * {@code Exception}.
 *
 * <pre>{@code
 * throw new JobErrorException("CARD_DECLINED", "card was declined", Map.of("reason", "limit"));
 * }</pre>
 */
public class JobErrorException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The BPMN error code. */
  private final String code;
  private final transient Object variables;

  /**
   * @param code matched against the errorCode of error events
   * @param message error message (may be empty)
   * @param variables variables set on the error scope: a Map, a POJO or a JSON object string; may be null
   */
  public JobErrorException(String code, String message, Object variables) {
    super(message == null ? "" : message);
    if (code == null || code.isEmpty()) throw new IllegalArgumentException("JobErrorException needs an error code");
    this.code = code;
    this.variables = variables;
  }

  /**
   * @param code matched against the errorCode of error events
   * @param message error message
   */
  public JobErrorException(String code, String message) {
    this(code, message, null);
  }

  /** @return the BPMN error code */
  public String code() {
    return code;
  }

  /** @return the error variables (Map, POJO, JSON string) or null */
  public Object variables() {
    return variables;
  }

}
