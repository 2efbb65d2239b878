package io.jobwire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jobwire.testing.TestEngine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link JobwireClient#runWorkers}: SIGTERM to a worker process, close from another thread, interrupt. Real engine. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RunWorkersTest {
  TestEngine engine;
  JobwireClient client;

  @BeforeEach
  void start() throws Exception {
    engine = TestEngine.start();
    client = JobwireClient.builder().environment(Map.of()).address(engine.address()).build();
  }

  @AfterEach
  void stop() {
    if (client != null) client.close(Duration.ofSeconds(5));
    if (engine != null) engine.close();
  }

  String deploy(String jobType) throws Exception {
    return client.deployResource("one-task-" + jobType + ".bpmn", TestEngine.bpmn(jobType)).get().processes().get(0).bpmnProcessId();
  }

  /**
   * A child JVM runs a worker (handler sleeps 300 ms, job timeout 5 min) and runWorkers. SIGTERM
   * while jobs run: the process exits 0, the handlers it started finished, code after runWorkers
   * ran, and every instance completes at once with a fresh worker: nothing waits out the 5 min
   * activation timeout (the test would time out).
   */
  @Test
  void sigtermClosesGracefullyAndExitsZero() throws Exception {
    String pid = deploy("rw-signal");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=info", RunWorkersMain.class.getName(), engine.address(), "rw-signal", "300")
        .redirectErrorStream(true);
    // to a file: Process.destroy() closes the pipes, and the lines after the signal matter here
    Path log = Files.createTempFile("jobwire-run-workers-", ".log");
    pb.redirectOutput(log.toFile());
    Process child = pb.start();
    Supplier<List<String>> out = () -> {
      try {
        return Files.readAllLines(log, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
    try {
      EngineIntegrationTest.waitFor(() -> out.get().contains("ready"), 20_000, () -> "child not ready: " + out.get());
      List<CompletableFuture<ProcessInstance>> fs = new ArrayList<>();
      for (int i = 0; i < 12; i++) fs.add(client.createProcessInstanceWithResult(pid, Map.of("i", i), Duration.ofSeconds(60)));
      EngineIntegrationTest.waitFor(() -> out.get().stream().anyMatch(l -> l.startsWith("started ")), 20_000, () -> "no job started: " + out.get());
      child.destroy(); // SIGTERM
      assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the child did not exit within 30 s: " + out);
      List<String> lines = out.get();
      assertEquals(0, child.exitValue(), "exit status; output: " + lines);
      assertTrue(lines.contains("returned"), "code after runWorkers ran: " + lines);
      Set<String> started = new HashSet<>();
      Set<String> finished = new HashSet<>();
      for (String l : lines) {
        if (l.startsWith("started ")) started.add(l.substring(8));
        if (l.startsWith("finished ")) finished.add(l.substring(9));
      }
      assertEquals(started, finished, "every handler the child started finished before it exited: " + lines);

      // the rest: jobs the child handed back are activatable at once
      try (JobWorker fresh = client.newWorker().jobType("rw-signal").maxJobsActive(16).handler(job -> Map.of("handledBy", "fresh")).open()) {
        int child0 = 0;
        for (var f : fs) {
          ProcessInstance pi = f.get(20, TimeUnit.SECONDS);
          if (pi.variables().contains("\"child\"")) child0++;
        }
        assertTrue(child0 >= 1, "the child completed at least the job it was running");
      }
    } finally {
      if (child.isAlive()) child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      Files.deleteIfExists(log);
    }
  }

  @Test
  void closingTheClientFromAnotherThreadReturns() throws Exception {
    JobWorker w = client.newWorker().jobType("rw-close").handler(job -> null).open();
    AtomicReference<Throwable> failed = new AtomicReference<>();
    Thread runner = new Thread(() -> {
      try {
        client.runWorkers(Duration.ofSeconds(5));
      } catch (Throwable t) {
        failed.set(t);
      }
    }, "runner");
    runner.start();
    EngineIntegrationTest.waitFor(() -> runner.getState() == Thread.State.WAITING, 5_000, () -> "runner state " + runner.getState());
    Thread.sleep(200);
    assertTrue(runner.isAlive(), "runWorkers blocks while the workers run");
    Thread closer = new Thread(() -> client.close(Duration.ofSeconds(5)), "closer");
    closer.start();
    runner.join(15_000);
    assertFalse(runner.isAlive(), "runWorkers returned after the client was closed");
    assertNull(failed.get());
    assertEquals(WorkerState.CLOSED, w.state());
    closer.join(5_000);
  }

  @Test
  void closingEveryWorkerReturns() throws Exception {
    JobWorker a = client.newWorker().jobType("rw-a").handler(job -> null).open();
    JobWorker b = client.newWorker().jobType("rw-b").handler(job -> null).open();
    Thread runner = new Thread(() -> client.runWorkers(), "runner");
    runner.start();
    EngineIntegrationTest.waitFor(() -> runner.getState() == Thread.State.WAITING, 5_000, () -> "runner state " + runner.getState());
    a.close(Duration.ofSeconds(5));
    Thread.sleep(300);
    assertTrue(runner.isAlive(), "one worker still runs");
    b.close(Duration.ofSeconds(5));
    runner.join(10_000);
    assertFalse(runner.isAlive(), "runWorkers returned once every worker was closed");
  }

  /** Interrupting the caller closes gracefully: the running handler finishes and its job completes. */
  @Test
  void interruptClosesGracefully() throws Exception {
    String pid = deploy("rw-interrupt");
    // the instance is created through a second client: runWorkers closes this one
    JobwireClient other = JobwireClient.builder().environment(Map.of()).address(engine.address()).build();
    CompletableFuture<Void> started = new CompletableFuture<>();
    JobWorker w = client.newWorker().jobType("rw-interrupt").handler(job -> {
      started.complete(null);
      Thread.sleep(500);
      return Map.of("done", true);
    }).open();
    CompletableFuture<ProcessInstance> pi = other.createProcessInstanceWithResult(pid, null, Duration.ofSeconds(30));
    AtomicReference<Boolean> flag = new AtomicReference<>();
    Thread runner = new Thread(() -> {
      client.runWorkers(Duration.ofSeconds(10));
      flag.set(Thread.currentThread().isInterrupted());
    }, "runner");
    runner.start();
    started.get(20, TimeUnit.SECONDS);
    runner.interrupt();
    runner.join(20_000);
    assertFalse(runner.isAlive());
    assertEquals(Boolean.TRUE, flag.get(), "the interrupt flag is set again");
    assertEquals(WorkerState.CLOSED, w.state());
    assertTrue(client.isClosed());
    // the handler ran to its end and its outcome was sent before the close returned
    try {
      assertTrue(pi.get(10, TimeUnit.SECONDS).variables().contains("\"done\":true"));
    } finally {
      other.close(Duration.ofSeconds(1));
    }
  }

  @Test
  void withoutWorkersReturnsAtOnce() {
    long t0 = System.nanoTime();
    client.runWorkers();
    assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2));
  }
}
