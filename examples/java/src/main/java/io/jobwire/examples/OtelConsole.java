package io.jobwire.examples;

import io.jobwire.JobwireClient;
import io.jobwire.ProcessInstance;
import io.opentelemetry.exporter.logging.LoggingSpanExporter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import java.util.logging.StreamHandler;

/**
 * otel-console shows the worker's OpenTelemetry traces: the SDK records a span "process job
 * &lt;type&gt;" per job through the OpenTelemetry API; this program installs the OpenTelemetry SDK
 * with a span exporter that prints to stdout, deploys a one-task process, runs one instance and
 * prints the span. The OpenTelemetry SDK is this example's dependency, not jobwire's.
 */
public final class OtelConsole {
  static final String PROCESS = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      + "<bpmn:definitions xmlns:bpmn=\"http://www.omg.org/spec/BPMN/20100524/MODEL\" xmlns:zeebe=\"http://camunda.org/schema/zeebe/1.0\"\n"
      + "                  id=\"Definitions_Greeting\" targetNamespace=\"http://jobwire.dev/examples\">\n"
      + "  <bpmn:process id=\"greeting\" isExecutable=\"true\">\n"
      + "    <bpmn:startEvent id=\"Start\" />\n"
      + "    <bpmn:sequenceFlow id=\"f1\" sourceRef=\"Start\" targetRef=\"SendGreeting\" />\n"
      + "    <bpmn:serviceTask id=\"SendGreeting\" name=\"Send a greeting\">\n"
      + "      <bpmn:extensionElements><zeebe:taskDefinition type=\"send-greeting\" /></bpmn:extensionElements>\n"
      + "    </bpmn:serviceTask>\n"
      + "    <bpmn:sequenceFlow id=\"f2\" sourceRef=\"SendGreeting\" targetRef=\"End\" />\n"
      + "    <bpmn:endEvent id=\"End\" />\n"
      + "  </bpmn:process>\n"
      + "</bpmn:definitions>\n";

  public static void main(String[] args) throws Exception {
    // The logging exporter writes through java.util.logging: send its lines to stdout.
    Logger exporterLog = Logger.getLogger(LoggingSpanExporter.class.getName());
    exporterLog.setUseParentHandlers(false);
    StreamHandler out = new StreamHandler(System.out, new SimpleFormatter()) {
      @Override
      public synchronized void publish(java.util.logging.LogRecord r) {
        super.publish(r);
        flush();
      }
    };
    out.setLevel(Level.ALL);
    exporterLog.addHandler(out);
    exporterLog.setLevel(Level.INFO);

    // 1. The OpenTelemetry SDK: every span is printed when it ends.
    SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(LoggingSpanExporter.create())).build();
    OpenTelemetrySdk.builder().setTracerProvider(provider).buildAndRegisterGlobal();

    // 2. A client and a worker, as usual: they use the global OpenTelemetry.
    ProcessInstance res;
    try (JobwireClient client = JobwireClient.fromEnvironment()) {
      client.deployResource("greeting.bpmn", PROCESS.getBytes(StandardCharsets.UTF_8)).get();
      client.newWorker().jobType("send-greeting").handler(job -> Map.of("greeting", "Hello, " + job.variables().get("name"))).open();
      res = client.createProcessInstanceWithResult("greeting", Map.of("name", "Ada"), Duration.ofSeconds(20)).get();
    } // closing the client closes the worker; the span ends when the job's outcome is acknowledged
    provider.shutdown().join(10, java.util.concurrent.TimeUnit.SECONDS); // flushes the spans
    System.err.printf("otel-console (java): instance %d completed with %s%n", res.processInstanceKey(), res.variables());
  }

  private OtelConsole() {}
}
