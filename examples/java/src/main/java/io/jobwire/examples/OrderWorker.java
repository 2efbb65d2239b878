package io.jobwire.examples;

import io.jobwire.JobErrorException;
import io.jobwire.JobHandler;
import io.jobwire.JobWorker;
import io.jobwire.JobwireClient;
import io.jobwire.WorkerState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * order-worker handles the jobs of examples/bpmn/order-fulfilment.bpmn with the jobwire Java SDK.
 *
 * <pre>
 *   ZEEBE_ADDRESS=127.0.0.1:26500 ./order-worker/run                  # all four job types
 *   JOB_TYPES=inventory,notify-customer ./order-worker/run            # only some
 * </pre>
 *
 * The SDK reads ZEEBE_ADDRESS, ZEEBE_CLIENT_ID, ... (docs/configuration.md); this program reads
 * JOB_TYPES, MAX_JOBS_ACTIVE and STATS_INTERVAL_MS (print a JSON stats line to stdout that
 * often). SIGINT / SIGTERM close it gracefully.
 */
public final class OrderWorker {
  static final String DECLINED_CARD = "4000000000000002"; // the test card the payment handler declines

  static Map<String, JobHandler> handlers() {
    Map<String, JobHandler> h = new LinkedHashMap<>();
    h.put("payment", job -> {
      Map<String, Object> v = job.variables();
      if (v.get("orderId") == null) {
        // an exception fails the job: the engine retries it with retries - 1, then raises an incident
        throw new IllegalArgumentException("the job has no orderId variable");
      }
      if (DECLINED_CARD.equals(v.get("card"))) {
        // a BPMN error: caught by the PaymentDeclined boundary event
        throw new JobErrorException("PAYMENT_DECLINED", "card declined", Map.of("declineReason", "insufficient funds"));
      }
      return new LinkedHashMap<>(Map.of("paid", true, "paymentId", "pay-" + v.get("orderId"))); // completes the job
    });
    h.put("inventory", job -> new LinkedHashMap<>(Map.of("reserved", true)));
    h.put("shipping", job -> new LinkedHashMap<>(Map.of("shippingMethod", job.customHeaders().getOrDefault("method", ""),
        "trackingNumber", "TRK-" + job.key())));
    h.put("notify-customer", job -> new LinkedHashMap<>(Map.of("notified", job.customHeaders().getOrDefault("template", ""))));
    return h;
  }

  static void log(String msg) {
    System.err.println("order-worker (java): " + msg);
  }

  public static void main(String[] args) throws Exception {
    Map<String, JobHandler> handlers = handlers();
    String typesEnv = System.getenv().getOrDefault("JOB_TYPES", String.join(",", handlers.keySet()));
    List<String> types = new ArrayList<>();
    for (String t : typesEnv.split(",")) if (!t.isBlank()) types.add(t.trim());
    int maxJobsActive = Integer.parseInt(System.getenv().getOrDefault("MAX_JOBS_ACTIVE", "32"));
    Stats stats = new Stats("java");

    for (String type : types) {
      if (!handlers.containsKey(type)) {
        log("JOB_TYPES: unknown job type \"" + type + "\"");
        System.exit(2);
      }
    }

    JobwireClient client = JobwireClient.fromEnvironment(); // ZEEBE_ADDRESS etc., else 127.0.0.1:26500
    long interval = Long.parseLong(System.getenv().getOrDefault("STATS_INTERVAL_MS", "0"));
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "stats");
      t.setDaemon(true);
      return t;
    });
    if (interval > 0) timer.scheduleAtFixedRate(() -> stats.print(false), interval, interval, TimeUnit.MILLISECONDS);

    AtomicInteger waiting = new AtomicInteger(types.size());
    List<JobWorker> workers = new ArrayList<>();
    for (String type : types) {
      JobHandler h = handlers.get(type);
      boolean[] streaming = {false};
      workers.add(client.newWorker()
          .jobType(type)
          .maxJobsActive(maxJobsActive)
          .handler(stats.wrap(type, h))
          .errorListener(e -> log(type + ": " + e.getMessage()))
          .stateListener(s -> {
            if (s == WorkerState.STREAMING && !streaming[0]) {
              streaming[0] = true;
              if (waiting.decrementAndGet() == 0) log("ready: handling " + String.join(", ", types));
            }
          })
          .open());
    }

    // Until SIGINT / SIGTERM: then every worker stops taking jobs and running handlers get 10 s
    // to finish; runWorkers returns and the process exits 0.
    client.runWorkers(Duration.ofSeconds(10));
    log("stopped");
    timer.shutdownNow();
    stats.print(true);
  }

  private OrderWorker() {}

}
