package io.jobwire.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jobwire.JobErrorException;
import io.jobwire.JobWorker;
import io.jobwire.JobwireClient;
import io.jobwire.NotFoundException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.opentest4j.AssertionFailedError;

/** @JobwireTest against the real engine: injection, isolation, workers, the clock, failure messages. */
@JobwireTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class JobwireExtensionTest {
  static final Path KIT = SharedCasesTest.VECTORS.resolve("testkit");
  static long leftOver;

  @Test
  @Order(1)
  void injectsTheEngineAndItsClient(JobwireTestEngine engine, JobwireClient client) {
    assertSame(engine.client(), client);
    assertTrue(engine.address().startsWith("127.0.0.1:"), engine.address());
    assertEquals(List.of("kit-one-task"), engine.deploy(KIT.resolve("one-task.bpmn")));
    leftOver = engine.createInstance("kit-one-task", Map.of("x", 1));
    assertEquals(1, engine.jobs("kit-work").size());
  }

  @Test
  @Order(2)
  void eachTestStartsOnAnEmptyEngine(JobwireTestEngine engine) {
    assertTrue(leftOver != 0);
    assertThrows(NotFoundException.class, () -> engine.variables(leftOver));
    assertEquals(0, engine.jobs("kit-work").size());
  }

  @Test
  void aRealWorkerRunsTheProcess(JobwireTestEngine engine, JobwireClient client) throws Exception {
    engine.deploy(KIT.resolve("one-task.bpmn").toString());
    try (JobWorker w = client.newWorker().jobType("kit-work").handler(job -> Map.of("y", (int) job.variables().get("x") + 1)).open()) {
      long pi = engine.createInstance("kit-one-task", Map.of("x", 41));
      assertEquals(Map.of("x", 41, "y", 42), engine.awaitCompleted(pi));
    }
  }

  @Test
  void anUncaughtBpmnErrorIsAnIncident(JobwireTestEngine engine, JobwireClient client) throws Exception {
    engine.deploy(KIT.resolve("one-task.bpmn"));
    try (JobWorker w = client.newWorker().jobType("kit-work").handler(job -> {
      throw new JobErrorException("NOPE", "no catch event");
    }).open()) {
      long pi = engine.createInstance("kit-one-task");
      Incident i = engine.awaitIncident(pi);
      assertEquals("UNHANDLED_ERROR_EVENT", i.type());
      assertEquals(pi, i.processInstanceKey());
    }
  }

  @Test
  void aTimeoutShowsTheInstance(JobwireTestEngine engine) {
    engine.deploy(KIT.resolve("one-task.bpmn"));
    long pi = engine.createInstance("kit-one-task", Map.of("order", 7));
    AssertionFailedError e = assertThrows(AssertionFailedError.class, () -> engine.awaitCompleted(pi, Duration.ofMillis(200)));
    assertTrue(e.getMessage().contains("state: ACTIVE"), e.getMessage());
    assertTrue(e.getMessage().contains("\"order\":7"), e.getMessage());
    assertTrue(e.getMessage().contains("type kit-work"), e.getMessage());
  }

  @Test
  void deploysXmlText(JobwireTestEngine engine) throws Exception {
    String xml = java.nio.file.Files.readString(KIT.resolve("one-task.bpmn"));
    assertEquals(List.of("kit-one-task"), engine.deploy(xml));
  }

  @Test
  void thirtyDayTimerTakesLessThanASecond(JobwireTestEngine engine) {
    long t0 = System.nanoTime();
    engine.deploy(KIT.resolve("timer-30d.bpmn"));
    long pi = engine.createInstance("kit-timer-30d");
    assertEquals(0, engine.completeJobs("kit-remind"));
    engine.advanceClock(Duration.ofDays(30));
    assertEquals(1, engine.completeJobs("kit-remind"));
    engine.awaitCompleted(pi);
    double ms = (System.nanoTime() - t0) / 1e6;
    System.out.printf("jobwire-test: 30-day timer test took %.1f ms%n", ms);
    assertTrue(ms < 1000, ms + " ms");
  }

  @Test
  void dropStreamsAndFaults(JobwireTestEngine engine) {
    engine.dropStreams();
    engine.injectResourceExhausted(1);
    engine.clearFaults();
    assertEquals(0, engine.completeJobs("none"));
  }
}
