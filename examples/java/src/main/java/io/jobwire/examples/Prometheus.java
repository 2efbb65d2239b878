package io.jobwire.examples;

import io.jobwire.JobwireClient;
import io.jobwire.WorkerDefinition;
import io.opentelemetry.exporter.prometheus.PrometheusHttpServer;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * prometheus serves the worker's OpenTelemetry metrics to Prometheus: the SDK records its metrics
 * ({@code jobwire.worker.jobs.handled}, ...) through the OpenTelemetry API; this program installs
 * the OpenTelemetry metrics SDK with the Prometheus exporter's HTTP server ({@code /metrics} on
 * 127.0.0.1:9464), deploys examples/bpmn/order-fulfilment.bpmn and runs the order-worker's
 * {@code @JobWorker} methods ({@link OrderWorker.Handlers}) until SIGINT / SIGTERM. The
 * OpenTelemetry SDK and exporter are this example's dependencies, not jobwire's.
 *
 * <p>{@code OTEL_EXPORTER_PROMETHEUS_PORT} (default 9464) and {@code OTEL_EXPORTER_PROMETHEUS_HOST}
 * (default 127.0.0.1) choose the address; {@code BPMN} the process to deploy.
 */
public final class Prometheus {
  public static void main(String[] args) throws Exception {
    // 1. The OpenTelemetry metrics SDK with the Prometheus exporter: a reader that collects on
    // every scrape and serves /metrics itself. The SDK advises bucket bounds in seconds for the
    // handler duration; a view (registerView) can override them.
    String host = System.getenv().getOrDefault("OTEL_EXPORTER_PROMETHEUS_HOST", "127.0.0.1");
    int port = Integer.parseInt(System.getenv().getOrDefault("OTEL_EXPORTER_PROMETHEUS_PORT", "9464"));
    PrometheusHttpServer prometheus = PrometheusHttpServer.builder().setHost(host).setPort(port).build();
    SdkMeterProvider meterProvider = SdkMeterProvider.builder()
        .registerMetricReader(prometheus)
        .build();
    // before the client: each worker takes its meter from the global OpenTelemetry when it opens
    OpenTelemetrySdk.builder().setMeterProvider(meterProvider).buildAndRegisterGlobal();
    log("metrics on http://" + host + ":" + port + "/metrics");

    // 2. A client and the order workers, as usual: they use the global OpenTelemetry.
    Path bpmn = Path.of(System.getenv().getOrDefault("BPMN", "../../bpmn/order-fulfilment.bpmn"));
    try (JobwireClient client = JobwireClient.fromEnvironment()) { // ZEEBE_ADDRESS etc.
      client.deployResource(bpmn.getFileName().toString(), Files.readAllBytes(bpmn)).get();
      for (WorkerDefinition d : OrderWorker.definitions().values()) {
        d.builder(client).errorListener(e -> log(d.jobType() + ": " + e.getMessage())).open();
      }
      // Until SIGINT / SIGTERM: every worker stops taking jobs, running handlers get 10 s.
      client.runWorkers(Duration.ofSeconds(10));
    }
    meterProvider.close(); // stops the HTTP server
    log("stopped");
  }

  static void log(String msg) {
    System.err.println("prometheus (java): " + msg);
  }

  private Prometheus() {}
}
