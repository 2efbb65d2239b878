package io.jobwire.examples;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.jobwire.Job;
import io.jobwire.JobErrorException;
import io.jobwire.JobWorker;
import io.jobwire.JobwireClient;
import io.jobwire.WorkerDefinition;
import io.jobwire.WorkerScanner;
import io.jobwire.WorkerState;
import io.jobwire.annotation.CustomHeaders;
import io.jobwire.annotation.VariablesAsType;
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
 * order-worker handles the jobs of examples/bpmn/order-fulfilment.bpmn with the jobwire Java SDK:
 * one {@code @JobWorker} method per job type ({@link Handlers}), started with
 * {@code WorkerScanner} and a stats middleware.
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

  /**
   * The payment job's input: only these variables are fetched. A job without an orderId never
   * reaches the handler: it fails with "jobwire: invalid input: orderId: missing" (retried with
   * back-off, then an incident).
   *
   * @param orderId the order (required)
   * @param card the card number
   * @param handedOffAt when the previous task finished (read by the stats middleware), or null
   */
  public record PaymentInput(@JsonProperty(required = true) String orderId, String card, Double handedOffAt) {}

  /** The custom headers of the shipping task. */
  public record ShippingHeaders(String method) {}

  /** The handlers, one {@code @JobWorker} method per job type of order-fulfilment.bpmn. */
  public static final class Handlers {
    @io.jobwire.annotation.JobWorker(type = "payment")
    public Map<String, Object> payment(@VariablesAsType PaymentInput order) {
      if (DECLINED_CARD.equals(order.card())) {
        // a BPMN error: caught by the PaymentDeclined boundary event
        throw new JobErrorException("PAYMENT_DECLINED", "card declined", Map.of("declineReason", "insufficient funds"));
      }
      return new LinkedHashMap<>(Map.of("paid", true, "paymentId", "pay-" + order.orderId())); // completes the job
    }

    @io.jobwire.annotation.JobWorker(type = "inventory")
    public Map<String, Object> inventory() {
      return new LinkedHashMap<>(Map.of("reserved", true));
    }

    @io.jobwire.annotation.JobWorker(type = "shipping")
    public Map<String, Object> shipping(Job job, @CustomHeaders ShippingHeaders headers) {
      return new LinkedHashMap<>(Map.of("shippingMethod", headers.method() == null ? "" : headers.method(), "trackingNumber", "TRK-" + job.key()));
    }

    @io.jobwire.annotation.JobWorker(type = "notify-customer")
    public Map<String, Object> notifyCustomer(@CustomHeaders Map<String, String> headers) {
      return new LinkedHashMap<>(Map.of("notified", headers.getOrDefault("template", "")));
    }
  }

  /** The workers of {@link Handlers}, by job type (read without a client). */
  static Map<String, WorkerDefinition> definitions() {
    Map<String, WorkerDefinition> defs = new LinkedHashMap<>();
    for (WorkerDefinition d : WorkerScanner.scan(new Handlers())) defs.put(d.jobType(), d);
    return defs;
  }

  static void log(String msg) {
    System.err.println("order-worker (java): " + msg);
  }

  public static void main(String[] args) throws Exception {
    Map<String, WorkerDefinition> handlers = definitions();
    String typesEnv = System.getenv().getOrDefault("JOB_TYPES", "payment,inventory,shipping,notify-customer");
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
      boolean[] streaming = {false};
      workers.add(handlers.get(type).builder(client)
          .maxJobsActive(maxJobsActive)
          .middleware(stats.middleware(type))
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
