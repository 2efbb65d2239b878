package io.jobwire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class ErrorTableTest {
  @Test
  void everyStatusMapsToItsTypedException() {
    Map<Status.Code, Class<? extends JobwireException>> want = Map.ofEntries(
        Map.entry(Status.Code.RESOURCE_EXHAUSTED, BackpressureException.class),
        Map.entry(Status.Code.UNAVAILABLE, UnavailableException.class),
        Map.entry(Status.Code.NOT_FOUND, NotFoundException.class),
        Map.entry(Status.Code.INVALID_ARGUMENT, InvalidArgumentException.class),
        Map.entry(Status.Code.FAILED_PRECONDITION, FailedPreconditionException.class),
        Map.entry(Status.Code.ALREADY_EXISTS, AlreadyExistsException.class),
        Map.entry(Status.Code.DEADLINE_EXCEEDED, DeadlineExceededException.class),
        Map.entry(Status.Code.CANCELLED, RequestCancelledException.class),
        Map.entry(Status.Code.UNAUTHENTICATED, UnauthenticatedException.class),
        Map.entry(Status.Code.PERMISSION_DENIED, PermissionDeniedException.class),
        Map.entry(Status.Code.UNIMPLEMENTED, UnimplementedException.class),
        Map.entry(Status.Code.INTERNAL, InternalException.class),
        Map.entry(Status.Code.UNKNOWN, InternalException.class),
        Map.entry(Status.Code.DATA_LOSS, InternalException.class),
        Map.entry(Status.Code.ABORTED, InternalException.class));
    for (var e : want.entrySet()) {
      JobwireException x = JobwireException.fromStatus(Status.fromCode(e.getKey()).withDescription("boom"), "CompleteJob", null);
      assertEquals(e.getValue(), x.getClass(), e.getKey().name());
      assertEquals(e.getKey(), x.code());
      assertEquals(e.getKey().name(), x.codeName());
      assertEquals("boom", x.details());
      assertEquals("CompleteJob: " + e.getKey().name() + ": boom", x.getMessage());
    }
  }

  @Test
  void unwrapsFuturesAndKeepsTypedExceptions() {
    var sre = Status.NOT_FOUND.withDescription("job 1 not found").asRuntimeException();
    JobwireException x = JobwireException.from(new CompletionException(sre), "CompleteJob");
    assertInstanceOf(NotFoundException.class, x);
    assertSame(sre, x.getCause());
    assertSame(x, JobwireException.from(new CompletionException(x), "other"));
    JobwireException client = JobwireException.from(new IllegalStateException("nope"), "x");
    assertEquals("CLIENT", client.codeName());
    assertEquals(null, client.code());
  }

  @Test
  void retryableCodes() {
    assertTrue(JobwireException.fromStatus(Status.UNAVAILABLE, null, null).isRetryable());
    assertTrue(JobwireException.fromStatus(Status.RESOURCE_EXHAUSTED, null, null).isRetryable());
    assertTrue(JobwireException.fromStatus(Status.DEADLINE_EXCEEDED, null, null).isRetryable());
    assertFalse(JobwireException.fromStatus(Status.NOT_FOUND, null, null).isRetryable());
    assertFalse(JobwireException.fromStatus(Status.INVALID_ARGUMENT, null, null).isRetryable());
    // ABORTED (the gateway's broker connection closed): outcomes only, never other commands
    assertFalse(JobwireException.fromStatus(Status.ABORTED, null, null).isRetryable());
    assertTrue(JobwireException.fromStatus(Status.ABORTED, null, null).isOutcomeRetryable());
    assertTrue(JobwireException.fromStatus(Status.UNAVAILABLE, null, null).isOutcomeRetryable());
    assertFalse(JobwireException.fromStatus(Status.NOT_FOUND, null, null).isOutcomeRetryable());
    assertFalse(JobwireException.fromStatus(Status.PERMISSION_DENIED, null, null).isOutcomeRetryable());
  }
}
