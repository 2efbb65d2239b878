package io.jobwire.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Starts the jobwire reference engine for integration tests: {@code jobwire-engine dev --port 0
 * --data-dir <tmp> --exit-on-stdin-close --no-fsync} on 127.0.0.1, waits for its listening line
 * and always stops it. A missing engine binary fails the test (never skips).
 */
public final class TestEngine implements AutoCloseable {
  private static final Pattern LISTENING = Pattern.compile("listening on (127\\.0\\.0\\.1:(\\d+))");
  private static final Pattern OAUTH = Pattern.compile("oauth token endpoint (http://\\S+)");
  private static final Pattern LIVE_VIEW = Pattern.compile("live view (http://\\S+?)/?$");
  private final CompletableFuture<String> liveView = new CompletableFuture<>();

  private final Path dataDir;
  private final List<String> extra;
  private Process proc;
  private String addr;
  private String port = "0";
  private String oauthUrl;

  private TestEngine(List<String> extra) throws IOException {
    this.dataDir = Files.createTempDirectory("jobwire-engine-");
    this.extra = extra;
  }

  /** @return the engine binary: $JOBWIRE_ENGINE, the jobwire.engine system property, or the repo build */
  public static Path binary() {
    String p = System.getenv("JOBWIRE_ENGINE");
    if (p == null || p.isEmpty()) p = System.getProperty("jobwire.engine");
    if (p == null || p.isEmpty()) p = "../engine-reference/bin/jobwire-engine";
    return Path.of(p);
  }

  public static TestEngine start(String... extraArgs) throws Exception {
    TestEngine e = new TestEngine(List.of(extraArgs));
    e.launch();
    return e;
  }

  private void launch() throws Exception {
    Path bin = binary();
    if (!Files.isExecutable(bin)) {
      throw new IllegalStateException("reference engine not found at " + bin.toAbsolutePath() + " (run `make engine`)");
    }
    List<String> cmd = new ArrayList<>(List.of(bin.toString(), "dev", "--port", port, "--data-dir", dataDir.toString(), "--exit-on-stdin-close", "--no-fsync"));
    cmd.addAll(extra);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    Process p = pb.start();
    CompletableFuture<String[]> found = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      String oauth = null;
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          if (System.getenv("JOBWIRE_TEST_ENGINE_LOG") != null) System.err.println("[engine] " + line);
          Matcher v = LIVE_VIEW.matcher(line);
          if (v.find()) liveView.complete(v.group(1));
          Matcher o = OAUTH.matcher(line);
          if (o.find()) oauth = o.group(1);
          Matcher m = LISTENING.matcher(line);
          if (m.find() && !found.isDone()) found.complete(new String[] {m.group(1), m.group(2), oauth});
        }
      } catch (IOException ignored) {
        // process ended
      }
      found.completeExceptionally(new IllegalStateException("engine exited before listening"));
    }, "engine-output");
    reader.setDaemon(true);
    reader.start();
    String[] m;
    try {
      m = found.get(15, TimeUnit.SECONDS);
    } catch (Exception e) {
      p.destroyForcibly();
      throw new IllegalStateException("engine did not print its listening line within 15 s", e);
    }
    proc = p;
    addr = m[0];
    port = m[1];
    oauthUrl = m[2];
  }

  /** @return 127.0.0.1:port */
  public String address() {
    return addr;
  }

  /**
   * The engine's live view (its {@code /api/snapshot} shows jobs with their retries and error messages).
   *
   * @return {@code http://127.0.0.1:port}
   * @throws Exception when the engine printed no live-view line within 5 s
   */
  public String liveView() throws Exception {
    return liveView.get(5, TimeUnit.SECONDS);
  }

  /** @return the mock OAuth token endpoint (with --oauth) */
  public String oauthUrl() {
    return oauthUrl;
  }

  /** Kills the engine (idempotent). */
  public void stop() {
    Process p = proc;
    proc = null;
    if (p == null) return;
    p.destroyForcibly();
    try {
      p.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops and starts again on the same port and data dir (a gateway restart). */
  public void restart() throws Exception {
    stop();
    Exception last = null;
    for (int i = 0; i < 50; i++) {
      try {
        launch();
        return;
      } catch (Exception e) {
        last = e;
        Thread.sleep(100);
      }
    }
    throw last;
  }

  @Override
  public void close() {
    stop();
    try (var s = Files.walk(dataDir)) {
      s.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException ignored) {
      // best effort
    }
  }

  /** A one-service-task process {@code one-task-<jobType>} for a job type. */
  public static byte[] bpmn(String jobType) {
    String x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<bpmn:definitions xmlns:bpmn=\"http://www.omg.org/spec/BPMN/20100524/MODEL\" xmlns:zeebe=\"http://camunda.org/schema/zeebe/1.0\""
        + " id=\"defs\" targetNamespace=\"http://jobwire.dev/sdk-java\">\n"
        + "  <bpmn:process id=\"one-task-" + jobType + "\" isExecutable=\"true\">\n"
        + "    <bpmn:startEvent id=\"start\"/>\n"
        + "    <bpmn:sequenceFlow id=\"f1\" sourceRef=\"start\" targetRef=\"task\"/>\n"
        + "    <bpmn:serviceTask id=\"task\"><bpmn:extensionElements><zeebe:taskDefinition type=\"" + jobType + "\" retries=\"3\"/></bpmn:extensionElements></bpmn:serviceTask>\n"
        + "    <bpmn:sequenceFlow id=\"f2\" sourceRef=\"task\" targetRef=\"end\"/>\n"
        + "    <bpmn:endEvent id=\"end\"/>\n"
        + "  </bpmn:process>\n"
        + "</bpmn:definitions>\n";
    return x.getBytes(StandardCharsets.UTF_8);
  }
}
