package io.jobwire.examples;

import io.jobwire.JobwireClient;
import io.jobwire.ProcessInstance;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * long-running shows autoExtend: the handler works longer than the job timeout, and the worker
 * keeps extending the job's deadline (UpdateJobTimeout) so the engine never hands the job to
 * another worker. The program deploys a one-task process, runs two workers (as two replicas
 * would), starts an instance, waits for its result and exits.
 *
 * <pre>
 *   ZEEBE_ADDRESS=127.0.0.1:26500 ./long-running/run   # JOB_TIMEOUT_MS=2000 WORK_DURATION_MS=5000 by default
 * </pre>
 */
public final class LongRunning {
  static final String PROCESS = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      + "<bpmn:definitions xmlns:bpmn=\"http://www.omg.org/spec/BPMN/20100524/MODEL\" xmlns:zeebe=\"http://camunda.org/schema/zeebe/1.0\"\n"
      + "                  id=\"Definitions_Report\" targetNamespace=\"http://jobwire.dev/examples\">\n"
      + "  <bpmn:process id=\"monthly-report\" isExecutable=\"true\">\n"
      + "    <bpmn:startEvent id=\"Start\" />\n"
      + "    <bpmn:sequenceFlow id=\"f1\" sourceRef=\"Start\" targetRef=\"Generate\" />\n"
      + "    <bpmn:serviceTask id=\"Generate\" name=\"Generate the report\">\n"
      + "      <bpmn:extensionElements><zeebe:taskDefinition type=\"generate-report\" retries=\"1\" /></bpmn:extensionElements>\n"
      + "    </bpmn:serviceTask>\n"
      + "    <bpmn:sequenceFlow id=\"f2\" sourceRef=\"Generate\" targetRef=\"End\" />\n"
      + "    <bpmn:endEvent id=\"End\" />\n"
      + "  </bpmn:process>\n"
      + "</bpmn:definitions>\n";

  public static void main(String[] args) throws Exception {
    long jobTimeoutMs = Long.parseLong(System.getenv().getOrDefault("JOB_TIMEOUT_MS", "2000"));
    long workMs = Long.parseLong(System.getenv().getOrDefault("WORK_DURATION_MS", "5000"));
    AtomicInteger runs = new AtomicInteger();
    try (JobwireClient client = JobwireClient.fromEnvironment()) { // ZEEBE_ADDRESS etc., else 127.0.0.1:26500
      client.deployResource("monthly-report.bpmn", PROCESS.getBytes(StandardCharsets.UTF_8)).get();
      // Two workers, as if two replicas of your service were running: without autoExtend the job
      // would time out and the other replica would run it again.
      for (String workerName : new String[] {"replica-1", "replica-2"}) {
        client.newWorker()
            .jobType("generate-report")
            .workerName(workerName)
            .jobTimeout(Duration.ofMillis(jobTimeoutMs))
            .autoExtend(true) // extend the deadline while the handler runs
            .handler(job -> {
              runs.incrementAndGet();
              System.err.printf("long-running (java): %s got job %d: working for %d ms (job timeout %d ms)%n", workerName, job.key(), workMs,
                  jobTimeoutMs);
              Thread.sleep(workMs); // interrupted if the worker's close timeout runs out
              return Map.of("report", "ready", "by", workerName);
            })
            .open();
      }
      long start = System.nanoTime();
      ProcessInstance res = client.createProcessInstanceWithResult("monthly-report", null, Duration.ofMillis(workMs + 30_000)).get();
      double took = (System.nanoTime() - start) / 1e9;
      System.out.printf(java.util.Locale.ROOT, "instance %d completed after %.1fs (job timeout %ds): the handler ran %d time(s), variables %s%n",
          res.processInstanceKey(), took, jobTimeoutMs / 1000, runs.get(), res.variables());
    }
    if (runs.get() != 1) {
      System.err.println("long-running (java): the job was handled " + runs.get() + " times: the deadline was not extended");
      System.exit(1);
    }
  }

  private LongRunning() {}
}
