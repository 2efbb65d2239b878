package io.jobwire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.jobwire.internal.gateway.GatewayOuterClass.ActivatedJob;
import io.jobwire.internal.worker.LocalRun;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class MiddlewareTest {
  record Order(@JsonProperty(required = true) String orderId, double amount) {}

  static LocalRun.Recorded run(String vars, JobHandler h) throws Exception {
    ActivatedJob raw = ActivatedJob.newBuilder().setKey(7).setType("t").setRetries(3).setVariables(vars).setCustomHeaders("{}")
        .setDeadline(System.currentTimeMillis() + 60_000).build();
    return LocalRun.run(raw, h, new LocalRun.Options(Duration.ofMinutes(1), true, false, Duration.ZERO, null, Duration.ofSeconds(10)),
        RetryPolicy.exponentialBackoff().jitter(0).build());
  }

  static Middleware named(String name, List<String> log) {
    return (job, next) -> {
      log.add(name + ":before");
      try {
        Object r = next.proceed();
        log.add(name + ":after");
        return r;
      } catch (Exception e) {
        log.add(name + ":after-error");
        throw e;
      }
    };
  }

  @Test
  void clientLevelFirstThenWorkerLevelEachInRegistrationOrder() throws Exception {
    List<String> log = new CopyOnWriteArrayList<>();
    JobHandler h = JobWorkerBuilder.chain(List.of(named("client", log), named("outer", log), named("inner", log)), job -> {
      log.add("handler");
      return Map.of("ok", true);
    });
    LocalRun.Recorded r = run("{}", h);
    assertEquals("completed", r.outcome());
    assertEquals(List.of("client:before", "outer:before", "inner:before", "handler", "inner:after", "outer:after", "client:after"), log);
  }

  @Test
  void aRaisingMiddlewareFailsTheJobLikeAHandlerAndTheHandlerIsNotCalled() throws Exception {
    List<String> log = new CopyOnWriteArrayList<>();
    AtomicBoolean called = new AtomicBoolean();
    Middleware raising = (job, next) -> {
      throw new IllegalStateException("blocked by middleware");
    };
    LocalRun.Recorded r = run("{}", JobWorkerBuilder.chain(List.of(named("outer", log), raising), job -> {
      called.set(true);
      return null;
    }));
    assertEquals("failed", r.outcome());
    assertEquals(2, r.retries());
    assertEquals(1000, r.backoffMs());
    assertTrue(r.message().contains("blocked by middleware"), r.message());
    assertFalse(called.get());
    assertEquals(List.of("outer:before", "outer:after-error"), log);
  }

  @Test
  void aMiddlewareThatDoesNotCallNextDecidesTheOutcome() throws Exception {
    LocalRun.Recorded r = run("{}", JobWorkerBuilder.chain(List.of((job, next) -> Map.of("short", "circuit")), job -> {
      throw new AssertionError("not called");
    }));
    assertEquals("completed", r.outcome());
    assertEquals("{\"short\":\"circuit\"}", r.variables());
  }

  /** The typed decoding is innermost: middleware sees the raw job and the InvalidInputException out of next. */
  @Test
  void invalidInputNeverReachesTheHandlerAndComesOutOfNext() throws Exception {
    List<Throwable> seen = new CopyOnWriteArrayList<>();
    AtomicBoolean called = new AtomicBoolean();
    JobHandler typed = job -> {
      Order o = io.jobwire.internal.TypedInput.decode(io.jobwire.internal.TypedInput.tree(job.variablesJson()), Order.class);
      called.set(true);
      return Map.of("total", o.amount() * 2);
    };
    Middleware watch = (job, next) -> {
      try {
        return next.proceed();
      } catch (Exception e) {
        seen.add(e);
        throw e;
      }
    };
    LocalRun.Recorded r = run("{\"orderId\":\"o1\",\"amount\":\"x\"}", JobWorkerBuilder.chain(List.of(watch), typed));
    assertEquals("failed", r.outcome());
    assertEquals(2, r.retries());
    assertEquals(1000, r.backoffMs());
    assertEquals("jobwire: invalid input: amount: expected number, got string", r.message());
    assertFalse(called.get());
    assertTrue(seen.get(0) instanceof InvalidInputException);

    r = run("{\"orderId\":\"o1\",\"amount\":2.5}", JobWorkerBuilder.chain(List.of(watch), typed));
    assertEquals("completed", r.outcome());
    assertEquals("{\"total\":5}", r.variables());
  }
}
