package io.jobwire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jobwire.testing.TestEngine;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.PointData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link MetricsRecorder} against the real engine: it sees the instrument names and attribute keys an
 * OpenTelemetry SDK sees on the same run, with the same counts; a recorder that throws on every call
 * changes nothing for the jobs (all complete, the handler runs once per job) and is logged once per
 * instrument.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MetricsRecorderTest {
  static InMemoryMetricReader reader;
  static TestEngine engine;
  static final int N = 20;

  @BeforeAll
  static void setUp() throws Exception {
    GlobalOpenTelemetry.resetForTest();
    reader = InMemoryMetricReader.create();
    OpenTelemetrySdk.builder().setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build()).buildAndRegisterGlobal();
    engine = TestEngine.start();
  }

  @AfterAll
  static void tearDown() {
    if (engine != null) engine.close();
    GlobalOpenTelemetry.resetForTest();
  }

  /** Records what it is given: instrument name → attribute keys, and the sum of each counter series. */
  static final class Recording implements MetricsRecorder {
    final Map<String, Set<String>> keys = new ConcurrentHashMap<>();
    final Map<String, AtomicLong> sums = new ConcurrentHashMap<>();
    final Map<String, String> units = new ConcurrentHashMap<>();

    void seen(String name, Map<String, String> attributes) {
      keys.computeIfAbsent(name, k -> ConcurrentHashMap.newKeySet()).addAll(attributes.keySet());
    }

    @Override
    public void counter(String name, long delta, Map<String, String> attributes) {
      seen(name, attributes);
      sums.computeIfAbsent(name + new TreeMap<>(attributes), k -> new AtomicLong()).addAndGet(delta);
    }

    @Override
    public void histogram(String name, double value, String unit, Map<String, String> attributes) {
      seen(name, attributes);
      units.put(name, unit);
      sums.computeIfAbsent(name + new TreeMap<>(attributes), k -> new AtomicLong()).incrementAndGet();
    }

    @Override
    public void gauge(String name, long value, Map<String, String> attributes) {
      seen(name, attributes);
    }
  }

  static List<ProcessInstance> runInstances(JobwireClient client, String type) throws Exception {
    client.deployResource("one-task-" + type + ".bpmn", TestEngine.bpmn(type)).get();
    List<CompletableFuture<ProcessInstance>> all = new ArrayList<>();
    for (int i = 0; i < N; i++) all.add(client.createProcessInstanceWithResult("one-task-" + type, Map.of("i", i), Duration.ofSeconds(20)));
    List<ProcessInstance> out = new ArrayList<>();
    for (CompletableFuture<ProcessInstance> f : all) out.add(f.get(30, TimeUnit.SECONDS));
    return out;
  }

  @Test
  void recorderSeesTheOpenTelemetryNamesAttributesAndCounts() throws Exception {
    Recording rec = new Recording();
    String worker = "recorded";
    try (JobwireClient client = JobwireClient.builder().environment(Map.of()).address(engine.address()).metricsRecorder(rec).build()) {
      JobWorker w = client.newWorker().jobType("recorded").workerName(worker).handler(job -> Map.of("done", true)).open();
      List<ProcessInstance> done = runInstances(client, "recorded");
      assertEquals(N, done.size());
      w.close(Duration.ofSeconds(5));
    }
    Map<String, Set<String>> otelKeys = new TreeMap<>();
    Map<String, Long> otelSums = new TreeMap<>();
    Map<String, String> otelUnits = new TreeMap<>();
    for (MetricData m : reader.collectAllMetrics()) {
      if (!m.getName().startsWith("jobwire.worker.")) continue;
      for (PointData p : m.getData().getPoints()) {
        if (!worker.equals(p.getAttributes().get(AttributeKey.stringKey("jobwire.worker.name")))) continue;
        Map<String, String> attrs = new TreeMap<>();
        p.getAttributes().forEach((k, v) -> attrs.put(k.getKey(), String.valueOf(v)));
        otelKeys.computeIfAbsent(m.getName(), k -> new TreeSet<>()).addAll(attrs.keySet());
        otelUnits.put(m.getName(), m.getUnit());
        long v = p instanceof io.opentelemetry.sdk.metrics.data.LongPointData lp ? lp.getValue()
            : p instanceof io.opentelemetry.sdk.metrics.data.HistogramPointData hp ? hp.getCount() : 0;
        if (m.getType() != io.opentelemetry.sdk.metrics.data.MetricDataType.LONG_GAUGE) otelSums.put(m.getName() + attrs, v);
      }
    }
    Map<String, Set<String>> recKeys = new TreeMap<>();
    rec.keys.forEach((k, v) -> recKeys.put(k, new TreeSet<>(v)));
    assertTrue(otelKeys.containsKey("jobwire.worker.jobs.handled"), "OTel saw the worker: " + otelKeys);
    assertTrue(otelKeys.containsKey("jobwire.worker.job.duration") && otelKeys.containsKey("jobwire.worker.capacity.used"), otelKeys.toString());
    assertEquals(otelKeys, recKeys, "instrument names and attribute keys, OTel vs recorder");
    Map<String, Long> recSums = new TreeMap<>();
    rec.sums.forEach((k, v) -> recSums.put(k, v.get()));
    assertEquals(otelSums, recSums, "counter sums and histogram counts, OTel vs recorder");
    assertEquals((long) N, recSums.get("jobwire.worker.jobs.handled{jobwire.job.type=recorded, jobwire.worker.name=recorded, outcome=completed}"));
    assertEquals("s", rec.units.get("jobwire.worker.job.duration"));
    assertEquals(otelUnits.get("jobwire.worker.job.duration"), rec.units.get("jobwire.worker.job.duration"));
  }

  /** Builder.openTelemetry: the span per job and the instruments go to the given OpenTelemetry, not the global one. */
  @Test
  void theClientsOwnOpenTelemetryGetsTheSpansAndMetrics() throws Exception {
    io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter spans = io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter.create();
    InMemoryMetricReader own = InMemoryMetricReader.create();
    OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
        .setTracerProvider(io.opentelemetry.sdk.trace.SdkTracerProvider.builder()
            .addSpanProcessor(io.opentelemetry.sdk.trace.export.SimpleSpanProcessor.create(spans)).build())
        .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(own).build())
        .build();
    try (JobwireClient client = JobwireClient.builder().environment(Map.of()).address(engine.address()).openTelemetry(sdk).build()) {
      JobWorker w = client.newWorker().jobType("own-otel").workerName("own-otel").handler(job -> Map.of()).open();
      assertEquals(N, runInstances(client, "own-otel").size());
      w.close(Duration.ofSeconds(5));
    }
    long jobSpans = spans.getFinishedSpanItems().stream().filter(sp -> sp.getName().equals("process job own-otel")).count();
    assertEquals(N, jobSpans, "one span per job in the client's own tracer provider");
    boolean ownHandled = false;
    for (MetricData m : own.collectAllMetrics()) {
      if (m.getName().equals("jobwire.worker.jobs.handled")) ownHandled = true;
    }
    assertTrue(ownHandled, "the client's own meter provider got the worker metrics");
    for (MetricData m : reader.collectAllMetrics()) {
      for (PointData p : m.getData().getPoints()) {
        assertFalse("own-otel".equals(p.getAttributes().get(AttributeKey.stringKey("jobwire.worker.name"))),
            "the global meter provider got nothing of this client: " + m.getName());
      }
    }
    sdk.close();
  }

  @Test
  void aThrowingRecorderNeverReachesTheHandlerOrTheOutcome() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    MetricsRecorder broken = new MetricsRecorder() {
      @Override
      public void counter(String name, long delta, Map<String, String> attributes) {
        calls.incrementAndGet();
        throw new IllegalStateException("registry down");
      }

      @Override
      public void histogram(String name, double value, String unit, Map<String, String> attributes) {
        calls.incrementAndGet();
        throw new IllegalStateException("registry down");
      }

      @Override
      public void gauge(String name, long value, Map<String, String> attributes) {
        calls.incrementAndGet();
        throw new NoClassDefFoundError("io/example/Registry");
      }
    };
    AtomicInteger handled = new AtomicInteger();
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    List<ProcessInstance> done;
    try (JobwireClient client = JobwireClient.builder().environment(Map.of()).address(engine.address()).metricsRecorder(broken).build()) {
      JobWorker w = client.newWorker().jobType("broken-recorder").handler(job -> {
        handled.incrementAndGet();
        return Map.of("i2", ((Number) job.variables().get("i")).intValue() * 2);
      }).open();
      done = runInstances(client, "broken-recorder");
      w.close(Duration.ofSeconds(5));
      assertEquals(0, w.heldJobs());
    } finally {
      System.setErr(err);
    }
    assertEquals(N, done.size());
    for (ProcessInstance p : done) {
      com.fasterxml.jackson.databind.JsonNode v = new com.fasterxml.jackson.databind.ObjectMapper().readTree(p.variables());
      assertEquals(v.path("i").asInt() * 2, v.path("i2").asInt(), "the handler's result reached the engine: " + p.variables());
    }
    assertEquals(N, handled.get(), "the handler ran once per job");
    assertTrue(calls.get() >= 2 * N, "the recorder was called for every job: " + calls.get());
    Matcher m = Pattern.compile("failed on (jobwire\\.worker\\.[a-z.]+)").matcher(captured.toString(StandardCharsets.UTF_8));
    Map<String, Integer> warnings = new TreeMap<>();
    while (m.find()) warnings.merge(m.group(1), 1, Integer::sum);
    err.println("MetricsRecorderTest: warnings per instrument " + warnings);
    assertFalse(warnings.isEmpty(), "the failures were logged");
    assertTrue(warnings.containsKey("jobwire.worker.jobs.handled") && warnings.containsKey("jobwire.worker.capacity.used"), warnings.toString());
    for (var e : warnings.entrySet()) assertEquals(1, e.getValue(), "logged once: " + e.getKey());
  }
}
