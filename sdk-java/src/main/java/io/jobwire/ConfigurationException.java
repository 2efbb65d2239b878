package io.jobwire;

/**
 * Invalid configuration, detected when a client is built or a worker is opened
 * (a bad environment variable, a missing OAuth setting, a negative capacity...).
 * Checked: a misconfigured client or worker never starts.
 */
public class ConfigurationException extends Exception {
  private static final long serialVersionUID = 1L;

  /** @param message what is wrong and how to fix it */
  public ConfigurationException(String message) {
    super(message);
  }

  /**
   * @param message what is wrong and how to fix it
   * @param cause the underlying problem
   */
  public ConfigurationException(String message, Throwable cause) {
    super(message, cause);
  }
}
