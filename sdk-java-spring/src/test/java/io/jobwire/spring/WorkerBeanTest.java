package io.jobwire.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jobwire.Job;
import io.jobwire.JobWorker;
import io.jobwire.JobwireClient;
import io.jobwire.ProcessInstance;
import io.jobwire.annotation.CustomHeaders;
import io.jobwire.annotation.Variable;
import io.jobwire.annotation.VariablesAsType;
import io.jobwire.test.JobwireTestEngine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A {@code @JobWorker} bean against the real engine: the worker opens once the context is ready,
 * its parameters are injected (the job, a typed variables record, a single variable, the custom
 * headers), only the variables they name are fetched, and the option precedence holds
 * (defaults < annotation < override).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WorkerBeanTest {
  static JobwireTestEngine engine;

  @BeforeAll
  static void start() throws Exception {
    engine = JobwireTestEngine.start();
  }

  @AfterAll
  static void stop() {
    if (engine != null) engine.close();
  }

  public record Order(String orderId, double amount) {}

  public record Headers(String channel) {}

  /** The application's worker bean. */
  public static class OrderWorkers {
    final List<String> fetched = new CopyOnWriteArrayList<>();

    @io.jobwire.annotation.JobWorker(type = "spring-charge", workerName = "from-annotation")
    public Map<String, Object> charge(Job job, @VariablesAsType Order order, @Variable("discount") Double discount, @CustomHeaders Headers headers) {
      fetched.add(job.variablesJson());
      double d = discount == null ? 0 : discount;
      return Map.of("total", order.amount() - d, "channel", headers.channel(), "chargedId", order.orderId());
    }

    @io.jobwire.annotation.JobWorker(type = "spring-named")
    public void named() {}

    @io.jobwire.annotation.JobWorker(type = "spring-disabled")
    public void disabled() {}
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {
    @Bean
    OrderWorkers orderWorkers() {
      return new OrderWorkers();
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class TracedApp {
    static final io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter SPANS =
        io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter.create();

    @Bean
    OrderWorkers orderWorkers() {
      return new OrderWorkers();
    }

    @Bean(destroyMethod = "close")
    io.opentelemetry.sdk.OpenTelemetrySdk openTelemetry() {
      return io.opentelemetry.sdk.OpenTelemetrySdk.builder()
          .setTracerProvider(io.opentelemetry.sdk.trace.SdkTracerProvider.builder()
              .addSpanProcessor(io.opentelemetry.sdk.trace.export.SimpleSpanProcessor.create(SPANS)).build())
          .build();
    }
  }

  /**
   * The application's OpenTelemetry bean (e.g. the one Spring Boot's OpenTelemetry auto-configuration
   * makes) gets the span of every job, with the parent a {@code traceparent} custom header names.
   */
  @Test
  void theApplicationsOpenTelemetryBeanGetsTheJobSpans() throws Exception {
    String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    engine.deploy(TestProcesses.bpmn("spring-charge", Map.of("channel", "web", "traceparent", "00-" + traceId + "-00f067aa0ba902b7-01")));
    try (ConfigurableApplicationContext ctx = TestProcesses.run(engine, new Class<?>[] {TracedApp.class},
        "jobwire.worker.override.spring-disabled.enabled=false")) {
      JobwireClient client = ctx.getBean(JobwireClient.class);
      client.createProcessInstanceWithResult("one-task-spring-charge", Map.of("orderId", "o-t", "amount", 1.0),
          Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
      // the span ends once the engine acknowledged the outcome, which may be just after the result
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      List<io.opentelemetry.sdk.trace.data.SpanData> spans = List.of();
      while (System.nanoTime() < deadline) {
        spans = TracedApp.SPANS.getFinishedSpanItems().stream().filter(s -> s.getName().equals("process job spring-charge")).toList();
        if (!spans.isEmpty()) break;
        Thread.sleep(20);
      }
      assertThat(spans).hasSize(1);
      assertThat(spans.get(0).getTraceId()).as("the parent from the traceparent header").isEqualTo(traceId);
    }
  }

  @Test
  void jobWorkerBeanCompletesJobsWithInjectedParameters() throws Exception {
    engine.deploy(TestProcesses.bpmn("spring-charge", Map.of("channel", "web")));
    try (ConfigurableApplicationContext ctx = TestProcesses.run(engine, new Class<?>[] {App.class},
        "jobwire.worker.defaults.name=from-defaults", "jobwire.worker.override.spring-named.name=from-override",
        "jobwire.worker.override.spring-disabled.enabled=false")) {
      JobwireLifecycle lifecycle = ctx.getBean(JobwireLifecycle.class);
      assertThat(lifecycle.isRunning()).isTrue();
      Map<String, String> names = new java.util.TreeMap<>();
      for (JobWorker w : lifecycle.workers()) names.put(w.jobType(), w.workerName());
      assertThat(names).isEqualTo(Map.of("spring-charge", "from-annotation", "spring-named", "from-override"));

      JobwireClient client = ctx.getBean(JobwireClient.class);
      List<CompletableFuture<ProcessInstance>> all = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        all.add(client.createProcessInstanceWithResult("one-task-spring-charge",
            Map.of("orderId", "o-" + i, "amount", 100.0 + i, "discount", 10.0, "secret", "not fetched"), Duration.ofSeconds(20)));
      }
      ObjectMapper json = new ObjectMapper();
      for (int i = 0; i < all.size(); i++) {
        JsonNode v = json.readTree(all.get(i).get(30, TimeUnit.SECONDS).variables());
        assertThat(v.path("total").asDouble()).isEqualTo(90.0 + i);
        assertThat(v.path("channel").asText()).isEqualTo("web");
        assertThat(v.path("chargedId").asText()).isEqualTo("o-" + i);
      }
      OrderWorkers bean = ctx.getBean(OrderWorkers.class);
      assertThat(bean.fetched).hasSize(10);
      for (String fetched : bean.fetched) {
        assertThat(json.readTree(fetched).properties().stream().map(Map.Entry::getKey).sorted().toList())
            .as("fetchVariables derived from the parameters").containsExactly("amount", "discount", "orderId");
      }
    }
  }
}
