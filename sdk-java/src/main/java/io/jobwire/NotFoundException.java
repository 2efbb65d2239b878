package io.jobwire;

import io.grpc.Status;

/**
 * NOT_FOUND: the entity (job, process, instance, incident) does not exist (anymore).
 * Part of the one status-code table of {@link JobwireException#fromStatus}.
 */
public class NotFoundException extends JobwireException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message human-readable message
   * @param code the gRPC status code (null for client-side errors)
   * @param details status details as sent by the gateway
   * @param cause the underlying exception, may be null
   */
  public NotFoundException(String message, Status.Code code, String details, Throwable cause) {
    super(message, code, details, cause);
  }
}
