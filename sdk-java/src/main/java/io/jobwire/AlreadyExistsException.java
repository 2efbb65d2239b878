package io.jobwire;

import io.grpc.Status;

/**
 * ALREADY_EXISTS: e.g. a message with the same id is still alive.
 * Part of the one status-code table of {@link JobwireException#fromStatus}.
 */
public class AlreadyExistsException extends JobwireException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message human-readable message
   * @param code the gRPC status code (null for client-side errors)
   * @param details status details as sent by the gateway
   * @param cause the underlying exception, may be null
   */
  public AlreadyExistsException(String message, Status.Code code, String details, Throwable cause) {
    super(message, code, details, cause);
  }
}
