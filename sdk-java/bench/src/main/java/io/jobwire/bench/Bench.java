package io.jobwire.bench;

import io.camunda.client.CamundaClient;
import io.jobwire.JobWorker;
import io.jobwire.JobwireClient;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * No-op worker benchmark on one engine (address in ZEEBE_ADDRESS): for each variant a fresh job
 * type, one worker (maxJobsActive 32), WARMUP then N instances created with result by one
 * jobwire client, IN_FLIGHT at a time. Reports jobs/s (N / wall time) and the p50 / p99 / max of
 * the instance latency (create → completed result), which is dominated by the worker's hand-off.
 */
public final class Bench {
  static String bpmn(String type) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><bpmn:definitions xmlns:bpmn=\"http://www.omg.org/spec/BPMN/20100524/MODEL\""
        + " xmlns:zeebe=\"http://camunda.org/schema/zeebe/1.0\" id=\"d\" targetNamespace=\"bench\"><bpmn:process id=\"p-" + type + "\" isExecutable=\"true\">"
        + "<bpmn:startEvent id=\"s\"/><bpmn:sequenceFlow id=\"f1\" sourceRef=\"s\" targetRef=\"t\"/><bpmn:serviceTask id=\"t\"><bpmn:extensionElements>"
        + "<zeebe:taskDefinition type=\"" + type + "\"/></bpmn:extensionElements></bpmn:serviceTask><bpmn:sequenceFlow id=\"f2\" sourceRef=\"t\" targetRef=\"e\"/>"
        + "<bpmn:endEvent id=\"e\"/></bpmn:process></bpmn:definitions>";
  }

  interface Worker extends AutoCloseable {
    @Override
    void close();
  }

  public static void main(String[] args) throws Exception {
    String addr = System.getenv().getOrDefault("ZEEBE_ADDRESS", "127.0.0.1:26500");
    int n = Integer.parseInt(System.getenv().getOrDefault("N", "5000"));
    int warmup = Integer.parseInt(System.getenv().getOrDefault("WARMUP", "1000"));
    int inFlight = Integer.parseInt(System.getenv().getOrDefault("IN_FLIGHT", "64"));
    int rounds = Integer.parseInt(System.getenv().getOrDefault("ROUNDS", "1"));
    List<String> variants = Arrays.asList(System.getenv().getOrDefault("VARIANTS", "jobwire-push,jobwire-poll,camunda-push,camunda-poll").split(","));
    System.out.printf("bench: %s, %d instances per variant after %d warm-up, %d in flight, maxJobsActive 32, %d round(s)%n", addr, n, warmup, inFlight, rounds);
    try (JobwireClient driver = JobwireClient.builder().address(addr).build();
        JobwireClient jw = JobwireClient.builder().address(addr).build();
        CamundaClient cc = CamundaClient.newClientBuilder().grpcAddress(URI.create("http://" + addr)).restAddress(URI.create("http://127.0.0.1:1"))
            .preferRestOverGrpc(false).defaultJobWorkerMaxJobsActive(32).build()) {
      for (int round = 1; round <= rounds; round++) {
        for (String v : variants) {
          String type = "bench-" + v + "-" + round;
          driver.deployResource(type + ".bpmn", bpmn(type).getBytes(StandardCharsets.UTF_8)).get();
          Worker w = start(v, type, jw, cc);
          try {
            Thread.sleep(500);
            run(driver, "p-" + type, warmup, inFlight);
            long[] lat = run(driver, "p-" + type, n, inFlight);
            long wall = lat[lat.length - 1];
            long[] l = Arrays.copyOf(lat, lat.length - 1);
            Arrays.sort(l);
            System.out.printf(Locale.ROOT, "bench: %-13s round %d: %7.0f jobs/s   p50 %6.2f ms   p99 %6.2f ms   max %6.2f ms%n", v, round, n * 1e9 / wall,
                l[(int) (l.length * 0.50)] / 1e6, l[(int) Math.min(l.length - 1, Math.ceil(l.length * 0.99) - 1)] / 1e6, l[l.length - 1] / 1e6);
          } finally {
            w.close();
          }
        }
      }
    }
    System.exit(0);
  }

  static Worker start(String v, String type, JobwireClient jw, CamundaClient cc) throws Exception {
    switch (v) {
      case "jobwire-push":
      case "jobwire-poll": {
        JobWorker w = jw.newWorker().jobType(type).maxJobsActive(32).streamEnabled(v.endsWith("push")).handler(job -> null).open();
        return () -> w.close(Duration.ofSeconds(5));
      }
      case "camunda-push":
      case "camunda-poll": {
        io.camunda.client.api.worker.JobWorker w = cc.newWorker().jobType(type)
            .handler((client, job) -> client.newCompleteCommand(job.getKey()).send().join())
            .maxJobsActive(32).streamEnabled(v.endsWith("push")).open();
        return w::close;
      }
      default:
        throw new IllegalArgumentException("unknown variant " + v);
    }
  }

  /** @return per-instance latencies in ns, followed by the wall time in ns */
  static long[] run(JobwireClient driver, String pid, int n, int inFlight) throws Exception {
    Semaphore sem = new Semaphore(inFlight);
    long[] lat = new long[n + 1];
    AtomicLong failures = new AtomicLong();
    List<CompletableFuture<?>> all = new ArrayList<>(n);
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      sem.acquire();
      int idx = i;
      long s = System.nanoTime();
      all.add(driver.createProcessInstanceWithResult(pid, Map.of(), Duration.ofSeconds(60)).whenComplete((r, e) -> {
        lat[idx] = System.nanoTime() - s;
        if (e != null) failures.incrementAndGet();
        sem.release();
      }));
    }
    CompletableFuture.allOf(all.toArray(new CompletableFuture[0])).handle((r, e) -> null).get(120, TimeUnit.SECONDS);
    lat[n] = System.nanoTime() - t0;
    if (failures.get() > 0) throw new IllegalStateException(failures.get() + " instances failed");
    return lat;
  }

  private Bench() {}
}
