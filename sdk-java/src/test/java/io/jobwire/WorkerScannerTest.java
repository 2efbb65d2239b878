package io.jobwire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.jobwire.annotation.CustomHeaders;
import io.jobwire.annotation.JobWorker;
import io.jobwire.annotation.Variable;
import io.jobwire.annotation.VariablesAsType;
import io.jobwire.internal.gateway.GatewayOuterClass.ActivatedJob;
import io.jobwire.internal.worker.LocalRun;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkerScannerTest {
  record Order(@JsonProperty(required = true) String orderId, double amount) {}

  public static class Workers {
    int calls;

    @JobWorker(type = "charge", jobTimeout = "PT30S", retryBackOff = "250")
    public Map<String, Object> charge(@VariablesAsType Order order, @Variable("note") String note, @CustomHeaders Map<String, String> headers) {
      calls++;
      return Map.of("total", order.amount() * 2, "note", String.valueOf(note), "channel", headers.getOrDefault("channel", ""));
    }

    @JobWorker
    public void audit(Job job) {
      calls++;
    }

    @JobWorker(type = "count", fetchVariables = {"a", "b"})
    public void count(@Variable("n") int n) {
      calls++;
    }

    @JobWorker(type = "off", enabled = false)
    public void off() {}

    public void notAWorker() {}
  }

  static LocalRun.Recorded run(WorkerDefinition d, String vars, String headers) throws Exception {
    ActivatedJob raw = ActivatedJob.newBuilder().setKey(5).setType(d.jobType()).setRetries(3).setVariables(vars).setCustomHeaders(headers)
        .setDeadline(System.currentTimeMillis() + 60_000).build();
    // the definition's handler, as its builder configures it
    java.lang.reflect.Field f = WorkerDefinition.class.getDeclaredField("handler");
    f.setAccessible(true);
    return LocalRun.run(raw, (JobHandler) f.get(d), new LocalRun.Options(Duration.ofMinutes(1), true, false, Duration.ZERO, null,
        Duration.ofSeconds(10)), RetryPolicy.exponentialBackoff().jitter(0).build());
  }

  @Test
  void scansAnnotatedPublicMethodsSortedByNameLeavingDisabledOnesOut() {
    List<WorkerDefinition> defs = WorkerScanner.scan(new Workers());
    assertEquals(List.of("audit", "charge", "count"), defs.stream().map(WorkerDefinition::jobType).toList());
    assertEquals("other", defs.get(1).withJobType("other").jobType());
    assertEquals("charge", defs.get(1).jobType(), "withJobType returns a copy");
    assertThrows(IllegalArgumentException.class, () -> defs.get(0).withJobType(" "));
  }

  @Test
  void parametersAreFilledFromTheJob() throws Exception {
    Workers w = new Workers();
    WorkerDefinition charge = WorkerScanner.scan(w).get(1);
    LocalRun.Recorded r = run(charge, "{\"orderId\":\"o\",\"amount\":2,\"note\":\"hi\"}", "{\"channel\":\"web\"}");
    assertEquals("completed", r.outcome());
    assertEquals(Map.of("total", 4, "note", "hi", "channel", "web"), io.jobwire.internal.Json.parseObject(r.variables()));
    assertEquals(1, w.calls);
  }

  @Test
  void everyInvalidParameterIsNamedAndTheMethodIsNotCalled() throws Exception {
    Workers w = new Workers();
    WorkerDefinition charge = WorkerScanner.scan(w).get(1);
    LocalRun.Recorded r = run(charge, "{\"amount\":\"x\",\"note\":5}", "{}");
    assertEquals("failed", r.outcome());
    assertEquals(2, r.retries());
    assertEquals(1000, r.backoffMs());
    assertEquals("jobwire: invalid input: amount: expected number, got string; note: expected string, got number", r.message());
    assertEquals(0, w.calls);
    WorkerDefinition count = WorkerScanner.scan(w).get(2);
    assertEquals("jobwire: invalid input: n: missing", run(count, "{}", "{}").message());
    assertEquals(0, w.calls);
  }

  record Traced(String traceparent, String orderId) {}

  static final String TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  @Test
  void aDerivedListAlsoNamesTraceparentAnExplicitListStaysAsWritten() throws Exception {
    try (JobwireClient c = JobwireClient.builder().environment(Map.of()).address("127.0.0.1:1").build()) {
      List<WorkerDefinition> defs = WorkerScanner.scan(new Workers());
      assertEquals(List.of("orderId", "amount", "note", "traceparent"), defs.get(1).builder(c).fetchVariablesToSend());
      assertEquals(List.of("a", "b"), defs.get(2).builder(c).fetchVariablesToSend(), "the annotation's list");
      assertEquals(List.of(), defs.get(0).builder(c).fetchVariablesToSend(), "no typed parameter: all variables");
      assertEquals(List.of("orderId", "amount", "traceparent"), c.newWorker().handler(Order.class, (job, o) -> null).fetchVariablesToSend());
      assertEquals(List.of("orderId"), c.newWorker().handler(Order.class, (job, o) -> null).fetchVariables("orderId").fetchVariablesToSend());
      assertEquals(List.of("traceparent", "orderId"), c.newWorker().handler(Traced.class, (job, o) -> null).fetchVariablesToSend(), "named once");
    }
    // the input type ignores the extra variable (unknown properties are not an error)
    Workers w = new Workers();
    LocalRun.Recorded r = run(WorkerScanner.scan(w).get(1), "{\"orderId\":\"o\",\"amount\":2,\"traceparent\":\"" + TP + "\"}", "{}");
    assertEquals("completed", r.outcome(), r.message());
    assertEquals(1, w.calls);
  }

  public static class Unfillable {
    @JobWorker
    public void bad(String what) {}
  }

  public static class NotPublic {
    @JobWorker
    void hidden() {}
  }

  public static class BadDuration {
    @JobWorker(jobTimeout = "five minutes")
    public void slow() {}
  }

  @Test
  void methodsThatCannotBeWorkersFailAtScan() {
    assertTrue(assertThrows(IllegalArgumentException.class, () -> WorkerScanner.scan(new Unfillable())).getMessage().contains("@Variable"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> WorkerScanner.scan(new NotPublic())).getMessage().contains("must be public"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> WorkerScanner.scan(new BadDuration())).getMessage().contains("ISO-8601"));
    assertEquals(Duration.ofSeconds(30), WorkerScanner.duration(null, "jobTimeout", "PT30S"));
    assertEquals(Duration.ofMillis(1500), WorkerScanner.duration(null, "jobTimeout", "1500"));
  }
}
