package io.jobwire;

import io.grpc.Status;

/**
 * CANCELLED: the call was cancelled (by the caller or a close). The same name as
 * {@code RequestCancelledError} in the other jobwire SDKs.
 * Part of the one status-code table of {@link JobwireException#fromStatus}.
 */
public class RequestCancelledException extends JobwireException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message human-readable message
   * @param code the gRPC status code (null for client-side errors)
   * @param details status details as sent by the gateway
   * @param cause the underlying exception, may be null
   */
  public RequestCancelledException(String message, Status.Code code, String details, Throwable cause) {
    super(message, code, details, cause);
  }
}
