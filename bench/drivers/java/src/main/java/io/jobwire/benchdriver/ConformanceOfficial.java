package io.jobwire.benchdriver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.camunda.client.CamundaClient;
import io.camunda.client.CamundaClientBuilder;
import io.camunda.client.api.command.ClientStatusException;
import io.camunda.client.api.response.ActivatedJob;
import io.camunda.client.api.worker.JobClient;
import io.camunda.client.api.worker.JobWorker;
import io.camunda.client.api.worker.JobWorkerBuilderStep1;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Conformance driver (conformance-tests/DRIVER-CONTRACT.md) for the official Java client,
 * io.camunda:camunda-client-java (pinned in ../../../../../../pom.xml, the bench's install), run by
 * conformance-tests/peers/official-java/run. Each contract step is written as a user of that client
 * writes it: the handler sends the complete / fail (retries − 1, the worker's back-off) / throw-error
 * command itself; an exception is left to the client, which fails the job. Nothing the client lacks is
 * added: no worker states, spans or metrics, no auto-extension, no close timeout.
 *
 * <p>Configuration: the builder applies the ZEEBE_* variables itself (ZEEBE_INSECURE_CONNECTION,
 * ZEEBE_CA_CERTIFICATE_PATH, ZEEBE_CLIENT_ID/SECRET, ZEEBE_AUTHORIZATION_SERVER_URL, ZEEBE_TOKEN_AUDIENCE),
 * but names the gateway ZEEBE_GRPC_ADDRESS (a URI), so ZEEBE_ADDRESS is passed as grpcAddress. The
 * gateway has no REST API: preferRestOverGrpc(false). Job handlers run on 16 threads (the client's
 * default is 1; the scenarios' capacities are at most 16).
 */
public final class ConformanceOfficial {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final PrintStream OUT = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
  private static final String[] CODES = {"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
      "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
      "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"};

  private static CamundaClient client;
  private static final Map<String, Running> WORKERS = new ConcurrentHashMap<>();

  private record Running(JobWorker worker, Gate gate) {}

  /** The counting gate of `block` steps, opened by `release`. */
  private static final class Gate {
    private int permits;
    private int waiting;

    synchronized void await() throws InterruptedException {
      waiting++;
      try {
        while (permits == 0) wait();
        permits--;
      } finally {
        waiting--;
      }
    }

    synchronized int release(JsonNode count) {
      int n = count == null || count.isNull() ? waiting : count.asInt();
      permits += n;
      notifyAll();
      return n;
    }
  }

  static synchronized void emit(String event, ObjectNode fields) {
    fields.put("t", System.currentTimeMillis());
    fields.put("event", event);
    OUT.println(fields.toString());
    OUT.flush();
  }

  static ObjectNode obj() {
    return JSON.createObjectNode();
  }

  static void reportError(String id, Throwable e) {
    Throwable c = e;
    while (c.getCause() != null && !(c instanceof ClientStatusException)) c = c.getCause();
    ObjectNode f = obj().put("worker", id).put("message", String.valueOf(c.getMessage()));
    if (c instanceof ClientStatusException cse) {
      int code = cse.getStatusCode().value();
      if (code >= 0 && code < CODES.length) f.put("code", CODES[code]);
    }
    emit("error", f);
  }

  static void send(String id, CompletableFuture<?> f) {
    try {
      f.join();
    } catch (Exception e) {
      reportError(id, e);
    }
  }

  static void startWorker(JsonNode cmd) {
    String id = cmd.get("id").asText();
    JsonNode o = cmd.path("options");
    JsonNode behavior = cmd.path("behavior");
    Gate gate = new Gate();
    Duration backoff = o.hasNonNull("retryBackOffMs") ? Duration.ofMillis(o.get("retryBackOffMs").asLong()) : null;
    if (o.path("autoExtend").asBoolean(false)) System.err.println("[official-java] autoExtend: the client has no automatic job-timeout extension; ignored");
    JobWorkerBuilderStep1.JobWorkerBuilderStep3 b = client.newWorker().jobType(cmd.get("jobType").asText())
        .handler((JobClient jc, ActivatedJob job) -> handle(id, gate, behavior, backoff, jc, job));
    if (o.hasNonNull("workerName")) b = b.name(o.get("workerName").asText());
    if (o.hasNonNull("maxJobsActive")) b = b.maxJobsActive(o.get("maxJobsActive").asInt());
    if (o.hasNonNull("jobTimeoutMs")) b = b.timeout(Duration.ofMillis(o.get("jobTimeoutMs").asLong()));
    if (o.hasNonNull("requestTimeoutMs")) b = b.requestTimeout(Duration.ofMillis(o.get("requestTimeoutMs").asLong()));
    if (o.hasNonNull("pollIntervalMs")) b = b.pollInterval(Duration.ofMillis(o.get("pollIntervalMs").asLong()));
    if (o.hasNonNull("streamEnabled")) b = b.streamEnabled(o.get("streamEnabled").asBoolean());
    if (o.hasNonNull("streamTimeoutMs")) b = b.streamTimeout(Duration.ofMillis(o.get("streamTimeoutMs").asLong()));
    if (o.has("fetchVariables") && o.get("fetchVariables").isArray()) {
      List<String> names = new ArrayList<>();
      o.get("fetchVariables").forEach(n -> names.add(n.asText()));
      b = b.fetchVariables(names);
    }
    WORKERS.put(id, new Running(b.open(), gate));
    emit("worker_started", obj().put("worker", id));
  }

  static void handle(String id, Gate gate, JsonNode behavior, Duration backoff, JobClient jc, ActivatedJob job) throws Exception {
    long t0 = System.nanoTime();
    String key = Long.toString(job.getKey());
    String vars = job.getVariables();
    emit("job_start", obj().put("worker", id).put("key", key).put("type", job.getType()).put("retries", job.getRetries())
        .put("variables", vars).put("deadline", job.getDeadline()));
    JsonNode steps = behavior;
    try {
      JsonNode v = JSON.readTree(vars).path("jwBehavior");
      if (v.isArray()) steps = v;
    } catch (Exception ignored) {
      // not JSON: the worker's behaviour
    }
    String outcome = "completed";
    try {
      for (JsonNode st : steps) {
        if (st.has("sleep")) {
          Thread.sleep(st.get("sleep").asLong());
        } else if (st.has("block")) {
          gate.await();
        } else if (st.has("extendTimeout")) {
          send(id, client.newUpdateTimeoutCommand(job.getKey()).timeout(Duration.ofMillis(st.get("extendTimeout").asLong())).send().toCompletableFuture());
        } else if (st.has("complete")) {
          JsonNode c = st.get("complete");
          send(id, jc.newCompleteCommand(job.getKey()).variables(c.isNull() ? "{}" : c.toString()).send().toCompletableFuture());
          return;
        } else if (st.has("completeEcho")) {
          send(id, jc.newCompleteCommand(job.getKey()).variables(vars).send().toCompletableFuture());
          return;
        } else if (st.has("fail")) {
          outcome = "failed";
          var f = jc.newFailCommand(job.getKey()).retries(job.getRetries() - 1).errorMessage(st.get("fail").asText());
          if (backoff != null) f = f.retryBackoff(backoff);
          send(id, f.send().toCompletableFuture());
          return;
        } else if (st.has("throwError")) {
          outcome = "error";
          JsonNode e = st.get("throwError");
          var t = jc.newThrowErrorCommand(job.getKey()).errorCode(e.path("code").asText()).errorMessage(e.path("message").asText(""));
          if (e.hasNonNull("variables")) t = t.variables(e.get("variables").toString());
          send(id, t.send().toCompletableFuture());
          return;
        } else if (st.has("crash")) {
          outcome = "crashed";
          throw new IllegalStateException(st.get("crash").asText()); // left to the client, which fails the job
        } else {
          System.err.println("[official-java] unknown step " + st);
        }
      }
      send(id, jc.newCompleteCommand(job.getKey()).send().toCompletableFuture());
    } catch (InterruptedException e) {
      outcome = "cancelled";
      throw e;
    } finally {
      emit("job_end", obj().put("worker", id).put("key", key).put("outcome", outcome)
          .put("durationMs", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)));
    }
  }

  static void stopWorker(String id) {
    Running r = WORKERS.remove(id);
    if (r == null) {
      emit("error", obj().put("worker", id).put("message", "unknown worker " + id));
      return;
    }
    long t0 = System.nanoTime();
    r.worker().close(); // the client's close takes no timeout
    emit("worker_closed", obj().put("worker", id).put("durationMs", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)));
  }

  static void closeAll() {
    List<Thread> ts = new ArrayList<>();
    for (String id : new ArrayList<>(WORKERS.keySet())) {
      Thread t = new Thread(() -> stopWorker(id));
      t.start();
      ts.add(t);
    }
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    for (Thread t : ts) {
      try {
        t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())));
      } catch (InterruptedException ignored) {
        Thread.currentThread().interrupt();
      }
    }
    client.close();
  }

  public static void main(String[] args) throws Exception {
    System.setOut(System.err); // the client's logging never mixes with the events
    String version = CamundaClient.class.getPackage().getImplementationVersion();
    try {
      CamundaClientBuilder b = CamundaClient.newClientBuilder().preferRestOverGrpc(false).numJobWorkerExecutionThreads(16);
      String addr = System.getenv("ZEEBE_ADDRESS");
      if (addr != null && !addr.isEmpty()) {
        boolean plain = "true".equalsIgnoreCase(System.getenv("ZEEBE_INSECURE_CONNECTION"));
        b = b.grpcAddress(URI.create((plain ? "http://" : "https://") + addr));
      }
      client = b.build();
    } catch (Exception e) {
      System.err.println("[official-java] client: " + e);
      emit("error", obj().put("message", String.valueOf(e.getMessage())));
      System.exit(1);
    }
    emit("ready", obj().put("sdk", "official-java").put("version", version));
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isBlank()) continue;
      JsonNode cmd;
      try {
        cmd = JSON.readTree(line);
      } catch (Exception e) {
        emit("error", obj().put("message", "bad command: " + line));
        continue;
      }
      switch (cmd.path("cmd").asText()) {
        case "start_worker" -> startWorker(cmd);
        case "stop_worker" -> {
          String id = cmd.get("id").asText();
          new Thread(() -> stopWorker(id)).start();
        }
        case "release" -> {
          Running r = WORKERS.get(cmd.get("id").asText());
          emit("released", obj().put("worker", cmd.get("id").asText()).put("count", r == null ? 0 : r.gate().release(cmd.get("count"))));
        }
        case "exit" -> {
          closeAll();
          System.exit(0);
        }
        default -> emit("error", obj().put("message", "unknown command " + cmd.path("cmd").asText()));
      }
    }
    closeAll();
    System.exit(0);
  }
}
