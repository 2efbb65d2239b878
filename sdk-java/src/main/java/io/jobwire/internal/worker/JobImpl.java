package io.jobwire.internal.worker;

import com.fasterxml.jackson.databind.JsonNode;
import io.jobwire.Job;
import io.jobwire.internal.Json;
import io.jobwire.internal.gateway.GatewayOuterClass.ActivatedJob;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** The {@link Job} given to handlers; outcome methods go to its {@link OutcomeSender} (the worker's control thread). */
final class JobImpl implements Job {
  private final ActivatedJob raw;
  private final String activation;
  private final OutcomeSender outcomes;
  volatile long deadline;
  volatile boolean cancelled;
  private Map<String, String> headers;

  JobImpl(ActivatedJob raw, String activation, OutcomeSender outcomes) {
    this.raw = raw;
    this.activation = activation;
    this.outcomes = outcomes;
    this.deadline = raw.getDeadline();
  }

  ActivatedJob raw() {
    return raw;
  }

  @Override
  public long key() {
    return raw.getKey();
  }

  @Override
  public String type() {
    return raw.getType();
  }

  @Override
  public int retries() {
    return raw.getRetries();
  }

  @Override
  public long deadline() {
    return deadline;
  }

  @Override
  public long processInstanceKey() {
    return raw.getProcessInstanceKey();
  }

  @Override
  public String bpmnProcessId() {
    return raw.getBpmnProcessId();
  }

  @Override
  public int processDefinitionVersion() {
    return raw.getProcessDefinitionVersion();
  }

  @Override
  public long processDefinitionKey() {
    return raw.getProcessDefinitionKey();
  }

  @Override
  public String elementId() {
    return raw.getElementId();
  }

  @Override
  public long elementInstanceKey() {
    return raw.getElementInstanceKey();
  }

  @Override
  public synchronized Map<String, String> customHeaders() {
    if (headers == null) {
      Map<String, String> m = new LinkedHashMap<>();
      String s = raw.getCustomHeaders();
      if (s != null && !s.isEmpty()) {
        try {
          JsonNode n = Json.MAPPER.readTree(s);
          if (n != null && n.isObject()) n.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().isTextual() ? e.getValue().asText() : e.getValue().toString()));
        } catch (Exception ignored) {
          // headers are informational: tolerate garbage
        }
      }
      headers = Collections.unmodifiableMap(m);
    }
    return headers;
  }

  @Override
  public String worker() {
    return raw.getWorker();
  }

  @Override
  public String tenantId() {
    return raw.getTenantId();
  }

  @Override
  public String activation() {
    return activation;
  }

  @Override
  public String variablesJson() {
    String v = raw.getVariables();
    return v == null || v.isEmpty() ? "{}" : v;
  }

  @Override
  public Map<String, Object> variables() {
    return Json.parseObject(variablesJson());
  }

  @Override
  public <T> T decodeVariables(Class<T> type) {
    return Json.parseAs(variablesJson(), type);
  }

  @Override
  public boolean isCancelled() {
    return cancelled;
  }

  @Override
  public CompletableFuture<Void> complete(Object variables) {
    String json = Json.variablesToJson(variables, "complete of job " + key());
    return outcomes.send(OutcomeSender.Kind.COMPLETE, json, null, 0, null, null);
  }

  @Override
  public CompletableFuture<Void> fail(String message) {
    return outcomes.send(OutcomeSender.Kind.FAIL, "", message, Math.max(0, retries() - 1), null, null);
  }

  @Override
  public CompletableFuture<Void> fail(String message, int retries, Duration retryBackOff, Object variables) {
    if (retries < 0) throw new IllegalArgumentException("retries must be >= 0");
    String json = Json.variablesToJson(variables, "fail of job " + key());
    return outcomes.send(OutcomeSender.Kind.FAIL, json, message, retries, retryBackOff, null);
  }

  @Override
  public CompletableFuture<Void> throwError(String code, String message, Object variables) {
    if (code == null || code.isEmpty()) throw new IllegalArgumentException("throwError needs an error code");
    String json = Json.variablesToJson(variables, "throwError of job " + key());
    return outcomes.send(OutcomeSender.Kind.ERROR, json, message, 0, null, code);
  }

  @Override
  public CompletableFuture<Void> extendTimeout(Duration timeout) {
    if (timeout == null || timeout.isNegative() || timeout.isZero()) throw new IllegalArgumentException("timeout must be positive");
    return outcomes.extendTimeout(timeout.toMillis());
  }

  /** The W3C traceparent from the variables or custom headers, if any. */
  String traceparent() {
    String v = raw.getVariables();
    if (v != null && v.contains("\"traceparent\"")) {
      try {
        JsonNode n = Json.MAPPER.readTree(v).get("traceparent");
        if (n != null && n.isTextual()) return n.asText();
      } catch (Exception ignored) {
        // no parent
      }
    }
    // the headers are parsed only when they may name it (not on every job: this runs before each handler)
    String h = raw.getCustomHeaders();
    if (h == null || (h.indexOf("traceparent") < 0 && h.indexOf('\\') < 0)) return null;
    return customHeaders().get("traceparent");
  }
}
