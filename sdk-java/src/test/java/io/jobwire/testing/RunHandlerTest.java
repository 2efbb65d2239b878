package io.jobwire.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jobwire.JobErrorException;
import io.jobwire.JobHandler;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The handler runner: the worker's executor and outcome code with an in-process recorder. */
class RunHandlerTest {
  record Order(String id, int amount) {}

  @Test
  void completesWithTheHandlersVariables() {
    JobHandler h = job -> Map.of("total", (int) job.variables().get("amount") * 2, "header", job.customHeaders().get("currency"));
    HandlerResult r = TestJobs.runHandler(h, TestJob.builder().variable("amount", 21).customHeader("currency", "EUR").build());
    assertEquals(HandlerResult.Outcome.COMPLETED, r.outcome());
    assertEquals(Map.of("total", 42, "header", "EUR"), r.variables());
    assertNull(r.exception());
  }

  @Test
  void typedVariablesAndJobFields() {
    JobHandler h = job -> {
      Order o = job.decodeVariables(Order.class);
      return Map.of("id", o.id(), "type", job.type(), "element", job.elementId(), "retries", job.retries(), "pi", job.processInstanceKey());
    };
    TestJob job = TestJob.builder().jobType("charge").variables(Map.of("id", "o-1", "amount", 5)).retries(7).elementId("charge-task")
        .processInstanceKey(99).build();
    HandlerResult r = TestJobs.runHandler(h, job);
    assertEquals(Map.of("id", "o-1", "type", "charge", "element", "charge-task", "retries", 7, "pi", 99), r.variables());
    assertEquals(new Order("o-1", 0), new Order(r.variablesAs(Map.class).get("id").toString(), 0));
  }

  @Test
  void withoutARetryBackOffTheWorkersDefaultPolicyDecides() {
    HandlerResult r = TestJobs.runHandler(job -> {
      throw new IllegalStateException("downstream down");
    }, TestJob.builder().retries(3).build());
    assertEquals(HandlerResult.Outcome.FAILED, r.outcome());
    assertEquals(2, r.retries());
    // exponential back-off from the job's retries: 1 s at retries 3, ±10 % jitter
    long ms = r.retryBackoff().toMillis();
    assertTrue(ms >= 900 && ms <= 1100, "default policy back-off " + ms + " ms");
  }

  @Test
  void aThrowingHandlerFailsWithRetriesMinusOne() {
    IllegalStateException boom = new IllegalStateException("card declined");
    HandlerResult r = TestJobs.runHandler(job -> {
      throw boom;
    }, TestJob.builder().retries(3).build(), RunOptions.builder().retryBackOff(Duration.ofSeconds(5)).build());
    assertEquals(HandlerResult.Outcome.FAILED, r.outcome());
    assertEquals(2, r.retries());
    assertEquals(Duration.ofSeconds(5), r.retryBackoff());
    assertTrue(r.errorMessage().contains("card declined"), r.errorMessage());
    assertEquals(boom, r.exception());
  }

  @Test
  void jobErrorIsABpmnError() {
    HandlerResult r = TestJobs.runHandler(job -> {
      throw new JobErrorException("NO_STOCK", "out of stock", Map.of("sku", "a"));
    }, TestJob.builder().build());
    assertEquals(HandlerResult.Outcome.BPMN_ERROR, r.outcome());
    assertEquals("NO_STOCK", r.errorCode());
    assertEquals("out of stock", r.errorMessage());
    assertEquals(Map.of("sku", "a"), r.variables());
    assertInstanceOf(JobErrorException.class, r.exception());
  }

  @Test
  void manualOutcomes() {
    HandlerResult failed = TestJobs.runHandler(job -> {
      job.fail("later", 1, Duration.ofMillis(1500), Map.of("attempt", 2)).join();
      return null;
    }, TestJob.builder().build(), RunOptions.builder().autoComplete(false).build());
    assertEquals(HandlerResult.Outcome.FAILED, failed.outcome());
    assertEquals(1, failed.retries());
    assertEquals(Duration.ofMillis(1500), failed.retryBackoff());
    assertEquals(Map.of("attempt", 2), failed.variables());
    assertNull(failed.exception());

    HandlerResult completed = TestJobs.runHandler(job -> {
      job.complete(Map.of("done", true)).join();
      return Map.of("ignored", true); // the job already has its outcome
    }, TestJob.builder().build());
    assertEquals(HandlerResult.Outcome.COMPLETED, completed.outcome());
    assertEquals(Map.of("done", true), completed.variables());

    HandlerResult error = TestJobs.runHandler(job -> {
      job.throwError("E1", "manual", null).join();
      return null;
    }, TestJob.builder().build(), RunOptions.builder().autoComplete(false).build());
    assertEquals(HandlerResult.Outcome.BPMN_ERROR, error.outcome());
    assertEquals("E1", error.errorCode());
  }

  @Test
  void closeWhileRunningCancelsAndHandsTheJobBack() {
    AtomicBoolean sawCancel = new AtomicBoolean();
    long t0 = System.nanoTime();
    HandlerResult r = TestJobs.runHandler(job -> {
      try {
        Thread.sleep(10_000);
      } finally {
        sawCancel.set(job.isCancelled());
      }
      return null;
    }, TestJob.builder().retries(4).build(), RunOptions.builder().cancelAfter(Duration.ofMillis(50)).build());
    assertEquals(HandlerResult.Outcome.CANCELLED, r.outcome());
    assertEquals(4, r.retries());
    assertInstanceOf(InterruptedException.class, r.exception());
    assertTrue(sawCancel.get());
    assertTrue(System.nanoTime() - t0 < 5_000_000_000L);
  }

  @Test
  void autoExtendAndExtendTimeoutAreRecorded() {
    HandlerResult r = TestJobs.runHandler(job -> {
      job.extendTimeout(Duration.ofSeconds(7)).join();
      Thread.sleep(300);
      return null;
    }, TestJob.builder().build(), RunOptions.builder().jobTimeout(Duration.ofMillis(200)).build());
    assertEquals(HandlerResult.Outcome.COMPLETED, r.outcome());
    assertEquals(Duration.ofSeconds(7), r.extensions().get(0));
    assertTrue(r.extensions().size() >= 2, r.extensions().toString());
    assertTrue(r.extensions().subList(1, r.extensions().size()).stream().allMatch(Duration.ofMillis(200)::equals), r.extensions().toString());

    HandlerResult none = TestJobs.runHandler(job -> {
      Thread.sleep(300);
      return null;
    }, TestJob.builder().build(), RunOptions.builder().jobTimeout(Duration.ofMillis(200)).autoExtend(false).build());
    assertTrue(none.extensions().isEmpty());
  }

  @Test
  void nullVariablesAndManyJobs() {
    TestJob job = TestJob.builder().variable("note", null).build();
    HandlerResult r = TestJobs.runHandler(j -> Map.of("hasNote", j.variables().containsKey("note"), "key", j.key()), job);
    assertEquals(Map.of("hasNote", true, "key", job.key()), r.variables());
    assertTrue(TestJob.builder().build().key() != job.key());
  }

  @Test
  void invalidResultFailsTheJob() {
    HandlerResult r = TestJobs.runHandler(job -> "not an object", TestJob.builder().build());
    assertEquals(HandlerResult.Outcome.FAILED, r.outcome());
    assertEquals(2, r.retries());
  }

  @Test
  void anExpiredJobNeverRuns() {
    AtomicBoolean ran = new AtomicBoolean();
    assertThrows(AssertionError.class, () -> TestJobs.runHandler(job -> ran.getAndSet(true), TestJob.builder().deadline(Instant.now().minusSeconds(1)).build(),
        RunOptions.builder().timeout(Duration.ofMillis(300)).build()));
    assertFalse(ran.get());
  }
}
