package io.jobwire.driver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.jobwire.ConfigurationException;
import io.jobwire.DecisionEvaluation;
import io.jobwire.Job;
import io.jobwire.JobErrorException;
import io.jobwire.JobWorker;
import io.jobwire.JobWorkerBuilder;
import io.jobwire.JobwireClient;
import io.jobwire.JobwireException;
import io.jobwire.Middleware;
import io.jobwire.MigrateProcessInstanceCommand;
import io.jobwire.ModifyProcessInstanceCommand;
import io.jobwire.NonRetryableException;
import io.jobwire.RetryPolicy;
import io.jobwire.WorkerScanner;
import io.jobwire.annotation.CustomHeaders;
import io.jobwire.annotation.VariablesAsType;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.DoublePointData;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.PointData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;

/**
 * jobwire conformance driver for Java: runs workers with the SDK's public API under the
 * runner's control (JSON lines: commands on stdin, events on stdout). Connection settings come
 * only from the SDK's own environment variables.
 */
public final class Driver {
  private static final ObjectMapper M = new ObjectMapper();
  /** For `call` lines: numbers exactly as written (integers of any size, decimals as BigDecimal with their scale). */
  private static final ObjectMapper EXACT = JsonMapper.builder().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .nodeFactory(JsonNodeFactory.withExactBigDecimals(true)).build();
  private static final PrintStream OUT = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
  private static final Map<String, Entry> WORKERS = new ConcurrentHashMap<>();
  private static JobwireClient client;
  private static InMemoryMetricReader metricReader;

  private record Entry(JobWorker worker, Gate gate) {}

  /** Counting gate for `block` steps, opened by `release` commands. */
  static final class Gate {
    private int permits;
    private int waiting;
    private int generation;
    private int releaseAll;

    synchronized void await() throws InterruptedException {
      if (permits > 0) {
        permits--;
        return;
      }
      waiting++;
      int gen = generation;
      try {
        while (true) {
          if (generation != gen && releaseAll > 0) {
            releaseAll--;
            return;
          }
          if (permits > 0) {
            permits--;
            return;
          }
          wait();
        }
      } finally {
        waiting--;
      }
    }

    synchronized int release(Integer count) {
      if (count == null) {
        int n = waiting;
        generation++;
        releaseAll = n;
        notifyAll();
        return n;
      }
      permits += count;
      notifyAll();
      return count;
    }
  }

  static final class Crash extends RuntimeException {
    Crash(String m) {
      super(m);
    }
  }

  static void emit(String event, ObjectNode fields) {
    ObjectNode n = M.createObjectNode();
    n.put("t", System.currentTimeMillis());
    n.put("event", event);
    if (fields != null) n.setAll(fields);
    String line = n.toString();
    synchronized (OUT) {
      OUT.println(line);
      OUT.flush();
    }
  }

  static ObjectNode f() {
    return M.createObjectNode();
  }

  static void log(String s) {
    System.err.println("[driver-java] " + s);
  }

  public static void main(String[] args) throws Exception {
    if ("1".equals(System.getenv("JOBWIRE_DRIVER_OTEL"))) installOtel();
    try {
      client = JobwireClient.fromEnvironment(); // from the environment, as a user's process would
    } catch (ConfigurationException e) {
      log("client: " + e.getMessage());
      emit("error", f().put("message", e.getMessage()));
      System.exit(1);
    }
    emit("ready", f().put("sdk", "java").put("version", "0.1.0"));
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isBlank()) continue;
      JsonNode cmd;
      try {
        cmd = M.readTree(line);
        if ("call".equals(cmd.path("cmd").asText())) cmd = EXACT.readTree(line); // request variables stay exact
      } catch (Exception e) {
        emit("error", f().put("message", "bad command: " + line.substring(0, Math.min(200, line.length()))));
        continue;
      }
      try {
        handle(cmd);
      } catch (Exception e) {
        emit("error", f().put("message", String.valueOf(e.getMessage())));
      }
    }
    closeAll(5000);
    System.exit(0);
  }

  static void handle(JsonNode cmd) throws Exception {
    String c = cmd.path("cmd").asText();
    switch (c) {
      case "start_worker":
        startWorker(cmd);
        break;
      case "stop_worker": {
        String id = cmd.path("id").asText();
        long t = cmd.hasNonNull("timeoutMs") ? cmd.get("timeoutMs").asLong() : 5000;
        Thread th = new Thread(() -> stopWorker(id, t), "stop-" + id);
        th.start();
        break;
      }
      case "release": {
        String id = cmd.path("id").asText();
        Entry e = WORKERS.get(id);
        Integer count = cmd.hasNonNull("count") ? cmd.get("count").asInt() : null;
        int n = e == null ? 0 : e.gate.release(count);
        emit("released", f().put("worker", id).put("count", n));
        break;
      }
      case "call":
        call(cmd);
        break;
      case "exit":
        closeAll(5000);
        System.exit(0);
        break;
      default:
        emit("error", f().put("message", "unknown command " + c));
    }
  }

  // ---- client commands (DRIVER-CONTRACT.md "Client commands"): the SDK's public client API ----

  /** Sends one client command; answers `call_result` when the SDK's call returned (after its own resends). */
  static void call(JsonNode cmd) {
    String id = cmd.path("id").asText();
    CompletableFuture<ObjectNode> f;
    try {
      f = send(cmd.path("method").asText(), cmd.path("request"));
    } catch (RuntimeException e) { // refused before anything was sent (e.g. variables not an object)
      f = CompletableFuture.failedFuture(e);
    }
    f.whenComplete((result, err) -> {
      ObjectNode ev = f().put("id", id);
      if (err == null) {
        ev.put("ok", true).set("result", result);
      } else {
        Throwable t = err;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) t = t.getCause();
        ev.put("ok", false);
        if (t instanceof JobwireException) ev.put("code", ((JobwireException) t).codeName());
        ev.put("errorType", t.getClass().getSimpleName()).put("message", String.valueOf(t.getMessage()));
      }
      emit("call_result", ev);
    });
  }

  static long key(JsonNode n) {
    return Long.parseLong(n.asText());
  }

  /** A request's `variables` object as JSON text (exact), or null when absent. */
  static String vars(JsonNode n) {
    return n == null || n.isNull() || n.isMissingNode() ? null : n.toString();
  }

  static String text(JsonNode req, String field) {
    return req.hasNonNull(field) ? req.get(field).asText() : null;
  }

  static CompletableFuture<ObjectNode> send(String method, JsonNode req) {
    switch (method) {
      case "evaluateDecision": {
        CompletableFuture<DecisionEvaluation> f = req.hasNonNull("decisionKey")
            ? client.evaluateDecision(key(req.get("decisionKey")), vars(req.get("variables")), text(req, "tenantId"))
            : client.evaluateDecision(text(req, "decisionId"), vars(req.get("variables")), text(req, "tenantId"));
        return f.thenApply(Driver::evaluation);
      }
      case "modifyProcessInstance": {
        ModifyProcessInstanceCommand c = client.modifyProcessInstance(key(req.get("processInstanceKey")));
        for (JsonNode a : req.path("activate")) {
          c.activate(a.path("elementId").asText(), a.hasNonNull("ancestorElementInstanceKey") ? key(a.get("ancestorElementInstanceKey")) : 0);
          for (JsonNode v : a.path("variables")) {
            c.withVariables(vars(v.get("variables")), text(v, "scopeId"));
          }
        }
        for (JsonNode t : req.path("terminate")) c.terminate(key(t));
        return c.send().thenApply(r -> f());
      }
      case "migrateProcessInstance": {
        MigrateProcessInstanceCommand c = client.migrateProcessInstance(key(req.get("processInstanceKey")));
        if (req.hasNonNull("targetProcessDefinitionKey")) c.targetProcessDefinitionKey(key(req.get("targetProcessDefinitionKey")));
        for (JsonNode m : req.path("mappings")) c.map(m.path("sourceElementId").asText(), m.path("targetElementId").asText());
        return c.send().thenApply(r -> f());
      }
      case "deleteResource":
        return client.deleteResource(key(req.get("resourceKey"))).thenApply(r -> f());
      case "broadcastSignal":
        return client.broadcastSignal(req.path("signalName").asText(), vars(req.get("variables")), text(req, "tenantId"))
            .thenApply(k -> f().put("key", Long.toString(k)));
      default:
        throw new IllegalArgumentException("unknown method " + method);
    }
  }

  static ObjectNode evaluation(DecisionEvaluation e) {
    ArrayNode ids = M.createArrayNode();
    ArrayNode rules = M.createArrayNode();
    for (DecisionEvaluation.EvaluatedDecision d : e.evaluatedDecisions()) {
      ids.add(d.decisionId());
      if (d.decisionId().equals(e.decisionId())) {
        rules.removeAll();
        for (DecisionEvaluation.MatchedRule r : d.matchedRules()) rules.add(r.ruleId());
      }
    }
    ObjectNode out = f().put("decisionKey", Long.toString(e.decisionKey())).put("decisionId", e.decisionId()).put("decisionVersion", e.decisionVersion())
        .put("decisionOutput", e.decisionOutput());
    out.set("evaluatedDecisionIds", ids);
    out.set("matchedRuleIds", rules);
    return out.put("failedDecisionId", e.failedDecisionId()).put("failureMessage", e.failureMessage());
  }

  static void startWorker(JsonNode cmd) throws ConfigurationException {
    String id = cmd.path("id").asText();
    Gate gate = new Gate();
    JsonNode behavior = cmd.path("behavior").isArray() ? cmd.get("behavior") : M.createArrayNode();
    JsonNode o = cmd.path("options");
    JobWorkerBuilder b;
    if (o.hasNonNull("typed")) {
      if (!"order".equals(o.get("typed").asText())) throw new IllegalArgumentException("unknown typed input " + o.get("typed"));
      // the documented declarative style: an @JobWorker bean; the job type is known only now (WorkerDefinition.withJobType)
      b = WorkerScanner.scan(new OrderWorker(id, behavior, gate)).get(0).withJobType(cmd.path("jobType").asText()).builder(client);
    } else {
      b = client.newWorker().jobType(cmd.path("jobType").asText());
      b.handler(job -> handleJob(id, job, behavior, gate));
    }
    if (o.hasNonNull("workerName")) b.workerName(o.get("workerName").asText());
    if (o.hasNonNull("maxJobsActive")) b.maxJobsActive(o.get("maxJobsActive").asInt());
    if (o.hasNonNull("concurrency")) b.concurrency(o.get("concurrency").asInt());
    if (o.hasNonNull("jobTimeoutMs")) b.jobTimeout(Duration.ofMillis(o.get("jobTimeoutMs").asLong()));
    if (o.hasNonNull("requestTimeoutMs")) b.requestTimeout(Duration.ofMillis(o.get("requestTimeoutMs").asLong()));
    if (o.hasNonNull("pollIntervalMs")) b.pollInterval(Duration.ofMillis(o.get("pollIntervalMs").asLong()));
    if (o.hasNonNull("streamEnabled")) b.streamEnabled(o.get("streamEnabled").asBoolean());
    if (o.hasNonNull("streamTimeoutMs")) b.streamTimeout(Duration.ofMillis(o.get("streamTimeoutMs").asLong()));
    if (o.hasNonNull("autoExtend")) b.autoExtend(o.get("autoExtend").asBoolean());
    if (o.hasNonNull("retryBackOffMs")) b.retryBackOff(Duration.ofMillis(o.get("retryBackOffMs").asLong()));
    if (o.path("fetchVariables").isArray()) b.fetchVariables(strings(o.get("fetchVariables")));
    if (o.path("tenantIds").isArray()) b.tenantIds(strings(o.get("tenantIds")));
    if (o.path("retryPolicy").isObject()) {
      JsonNode p = o.get("retryPolicy");
      RetryPolicy.ExponentialBackoff e = RetryPolicy.exponentialBackoff();
      if (p.hasNonNull("initialMs")) e.initial(Duration.ofMillis(p.get("initialMs").asLong()));
      if (p.hasNonNull("maxMs")) e.max(Duration.ofMillis(p.get("maxMs").asLong()));
      if (p.hasNonNull("multiplier")) e.multiplier(p.get("multiplier").asDouble());
      if (p.hasNonNull("jitter")) e.jitter(p.get("jitter").asDouble());
      if (p.hasNonNull("maxRetries")) e.maxRetries(p.get("maxRetries").asInt());
      b.retryPolicy(e.build());
    }
    for (JsonNode m : o.path("middleware")) b.middleware(middleware(id, m.path("name").asText(), m.hasNonNull("raise") ? m.get("raise").asText() : null));
    b.stateListener(s -> emit("state", f().put("worker", id).put("state", s.wireName())));
    b.errorListener(e -> {
      ObjectNode ev = f().put("worker", id).put("message", String.valueOf(e.getMessage()));
      if (e instanceof JobwireException && ((JobwireException) e).code() != null) ev.put("code", ((JobwireException) e).codeName());
      emit("error", ev);
    });
    JobWorker w = b.open();
    WORKERS.put(id, new Entry(w, gate));
    emit("worker_started", f().put("worker", id));
  }

  /** A worker-level middleware that reports before/after (and raises without calling next when told to). */
  static Middleware middleware(String worker, String name, String raise) {
    return (job, next) -> {
      String key = Long.toString(job.key());
      emit("middleware", f().put("worker", worker).put("name", name).put("phase", "before").put("key", key));
      if (raise != null) throw new RuntimeException(raise);
      boolean error = true;
      try {
        Object r = next.proceed();
        error = false;
        return r;
      } finally {
        emit("middleware", f().put("worker", worker).put("name", name).put("phase", "after").put("key", key).put("error", error));
      }
    };
  }

  /** The typed input of `typed: "order"`. */
  public record Order(@JsonProperty(required = true) String orderId, @JsonProperty(required = true) double amount) {}

  /** The typed custom headers of `typed: "order"`. */
  public record OrderHeaders(String channel) {}

  /** The output of `typed: "order"`. */
  public record Receipt(String orderId, double total, String channel) {}

  /** The declarative worker of `typed: "order"`: one bean per started worker. */
  public static final class OrderWorker {
    private final String id;
    private final JsonNode behavior;
    private final Gate gate;

    OrderWorker(String id, JsonNode behavior, Gate gate) {
      this.id = id;
      this.behavior = behavior;
      this.gate = gate;
    }

    @io.jobwire.annotation.JobWorker(type = "order")
    public Object order(Job job, @VariablesAsType Order order, @CustomHeaders OrderHeaders headers) throws Exception {
      Object r = handleJob(id, job, behavior, gate);
      return r != null ? r : new Receipt(order.orderId(), order.amount() * 2, headers.channel() == null ? "" : headers.channel());
    }
  }

  static List<String> strings(JsonNode arr) {
    List<String> l = new ArrayList<>();
    arr.forEach(n -> l.add(n.asText()));
    return l;
  }

  static Object handleJob(String id, Job job, JsonNode behavior, Gate gate) throws Exception {
    long t0 = System.currentTimeMillis();
    ObjectNode start = f().put("worker", id).put("key", Long.toString(job.key())).put("processInstanceKey", Long.toString(job.processInstanceKey())).put("type", job.type()).put("retries", job.retries())
        .put("activation", job.activation()).put("variables", job.variablesJson()).put("deadline", job.deadline());
    emit("job_start", start);
    JsonNode steps = behavior;
    String vars = job.variablesJson();
    if (vars.contains("\"jwBehavior\"")) {
      JsonNode jb = M.readTree(vars).get("jwBehavior");
      if (jb != null && jb.isArray()) steps = jb;
    }
    String outcome = "completed";
    try {
      return runSteps(steps, job, gate);
    } catch (Throwable e) {
      if (job.isCancelled()) outcome = "cancelled";
      else if (e instanceof JobErrorException) outcome = "error";
      else if (e instanceof Crash) outcome = "crashed";
      else outcome = "failed";
      throw e;
    } finally {
      emit("job_end", f().put("worker", id).put("key", Long.toString(job.key())).put("outcome", outcome).put("durationMs", System.currentTimeMillis() - t0));
    }
  }

  static Object runSteps(JsonNode steps, Job job, Gate gate) throws Exception {
    for (JsonNode step : steps) {
      if (step.has("sleep")) {
        Thread.sleep(step.get("sleep").asLong());
      } else if (step.has("block")) {
        gate.await();
      } else if (step.has("extendTimeout")) {
        try {
          job.extendTimeout(Duration.ofMillis(step.get("extendTimeout").asLong())).get();
        } catch (java.util.concurrent.ExecutionException e) {
          log("extendTimeout of job " + job.key() + " failed: " + e.getCause());
        }
      } else if (step.has("complete")) {
        JsonNode v = step.get("complete");
        return v == null || v.isNull() ? "{}" : v.toString();
      } else if (step.has("completeEcho")) {
        return job.variablesJson(); // the raw JSON text: lossless by construction
      } else if (step.has("completePad")) {
        return "{\"out\":\"" + "y".repeat(step.get("completePad").asInt()) + "\"}";
      } else if (step.has("fail")) {
        throw new RuntimeException(step.get("fail").asText());
      } else if (step.has("throwError")) {
        JsonNode e = step.get("throwError");
        JsonNode v = e.get("variables");
        throw new JobErrorException(e.path("code").asText(), e.path("message").asText(""), v == null || v.isNull() ? null : v.toString());
      } else if (step.has("failNonRetryable")) {
        throw new NonRetryableException(step.get("failNonRetryable").asText());
      } else if (step.has("crash")) {
        throw new Crash(step.get("crash").asText());
      } else {
        log("unknown step " + step);
      }
    }
    return null;
  }

  static void stopWorker(String id, long timeoutMs) {
    Entry e = WORKERS.get(id);
    if (e == null) {
      emit("error", f().put("worker", id).put("message", "unknown worker " + id));
      return;
    }
    long t0 = System.currentTimeMillis();
    try {
      e.worker.close(Duration.ofMillis(timeoutMs));
    } catch (RuntimeException x) {
      emit("error", f().put("worker", id).put("message", String.valueOf(x.getMessage())));
    }
    WORKERS.remove(id);
    emit("worker_closed", f().put("worker", id).put("durationMs", System.currentTimeMillis() - t0));
    if (metricReader != null) reportMetrics();
  }

  static void closeAll(long timeoutMs) {
    List<Thread> ts = new ArrayList<>();
    for (String id : new ArrayList<>(WORKERS.keySet())) {
      Thread t = new Thread(() -> stopWorker(id, timeoutMs));
      t.start();
      ts.add(t);
    }
    for (Thread t : ts) {
      try {
        t.join();
      } catch (InterruptedException ignored) {
        Thread.currentThread().interrupt();
      }
    }
    if (client != null) client.close(Duration.ofMillis(timeoutMs));
  }

  // ---- optional OpenTelemetry (the driver's dependency, never the SDK's) ----

  static void installOtel() {
    SpanProcessor proc = new SpanProcessor() {
      @Override
      public void onStart(Context parentContext, ReadWriteSpan span) {}

      @Override
      public boolean isStartRequired() {
        return false;
      }

      @Override
      public void onEnd(ReadableSpan span) {
        SpanData d = span.toSpanData();
        emit("span", f().put("name", d.getName()).put("kind", d.getKind().name()).<ObjectNode>set("attributes", attrs(d.getAttributes()))
            .put("status", d.getStatus().getStatusCode().name()).put("traceId", d.getTraceId()).put("parentSpanId", d.getParentSpanId()));
      }

      @Override
      public boolean isEndRequired() {
        return true;
      }
    };
    metricReader = InMemoryMetricReader.create();
    OpenTelemetrySdk.builder()
        .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(proc).build())
        .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metricReader).build())
        .buildAndRegisterGlobal();
  }

  static ObjectNode attrs(Attributes a) {
    ObjectNode n = f();
    a.forEach((AttributeKey<?> k, Object v) -> {
      if (v instanceof Long || v instanceof Integer) n.put(k.getKey(), ((Number) v).longValue());
      else if (v instanceof Double) n.put(k.getKey(), (Double) v);
      else if (v instanceof Boolean) n.put(k.getKey(), (Boolean) v);
      else n.put(k.getKey(), String.valueOf(v));
    });
    return n;
  }

  static synchronized void reportMetrics() {
    ArrayNode out = M.createArrayNode();
    for (MetricData m : metricReader.collectAllMetrics()) {
      String type;
      switch (m.getType()) {
        case LONG_SUM:
        case DOUBLE_SUM:
          type = "counter";
          break;
        case LONG_GAUGE:
        case DOUBLE_GAUGE:
          type = "gauge";
          break;
        case HISTOGRAM:
          type = "histogram";
          break;
        default:
          type = m.getType().name().toLowerCase();
      }
      ArrayNode points = M.createArrayNode();
      for (PointData p : m.getData().getPoints()) {
        ObjectNode pn = f().set("attributes", attrs(p.getAttributes()));
        if (p instanceof LongPointData) pn.put("value", ((LongPointData) p).getValue());
        else if (p instanceof DoublePointData) pn.put("value", ((DoublePointData) p).getValue());
        else if (p instanceof HistogramPointData) pn.set("value", f().put("count", ((HistogramPointData) p).getCount()).put("sum", ((HistogramPointData) p).getSum()));
        points.add(pn);
      }
      out.add(f().put("name", m.getName()).put("type", type).set("points", points));
    }
    emit("metrics", f().set("metrics", out));
  }
}
