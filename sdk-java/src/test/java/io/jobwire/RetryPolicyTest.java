package io.jobwire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jobwire.internal.gateway.GatewayOuterClass.ActivatedJob;
import io.jobwire.internal.worker.LocalRun;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
  /** A job with these retries, as the worker sees it (through a local run's job object). */
  static Job job(int retries) throws Exception {
    Job[] seen = new Job[1];
    LocalRun.run(raw(retries), j -> {
      seen[0] = j;
      return null;
    }, options(), RetryPolicy.defaultPolicy());
    return seen[0];
  }

  static ActivatedJob raw(int retries) {
    return ActivatedJob.newBuilder().setKey(42).setType("t").setRetries(retries).setVariables("{}").setCustomHeaders("{}")
        .setDeadline(System.currentTimeMillis() + 60_000).build();
  }

  static LocalRun.Options options() {
    return new LocalRun.Options(Duration.ofMinutes(1), true, false, Duration.ZERO, null, Duration.ofSeconds(10));
  }

  static long backoffMs(RetryPolicy p, Job job, Throwable err) {
    return ((RetryDecision.Retry) p.decide(job, err)).backoff().toMillis();
  }

  @Test
  void exponentialFromTheRemainingRetries() throws Exception {
    RetryPolicy p = RetryPolicy.exponentialBackoff().jitter(0).build();
    Exception err = new RuntimeException("boom");
    assertEquals(1000, backoffMs(p, job(3), err));
    assertEquals(2000, backoffMs(p, job(2), err));
    assertEquals(4000, backoffMs(p, job(1), err));
    // more retries than maxRetries: attempt 0
    assertEquals(1000, backoffMs(p, job(7), err));
    RetryPolicy q = RetryPolicy.exponentialBackoff().initial(Duration.ofMillis(100)).multiplier(3).maxRetries(5).jitter(0).build();
    assertEquals(100 * 27, backoffMs(q, job(2), err));
  }

  @Test
  void cappedAtMax() throws Exception {
    RetryPolicy p = RetryPolicy.exponentialBackoff().max(Duration.ofMillis(2500)).maxRetries(10).jitter(0).build();
    assertEquals(2500, backoffMs(p, job(1), new RuntimeException()));
  }

  @Test
  void jitterStaysWithinItsBoundsAndVaries() throws Exception {
    RetryPolicy p = RetryPolicy.defaultPolicy();
    Job j = job(2);
    Set<Long> seen = new HashSet<>();
    for (int i = 0; i < 500; i++) {
      long ms = backoffMs(p, j, new RuntimeException());
      assertTrue(ms >= 1800 && ms <= 2200, "backoff " + ms);
      seen.add(ms);
    }
    assertTrue(seen.size() > 50, "jitter varies: " + seen.size() + " values");
  }

  @Test
  void nonRetryableAnywhereInTheCauseChainIsAnIncident() throws Exception {
    Job j = job(3);
    RetryDecision d = RetryPolicy.defaultPolicy().decide(j, new IllegalStateException("wrapped", new NonRetryableException("customer gone")));
    assertEquals(new RetryDecision.Incident("customer gone"), d);
    assertInstanceOf(RetryDecision.Retry.class, RetryPolicy.defaultPolicy().decide(j, new InvalidInputException(
        java.util.List.of(new InvalidInputException.Issue("amount", "missing")))));
  }

  @Test
  void invalidSettingsAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> RetryPolicy.exponentialBackoff().initial(Duration.ZERO).build());
    assertThrows(IllegalArgumentException.class, () -> RetryPolicy.exponentialBackoff().max(Duration.ofMillis(10)).build());
    assertThrows(IllegalArgumentException.class, () -> RetryPolicy.exponentialBackoff().multiplier(0.5).build());
    assertThrows(IllegalArgumentException.class, () -> RetryPolicy.exponentialBackoff().jitter(1.5).build());
    assertThrows(IllegalArgumentException.class, () -> RetryPolicy.exponentialBackoff().maxRetries(0).build());
    assertThrows(IllegalArgumentException.class, () -> RetryDecision.retry(Duration.ofMillis(-1)));
    assertThrows(IllegalArgumentException.class, () -> RetryDecision.bpmnError("", "m", null));
  }

  @Test
  void precedencePolicyThenExplicitBackOffThenDefault() throws Exception {
    RetryPolicy mine = (job, e) -> RetryDecision.retry(Duration.ofMillis(7));
    assertSame(mine, JobWorkerBuilder.effectivePolicy(mine, Duration.ofSeconds(3)));
    Job j = job(3);
    RetryPolicy fixed = JobWorkerBuilder.effectivePolicy(null, Duration.ofSeconds(3));
    assertEquals(3000, backoffMs(fixed, j, new RuntimeException()));
    assertEquals(0, backoffMs(JobWorkerBuilder.effectivePolicy(null, Duration.ZERO), j, new RuntimeException()));
    assertEquals(new RetryDecision.Incident("no"), fixed.decide(j, new NonRetryableException("no")));
    assertSame(RetryPolicy.defaultPolicy(), JobWorkerBuilder.effectivePolicy(null, null));
  }

  // ---- what the worker sends (the executor, through a local run) ----

  static LocalRun.Recorded run(int retries, JobHandler h, RetryPolicy p) throws Exception {
    return LocalRun.run(raw(retries), h, options(), p);
  }

  @Test
  void theWorkerSendsThePolicysDecision() throws Exception {
    JobHandler boom = job -> {
      throw new RuntimeException("boom");
    };
    LocalRun.Recorded r = run(3, boom, RetryPolicy.exponentialBackoff().jitter(0).build());
    assertEquals("failed", r.outcome());
    assertEquals(2, r.retries());
    assertEquals(1000, r.backoffMs());
    assertTrue(r.message().contains("boom"), r.message());

    r = run(3, job -> {
      throw new NonRetryableException("cannot work");
    }, RetryPolicy.defaultPolicy());
    assertEquals("failed", r.outcome());
    assertEquals(0, r.retries());
    assertEquals("cannot work", r.message());

    r = run(3, boom, (job, e) -> RetryDecision.bpmnError("E1", "as bpmn", java.util.Map.of("x", 1)));
    assertEquals("error", r.outcome());
    assertEquals("E1", r.errorCode());
    assertEquals("{\"x\":1}", r.variables());

    // a JobErrorException never reaches the policy
    r = run(3, job -> {
      throw new JobErrorException("E2", "bpmn");
    }, (job, e) -> {
      throw new AssertionError("policy called");
    });
    assertEquals("error", r.outcome());
    assertEquals("E2", r.errorCode());
  }

  @Test
  void aPolicyThatThrowsOrReturnsNullFallsBackToTheDefault() throws Exception {
    JobHandler boom = job -> {
      throw new RuntimeException("boom");
    };
    for (RetryPolicy bad : new RetryPolicy[] {(job, e) -> {
      throw new IllegalStateException("bad policy");
    }, (job, e) -> null}) {
      LocalRun.Recorded r = run(2, boom, bad);
      assertEquals("failed", r.outcome());
      assertEquals(1, r.retries());
      assertTrue(r.backoffMs() >= 1800 && r.backoffMs() <= 2200, "default policy's back-off for retries 2: " + r.backoffMs());
    }
  }
}
