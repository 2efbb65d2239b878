package io.jobwire;

import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Base of every exception the SDK raises for a failed gateway call or invalid input.
 * {@link #code()} is the gRPC status code ({@code null} for client-side errors), and
 * {@link #fromStatus} is the one table mapping status codes to the typed subclasses
 * (the same table in every jobwire SDK).
 */
public class JobwireException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The gRPC status code, or null for client-side errors. */
  private final Status.Code code;
  /** The status details as sent by the gateway. */
  private final String details;

  /**
   * Creates the exception.
   *
   * @param message human-readable message
   * @param code the gRPC status code, or null for client-side errors
   * @param details status details as sent by the gateway
   * @param cause the underlying exception, may be null
   */
  public JobwireException(String message, Status.Code code, String details, Throwable cause) {
    super(message, cause);
    this.code = code;
    this.details = details == null ? "" : details;
  }

  /**
   * A client-side error (no status code).
   *
   * @param message human-readable message
   */
  public JobwireException(String message) {
    this(message, null, "", null);
  }

  /** @return the gRPC status code, or null for client-side errors */
  public Status.Code code() {
    return code;
  }

  /** @return the name of the status code, e.g. {@code RESOURCE_EXHAUSTED}, or {@code CLIENT} */
  public String codeName() {
    return code == null ? "CLIENT" : code.name();
  }

  /** @return the status details as sent by the gateway (may be empty) */
  public String details() {
    return details;
  }

  @FunctionalInterface
  private interface Factory {
    JobwireException make(String message, Status.Code code, String details, Throwable cause);
  }

  private static final Map<Status.Code, Factory> TABLE = new EnumMap<>(Status.Code.class);

  static {
    TABLE.put(Status.Code.RESOURCE_EXHAUSTED, BackpressureException::new);
    TABLE.put(Status.Code.UNAVAILABLE, UnavailableException::new);
    TABLE.put(Status.Code.NOT_FOUND, NotFoundException::new);
    TABLE.put(Status.Code.INVALID_ARGUMENT, InvalidArgumentException::new);
    TABLE.put(Status.Code.FAILED_PRECONDITION, FailedPreconditionException::new);
    TABLE.put(Status.Code.ALREADY_EXISTS, AlreadyExistsException::new);
    TABLE.put(Status.Code.DEADLINE_EXCEEDED, DeadlineExceededException::new);
    TABLE.put(Status.Code.CANCELLED, RequestCancelledException::new);
    TABLE.put(Status.Code.UNAUTHENTICATED, UnauthenticatedException::new);
    TABLE.put(Status.Code.PERMISSION_DENIED, PermissionDeniedException::new);
    TABLE.put(Status.Code.UNIMPLEMENTED, UnimplementedException::new);
  }

  /**
   * The one table from gRPC status to typed exception: INTERNAL, UNKNOWN and every code
   * not listed map to {@link InternalException}.
   *
   * @param status the status of the failed call
   * @param what the operation, used as message prefix (may be null)
   * @param cause the underlying exception (may be null)
   * @return the typed exception
   */
  public static JobwireException fromStatus(Status status, String what, Throwable cause) {
    Status.Code code = status.getCode();
    String details = status.getDescription() == null ? "" : status.getDescription();
    String msg = (what == null ? "" : what + ": ") + code.name() + (details.isEmpty() ? "" : ": " + details);
    if (cause == null && status.getCause() != null) cause = status.getCause();
    Factory f = TABLE.getOrDefault(code, InternalException::new);
    return f.make(msg, code, details, cause);
  }

  /**
   * Converts anything a gRPC call or future failed with into a typed exception.
   *
   * @param t the failure
   * @param what the operation, used as message prefix (may be null)
   * @return t itself when it already is a JobwireException, else the typed equivalent
   */
  public static JobwireException from(Throwable t, String what) {
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof JobwireException) return (JobwireException) t;
    if (t instanceof StatusRuntimeException) return fromStatus(((StatusRuntimeException) t).getStatus(), what, t);
    if (t instanceof StatusException) return fromStatus(((StatusException) t).getStatus(), what, t);
    return new JobwireException((what == null ? "" : what + ": ") + t, null, "", t);
  }

  /**
   * Whether an outcome or command may be sent again after this error
   * (UNAVAILABLE, RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED).
   *
   * @return true when retrying with backoff makes sense
   */
  public boolean isRetryable() {
    return isRetryable(code);
  }

  /**
   * The rule behind {@link #isRetryable()}, by status code: UNAVAILABLE, RESOURCE_EXHAUSTED and
   * DEADLINE_EXCEEDED.
   *
   * @param code a gRPC status code (null: a client-side error, not retryable)
   * @return true when a command that failed with this code may be sent again
   */
  public static boolean isRetryable(Status.Code code) {
    return code == Status.Code.UNAVAILABLE
        || code == Status.Code.RESOURCE_EXHAUSTED
        || code == Status.Code.DEADLINE_EXCEEDED;
  }

  /**
   * Whether an outcome (CompleteJob, FailJob, ThrowError) is sent again with backoff, until the
   * job's deadline, after this error: the {@linkplain #isRetryable() retryable} codes plus ABORTED,
   * which Zeebe's gateway answers when its connection to the partition leader closed mid-request
   * ("Connection ... was closed": the broker died or lost leadership). The outcome may or may not
   * have been applied; resending is safe because an outcome names its job by key, and one that was
   * applied is answered NOT_FOUND (benign). Not for other commands: a resent
   * CreateProcessInstance would create a second instance. See docs/worker-semantics.md,
   * "Sending outcomes".
   *
   * @return true when the worker resends an outcome that failed with this error
   */
  public boolean isOutcomeRetryable() {
    return isOutcomeRetryable(code);
  }

  /**
   * The rule behind {@link #isOutcomeRetryable()}, by status code: the
   * {@linkplain #isRetryable(Status.Code) retryable} codes plus ABORTED.
   *
   * @param code a gRPC status code (null: a client-side error, not retryable)
   * @return true when the worker resends an outcome that failed with this code
   */
  public static boolean isOutcomeRetryable(Status.Code code) {
    return isRetryable(code) || code == Status.Code.ABORTED;
  }
}
