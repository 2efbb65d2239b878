package io.jobwire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jobwire.testing.TestEngine;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Against the real Zeebe engine (tools/zeebe-engine/start.sh --port 0, in memory; or
 * JOBWIRE_ZEEBE_ADDRESS): 500 instances complete through a push + poll worker. Tagged `zeebe`:
 * run with {@code mvn test -Pzeebe}. Fails, never skips, when Zeebe cannot be started.
 */
@Tag("zeebe")
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ZeebeTest {
  @Test
  void fiveHundredInstancesComplete() throws Exception {
    String addr = System.getenv("JOBWIRE_ZEEBE_ADDRESS");
    Process proc = null;
    try {
      if (addr == null || addr.isEmpty()) {
        Path script = Path.of("..", "tools", "zeebe-engine", "start.sh");
        if (!Files.isExecutable(script)) throw new IllegalStateException("Zeebe launcher missing: " + script.toAbsolutePath());
        proc = new ProcessBuilder(script.toString(), "--port", "0").redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader r = new BufferedReader(new InputStreamReader(proc.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> found = new CompletableFuture<>();
        Thread t = new Thread(() -> {
          Pattern p = Pattern.compile("listening on (127\\.0\\.0\\.1:\\d+)");
          try {
            String line;
            while ((line = r.readLine()) != null) {
              Matcher m = p.matcher(line);
              if (m.find()) found.complete(m.group(1));
            }
          } catch (Exception ignored) {
            // ended
          }
          found.completeExceptionally(new IllegalStateException("Zeebe exited before listening"));
        });
        t.setDaemon(true);
        t.start();
        addr = found.get(8, TimeUnit.MINUTES);
      }
      try (JobwireClient client = JobwireClient.builder().environment(Map.of()).gatewayAddress(addr).build()) {
        client.deployResource("one-task-zeebe.bpmn", TestEngine.bpmn("zeebe")).get(60, TimeUnit.SECONDS);
        AtomicInteger handled = new AtomicInteger();
        try (JobWorker w = client.newWorker().jobType("zeebe").handler(job -> {
          handled.incrementAndGet();
          return Map.of("id", job.getVariablesAsMap().get("id"));
        }).open()) {
          Semaphore sem = new Semaphore(32);
          List<CompletableFuture<ProcessInstance>> fs = new ArrayList<>();
          for (int i = 0; i < 500; i++) {
            sem.acquire();
            long id = 9007199254740993L + i;
            fs.add(client.createProcessInstanceWithResult("one-task-zeebe", Map.of("id", id), Duration.ofSeconds(60)).whenComplete((x, e) -> sem.release()));
          }
          for (int i = 0; i < fs.size(); i++) {
            ProcessInstance pi = fs.get(i).get(90, TimeUnit.SECONDS);
            assertEquals(9007199254740993L + i, ((Number) io.jobwire.internal.Json.parseObject(pi.variables()).get("id")).longValue());
          }
        }
        assertEquals(500, handled.get());
      }
    } finally {
      if (proc != null) {
        proc.getOutputStream().close(); // the launcher exits when its stdin closes
        if (!proc.waitFor(20, TimeUnit.SECONDS)) proc.destroyForcibly();
      }
    }
  }
}
