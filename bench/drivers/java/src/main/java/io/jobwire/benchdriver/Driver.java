package io.jobwire.benchdriver;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.camunda.client.CamundaClient;
import io.jobwire.Job;
import io.jobwire.JobWorker;
import io.jobwire.JobWorkerBuilder;
import io.jobwire.JobwireClient;
import io.jobwire.WorkerScanner;
import io.jobwire.annotation.VariablesAsType;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Benchmark worker driver (bench/DRIVERS.md): {@code Driver jobwire|official '<config json>'}.
 * jobwire = io.jobwire:jobwire-sdk; official = io.camunda:camunda-client-java. The handler records
 * the activation latency (now − the job's t0 variable), sleeps delayMs, and completes the job.
 */
public final class Driver {
  private static final PrintStream OUT = new PrintStream(System.out, false, StandardCharsets.UTF_8);
  private static final AtomicLong JOBS = new AtomicLong();
  private static final List<Double> LAT = new ArrayList<>();
  /** jobwire only: how many jobs arrived by each activation (push / poll), for the done event. */
  private static final java.util.concurrent.ConcurrentHashMap<String, AtomicLong> ACTIVATIONS =
      new java.util.concurrent.ConcurrentHashMap<>();

  private static synchronized void emit(String line) {
    OUT.println(line);
    OUT.flush();
  }

  private static final List<Double> ENG = new ArrayList<>();
  private static final long TIMEOUT_MS = Duration.ofMinutes(5).toMillis();

  private static void started(Object t0, long deadline) {
    if (t0 instanceof Number n && n.doubleValue() > 0) {
      double l = System.currentTimeMillis() + (System.nanoTime() % 1_000_000) / 1e6 - n.doubleValue();
      synchronized (LAT) {
        LAT.add(l);
        // the engine's activation time (deadline - timeout, by the engine's clock) after t0
        ENG.add(deadline - TIMEOUT_MS - n.doubleValue());
      }
    }
  }

  private static void pause(int ms) throws InterruptedException {
    if (ms > 0) Thread.sleep(ms);
  }

  public static void main(String[] args) throws Exception {
    String which = args[0];
    JsonNode cfg = new ObjectMapper().readTree(args[1]);
    String addr = cfg.get("address").asText();
    List<Runnable> closers = new ArrayList<>();
    String version;
    int maxCap = 1;
    for (JsonNode s : cfg.get("workers")) maxCap = Math.max(maxCap, s.path("capacity").asInt(32));
    if (which.equals("official")) {
      version = CamundaClient.class.getPackage().getImplementationVersion();
      // handler threads = the largest capacity: a worker with capacity N runs N handlers at once,
      // as the jobwire SDKs do by default (the client's own default is 1 thread)
      CamundaClient cc = CamundaClient.newClientBuilder().grpcAddress(URI.create("http://" + addr))
          .restAddress(URI.create("http://127.0.0.1:1")).preferRestOverGrpc(false)
          .numJobWorkerExecutionThreads(maxCap).build();
      for (JsonNode s : cfg.get("workers")) {
        int delay = s.path("delayMs").asInt(0);
        String mode = s.path("mode").asText("push");
        for (int i = 0; i < s.path("count").asInt(1); i++) {
          var b = cc.newWorker().jobType(s.get("jobType").asText()).handler((client, job) -> {
            started(job.getVariablesAsMap().get("t0"), job.getDeadline());
            pause(delay);
            client.newCompleteCommand(job.getKey()).send().join();
            JOBS.incrementAndGet();
          }).maxJobsActive(s.path("capacity").asInt(32)).timeout(Duration.ofMinutes(5)).streamEnabled(mode.equals("push"));
          if (s.path("pollIntervalMs").asInt(0) > 0) b = b.pollInterval(Duration.ofMillis(s.get("pollIntervalMs").asInt()));
          if (mode.equals("shortpoll")) b = b.requestTimeout(Duration.ofMillis(-1));
          io.camunda.client.api.worker.JobWorker w = b.open();
          closers.add(w::close);
        }
      }
      closers.add(cc::close);
      if (cfg.hasNonNull("interop")) {
        JsonNode in = cfg.get("interop");
        Thread t = new Thread(() -> interop(cc, in), "interop");
        t.setDaemon(true);
        t.start();
      }
    } else {
      version = JobwireClient.class.getPackage().getImplementationVersion();
      JobwireClient jw = JobwireClient.builder().address(addr).build();
      List<JobWorker> ws = new ArrayList<>();
      for (JsonNode s : cfg.get("workers")) {
        int delay = s.path("delayMs").asInt(0);
        String mode = s.path("mode").asText("push");
        for (int i = 0; i < s.path("count").asInt(1); i++) {
          JobWorkerBuilder b;
          if (s.path("typed").asBoolean(false)) {
            // the documented declarative style: an @JobWorker method with a typed input (fetchVariables derived: t0)
            b = WorkerScanner.scan(new TypedNoop(delay)).get(0).withJobType(s.get("jobType").asText()).builder(jw);
          } else {
            b = jw.newWorker().jobType(s.get("jobType").asText()).handler(job -> {
              started(job.variables().get("t0"), job.deadline());
              ACTIVATIONS.computeIfAbsent(job.activation(), k -> new AtomicLong()).incrementAndGet();
              pause(delay);
              JOBS.incrementAndGet();
              return null;
            });
          }
          b = b.maxJobsActive(s.path("capacity").asInt(32)).jobTimeout(Duration.ofMinutes(5)).streamEnabled(mode.equals("push"));
          if (s.path("pollIntervalMs").asInt(0) > 0) b = b.pollInterval(Duration.ofMillis(s.get("pollIntervalMs").asInt()));
          if (mode.equals("shortpoll")) b = b.requestTimeout(Duration.ofMillis(-1));
          ws.add(b.open());
        }
      }
      closers.add(() -> ws.parallelStream().forEach(w -> w.close(Duration.ofSeconds(5))));
      closers.add(jw::close);
    }
    emit("{\"event\":\"ready\",\"client\":\"java-" + which + "\",\"version\":\"" + version + "\"}");
    ScheduledExecutorService tick = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "progress");
      t.setDaemon(true);
      return t;
    });
    tick.scheduleAtFixedRate(() -> emit("{\"event\":\"progress\",\"jobs\":" + JOBS.get() + "}"), 500, 500, TimeUnit.MILLISECONDS);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.trim().equals("stop")) break;
    }
    tick.shutdownNow();
    for (Runnable c : closers) c.run();
    StringBuilder sb = new StringBuilder("{\"event\":\"done\",\"jobs\":").append(JOBS.get());
    if (!ACTIVATIONS.isEmpty()) {
      sb.append(",\"activations\":{");
      String sep = "";
      for (var e : new java.util.TreeMap<>(ACTIVATIONS).entrySet()) {
        sb.append(sep).append(quote(e.getKey())).append(':').append(e.getValue().get());
        sep = ",";
      }
      sb.append('}');
    }
    synchronized (LAT) {
      sb.append(",\"activatedMs\":[");
      for (int i = 0; i < ENG.size(); i++) {
        if (i > 0) sb.append(',');
        sb.append(String.format(java.util.Locale.ROOT, "%.0f", ENG.get(i)));
      }
      sb.append(']');
    }
    sb.append(",\"latMs\":[");
    synchronized (LAT) {
      for (int i = 0; i < LAT.size(); i++) {
        if (i > 0) sb.append(',');
        sb.append(String.format(java.util.Locale.ROOT, "%.3f", LAT.get(i)));
      }
    }
    emit(sb.append("]}").toString());
    System.exit(0);
  }

  /** interop (DRIVERS.md): this client deploys the BPMN and creates the instances, inflight at a time. */
  private static void interop(CamundaClient cc, JsonNode in) {
    long t0 = System.nanoTime();
    try {
      cc.newDeployResourceCommand().addResourceFile(in.get("deploy").asText()).send().join();
    } catch (Exception e) {
      emit("{\"event\":\"created\",\"count\":0,\"error\":" + quote("deploy: " + e) + "}");
      return;
    }
    int n = in.get("count").asInt();
    java.util.concurrent.Semaphore lanes = new java.util.concurrent.Semaphore(in.path("inflight").asInt(32));
    AtomicLong ok = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    java.util.concurrent.atomic.AtomicReference<String> first = new java.util.concurrent.atomic.AtomicReference<>();
    String pid = in.get("processId").asText();
    for (int i = 0; i < n; i++) {
      lanes.acquireUninterruptibly();
      cc.newCreateInstanceCommand().bpmnProcessId(pid).latestVersion().variables(java.util.Map.of("n", i)).send()
          .whenComplete((r, e) -> {
            if (e == null) ok.incrementAndGet();
            else {
              failed.incrementAndGet();
              first.compareAndSet(null, String.valueOf(e));
            }
            lanes.release();
          });
    }
    lanes.acquireUninterruptibly(in.path("inflight").asInt(32));
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    emit("{\"event\":\"created\",\"count\":" + ok.get() + ",\"errors\":" + failed.get() + ",\"ms\":" + ms
        + (first.get() == null ? "" : ",\"error\":" + quote(first.get())) + "}");
  }

  private static String quote(String s) {
    try {
      return new ObjectMapper().writeValueAsString(s);
    } catch (Exception e) {
      return "\"?\"";
    }
  }

  private Driver() {}

  /** The typed input of a `typed` worker: t0 only (epoch ms, set by the load generator). */
  public record BenchInput(@JsonProperty(required = true) double t0) {}

  /** The no-op worker as a typed, declarative handler. */
  public static final class TypedNoop {
    private final int delay;

    TypedNoop(int delay) {
      this.delay = delay;
    }

    @io.jobwire.annotation.JobWorker(type = "bench")
    public void handle(Job job, @VariablesAsType BenchInput in) throws InterruptedException {
      started(in.t0(), job.deadline());
      ACTIVATIONS.computeIfAbsent(job.activation(), k -> new AtomicLong()).incrementAndGet();
      pause(delay);
      JOBS.incrementAndGet();
    }
  }
}
