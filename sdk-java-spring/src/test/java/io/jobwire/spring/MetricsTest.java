package io.jobwire.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.jobwire.JobwireClient;
import io.jobwire.ProcessInstance;
import io.jobwire.test.JobwireTestEngine;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.pause.PauseDetector;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.PointData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.actuate.metrics.MetricsEndpoint;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Micrometer against the real engine: the meters have exactly the names and tag keys of the
 * OpenTelemetry instruments an OTel SDK in-memory reader sees on the same run, the counts agree,
 * Actuator's metrics endpoint lists them; a registry that throws on every jobwire meter changes
 * nothing for the jobs.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MetricsTest {
  static JobwireTestEngine engine;
  static InMemoryMetricReader reader;
  static final int N = 15;

  @BeforeAll
  static void start() throws Exception {
    GlobalOpenTelemetry.resetForTest();
    reader = InMemoryMetricReader.create();
    OpenTelemetrySdk.builder().setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build()).buildAndRegisterGlobal();
    engine = JobwireTestEngine.start();
  }

  @AfterAll
  static void stop() {
    if (engine != null) engine.close();
    GlobalOpenTelemetry.resetForTest();
  }

  public static class Workers {
    final AtomicInteger calls = new AtomicInteger();

    @io.jobwire.annotation.JobWorker(type = "spring-metrics", workerName = "metrics-worker")
    public Map<String, Object> work(@io.jobwire.annotation.Variable("i") int i) {
      calls.incrementAndGet();
      return Map.of("twice", i * 2);
    }

    @io.jobwire.annotation.JobWorker(type = "spring-broken-registry", workerName = "broken-registry-worker")
    public Map<String, Object> broken(@io.jobwire.annotation.Variable("i") int i) {
      calls.incrementAndGet();
      return Map.of("twice", i * 2);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {
    @Bean
    Workers workers() {
      return new Workers();
    }

    @Bean
    SimpleMeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }

    /** The application's OpenTelemetry (the starter gives it to the client): the test's in-memory SDK. */
    @Bean
    io.opentelemetry.api.OpenTelemetry openTelemetry() {
      return GlobalOpenTelemetry.get();
    }
  }

  /** A registry that throws whenever a jobwire meter is created. */
  static class ThrowingRegistry extends SimpleMeterRegistry {
    static void refuse(Meter.Id id) {
      if (id.getName().startsWith("jobwire.")) throw new IllegalStateException("registry refuses " + id.getName());
    }

    @Override
    protected Counter newCounter(Meter.Id id) {
      refuse(id);
      return super.newCounter(id);
    }

    @Override
    protected Timer newTimer(Meter.Id id, io.micrometer.core.instrument.distribution.DistributionStatisticConfig c, PauseDetector p) {
      refuse(id);
      return super.newTimer(id, c, p);
    }

    @Override
    protected <T> io.micrometer.core.instrument.Gauge newGauge(Meter.Id id, T obj, java.util.function.ToDoubleFunction<T> f) {
      refuse(id);
      return super.newGauge(id, obj, f);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class BrokenApp {
    @Bean
    Workers workers() {
      return new Workers();
    }

    @Bean
    SimpleMeterRegistry meterRegistry() {
      return new ThrowingRegistry();
    }
  }

  static void runInstances(JobwireClient client, String type) throws Exception {
    engine.deploy(TestProcesses.bpmn(type, Map.of()));
    List<CompletableFuture<ProcessInstance>> all = new ArrayList<>();
    for (int i = 0; i < N; i++) all.add(client.createProcessInstanceWithResult("one-task-" + type, Map.of("i", i), Duration.ofSeconds(20)));
    for (CompletableFuture<ProcessInstance> f : all) assertThat(f.get(30, TimeUnit.SECONDS).variables()).contains("\"twice\"");
  }

  @Test
  void micrometerMetersMatchTheOpenTelemetryInstrumentsOneToOne() throws Exception {
    Map<String, Set<String>> micrometer = new TreeMap<>();
    MeterRegistry registry;
    try (ConfigurableApplicationContext ctx = TestProcesses.run(engine, new Class<?>[] {App.class},
        "jobwire.worker.override.spring-broken-registry.enabled=false")) {
      registry = ctx.getBean(MeterRegistry.class);
      assertThat(ctx.getBean(JobwireClient.class)).isNotNull();
      runInstances(ctx.getBean(JobwireClient.class), "spring-metrics");
      // an instance's result can reach the test just before the worker has the engine's answer to
      // its CompleteJob (the job counts as completed then, and its duration is recorded): wait for it
      MeterRegistry r = registry;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (System.nanoTime() < deadline) {
        var done = r.find("jobwire.worker.jobs.handled").tag("jobwire.worker.name", "metrics-worker").tag("outcome", "completed").counter();
        var timed = r.find("jobwire.worker.job.duration").tag("jobwire.worker.name", "metrics-worker").timer();
        if (done != null && done.count() >= N && timed != null && timed.count() >= N) break;
        Thread.sleep(20);
      }
      for (Meter m : registry.getMeters()) {
        if (!m.getId().getName().startsWith("jobwire.") || !"metrics-worker".equals(m.getId().getTag("jobwire.worker.name"))) continue;
        micrometer.computeIfAbsent(m.getId().getName(), k -> new TreeSet<>()).addAll(m.getId().getTags().stream().map(Tag::getKey).toList());
      }
      // Actuator's metrics endpoint over the same registry
      MetricsEndpoint endpoint = new MetricsEndpoint(registry);
      assertThat(endpoint.listNames().getNames()).containsAll(micrometer.keySet());
      var handled = endpoint.metric("jobwire.worker.jobs.handled", List.of("outcome:completed", "jobwire.worker.name:metrics-worker"));
      assertThat(handled.getMeasurements().get(0).getValue()).isEqualTo((double) N);
      assertThat(registry.get("jobwire.worker.job.duration").tag("jobwire.worker.name", "metrics-worker").timer().count()).isEqualTo(N);
    }
    Map<String, Set<String>> otel = new TreeMap<>();
    for (MetricData m : reader.collectAllMetrics()) {
      for (PointData p : m.getData().getPoints()) {
        if (!"metrics-worker".equals(p.getAttributes().get(AttributeKey.stringKey("jobwire.worker.name")))) continue;
        Set<String> keys = otel.computeIfAbsent(m.getName(), k -> new TreeSet<>());
        p.getAttributes().forEach((k, v) -> keys.add(k.getKey()));
      }
    }
    System.out.println("MetricsTest: OTel " + otel + "\nMetricsTest: Micrometer " + micrometer);
    assertThat(otel).containsKeys("jobwire.worker.jobs.activated", "jobwire.worker.jobs.handled", "jobwire.worker.job.duration",
        "jobwire.worker.capacity.used");
    assertThat(micrometer).as("Micrometer meter names and tag keys == OTel instrument names and attribute keys").isEqualTo(otel);
  }

  @Test
  void aThrowingMeterRegistryNeverFailsAJob() throws Exception {
    try (ConfigurableApplicationContext ctx = TestProcesses.run(engine, new Class<?>[] {BrokenApp.class},
        "jobwire.worker.override.spring-metrics.enabled=false")) {
      assertThat(ctx.getBean(MeterRegistry.class)).isInstanceOf(ThrowingRegistry.class);
      Workers w = ctx.getBean(Workers.class);
      runInstances(ctx.getBean(JobwireClient.class), "spring-broken-registry");
      assertThat(w.calls.get()).as("the handler ran once per job").isEqualTo(N);
      assertThat(ctx.getBean(MeterRegistry.class).find("jobwire.worker.jobs.handled").meters()).isEmpty();
    }
  }
}
