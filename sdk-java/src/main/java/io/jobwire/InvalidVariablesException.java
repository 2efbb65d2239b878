package io.jobwire;

/**
 * Variables that cannot be sent: not a JSON object, or not serializable.
 * Raised before anything is sent.
 */
public class InvalidVariablesException extends JobwireException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what is wrong
   * @param cause the serialization failure, may be null
   */
  public InvalidVariablesException(String message, Throwable cause) {
    super(message, null, "", cause);
  }
}
