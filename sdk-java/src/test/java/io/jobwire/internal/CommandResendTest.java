package io.jobwire.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.jobwire.BackpressureException;
import io.jobwire.internal.gateway.GatewayGrpc;
import io.jobwire.internal.gateway.GatewayOuterClass.DeleteResourceRequest;
import io.jobwire.internal.worker.Backoff;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** The resend rule of docs/worker-semantics.md ("Client commands: which are resent"), for every status code. */
class CommandResendTest {
  static Set<Status.Code> resentAfter(Predicate<Status.Code> rule) {
    Set<Status.Code> out = EnumSet.noneOf(Status.Code.class);
    for (Status.Code c : Status.Code.values()) if (rule.test(c)) out.add(c);
    return out;
  }

  @Test
  void evaluateDecisionIsResentAfterUnavailableAndResourceExhaustedOnly() {
    assertEquals(EnumSet.of(Status.Code.UNAVAILABLE, Status.Code.RESOURCE_EXHAUSTED), resentAfter(CommandResend::evaluateDecision));
  }

  @Test
  void theStateChangingCommandsAreResentAfterResourceExhaustedOnly() {
    Set<Status.Code> only = EnumSet.of(Status.Code.RESOURCE_EXHAUSTED);
    assertEquals(only, resentAfter(CommandResend::modifyProcessInstance), "ModifyProcessInstance");
    assertEquals(only, resentAfter(CommandResend::migrateProcessInstance), "MigrateProcessInstance");
    assertEquals(only, resentAfter(CommandResend::deleteResource), "DeleteResource");
    assertEquals(only, resentAfter(CommandResend::broadcastSignal), "BroadcastSignal");
  }

  /**
   * Without jitter the waits are 50, 80, 128 and 205 ms. The first three attempts are answered at
   * once and the fourth after 600 ms, so it ends at about 858 ms of a 1 s deadline: a fifth would
   * start at about 1063 ms, past the deadline, so it is not made (however late the fourth ends).
   */
  @Test
  void aResendThatWouldStartPastTheDeadlineIsNotMade() throws Exception {
    List<Long> starts = new CopyOnWriteArrayList<>();
    long[] holds = {0, 0, 0, 600, 0};
    long t0 = System.nanoTime();
    Transport.LocalCalls calls = new Transport.LocalCalls() {
      @Override
      public <Q, R> CompletableFuture<R> call(MethodDescriptor<Q, R> method, Q request) {
        starts.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        CompletableFuture<R> f = new CompletableFuture<>();
        CompletableFuture.delayedExecutor(holds[Math.min(starts.size() - 1, holds.length - 1)], TimeUnit.MILLISECONDS)
            .execute(() -> f.completeExceptionally(Status.RESOURCE_EXHAUSTED.withDescription("backpressure").asRuntimeException()));
        return f;
      }
    };
    ClientConfig config = new ClientConfig(List.of("in-process"), true, null, null, Duration.ofSeconds(45), ClientConfig.DEFAULT_STREAM_WINDOW,
        Duration.ofSeconds(1), null, null, null);
    CompletableFuture<?> f = CommandResend.send(Transport.local(config, calls), GatewayGrpc.getDeleteResourceMethod(),
        DeleteResourceRequest.newBuilder().setResourceKey(1).build(), CommandResend::deleteResource, new Backoff(() -> 0.5));
    ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
    assertInstanceOf(BackpressureException.class, e.getCause());
    Thread.sleep(400); // past the time a fifth attempt would start
    assertEquals(4, starts.size(), "attempts started at " + starts);
    assertTrue(starts.get(3) >= 250, "the waits 50, 80 and 128 ms come before the fourth attempt: " + starts);
  }
}
