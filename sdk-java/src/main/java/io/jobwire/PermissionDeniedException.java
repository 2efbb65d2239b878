package io.jobwire;

import io.grpc.Status;

/**
 * PERMISSION_DENIED: the credentials do not allow the command.
 * Part of the one status-code table of {@link JobwireException#fromStatus}.
 */
public class PermissionDeniedException extends JobwireException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message human-readable message
   * @param code the gRPC status code (null for client-side errors)
   * @param details status details as sent by the gateway
   * @param cause the underlying exception, may be null
   */
  public PermissionDeniedException(String message, Status.Code code, String details, Throwable cause) {
    super(message, code, details, cause);
  }
}
