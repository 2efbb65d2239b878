package io.jobwire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jobwire.annotation.CustomHeaders;

import io.jobwire.annotation.VariablesAsType;
import io.jobwire.testing.TestEngine;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Typed handlers end to end against the real reference engine: derived fetchVariables, invalid input, declarative workers. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TypedWorkerIntegrationTest {
  record Order(@JsonProperty(required = true) String orderId, double amount) {}

  record Receipt(String orderId, double total, String channel) {}

  static final String TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  record OrderHeaders(String channel) {}

  TestEngine engine;
  JobwireClient client;

  @BeforeEach
  void start() throws Exception {
    engine = TestEngine.start();
    client = JobwireClient.builder().environment(Map.of()).address(engine.address()).build();
  }

  @AfterEach
  void stop() {
    if (client != null) client.close(Duration.ofSeconds(5));
    if (engine != null) engine.close();
  }

  String deploy(String jobType) throws Exception {
    return client.deployResource("one-task-" + jobType + ".bpmn", TestEngine.bpmn(jobType)).get().processes().get(0).bpmnProcessId();
  }

  /** The engine's view of a job of an instance (live view snapshot), once {@code until} holds. */
  JsonNode jobOf(long instanceKey, java.util.function.Predicate<JsonNode> until) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    URI uri = URI.create(engine.liveView() + "/api/snapshot");
    long end = System.currentTimeMillis() + 20_000;
    JsonNode last = null;
    while (System.currentTimeMillis() < end) {
      String body = http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()).body();
      for (JsonNode j : new ObjectMapper().readTree(body).path("jobs")) {
        if (j.path("instance").asText().equals(Long.toString(instanceKey))) {
          last = j;
          if (until.test(j)) return j;
        }
      }
      Thread.sleep(100);
    }
    throw new AssertionError("job of instance " + instanceKey + " never matched; last seen: " + last);
  }

  @Test
  void typedWorkerFetchesDerivedVariablesAndFailsInvalidInputWithoutCallingTheHandler() throws Exception {
    String pid = deploy("typed");
    List<String> seenVariables = new CopyOnWriteArrayList<>();
    List<Order> handled = new CopyOnWriteArrayList<>();
    JobWorker w = client.newWorker().jobType("typed").handler(Order.class, (job, order) -> {
      seenVariables.add(job.variablesJson());
      handled.add(order);
      return new Receipt(order.orderId(), order.amount() * 2, null);
    }).open();

    ProcessInstance ok = client.createProcessInstanceWithResult(pid, Map.of("orderId", "o-1", "amount", 21, "extra", "not fetched", "traceparent", TP),
        Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS);
    JsonNode out = new ObjectMapper().readTree(ok.variables());
    assertEquals(42.0, out.path("total").asDouble(), ok.variables());
    assertEquals(1, seenVariables.size());
    JsonNode fetched = new ObjectMapper().readTree(seenVariables.get(0));
    assertEquals(List.of("amount", "orderId", "traceparent"), sortedNames(fetched), "only the type's properties and traceparent are fetched: " + seenVariables.get(0));

    ProcessInstance bad = client.createProcessInstance(pid, Map.of("orderId", "o-2", "amount", "lots")).get(10, TimeUnit.SECONDS);
    JsonNode job = jobOf(bad.processInstanceKey(), j -> j.path("fails").asInt() >= 1);
    String msg = job.path("errorMessage").asText();
    assertTrue(msg.contains("invalid input") && msg.contains("amount"), msg);
    assertEquals(2, job.path("retries").asInt(), "an ordinary failure: retries - 1 (" + job + ")");
    assertTrue(job.path("retryAt").asLong() > 0, "the default policy's back-off: " + job);
    assertEquals(1, handled.size(), "the handler never saw the invalid input: " + handled);
    w.close(Duration.ofSeconds(5));
  }

  static List<String> sortedNames(JsonNode n) {
    List<String> names = new java.util.ArrayList<>();
    n.fieldNames().forEachRemaining(names::add);
    java.util.Collections.sort(names);
    return names;
  }

  /** A declarative worker: the method's parameters decide the variables fetched and receive the typed headers. */
  public static class Orders {
    final List<String> fetched = new CopyOnWriteArrayList<>();

    @io.jobwire.annotation.JobWorker(type = "replaced-at-run-time", maxJobsActive = 4)
    public Receipt charge(Job job, @VariablesAsType Order order, @CustomHeaders OrderHeaders headers) {
      fetched.add(job.variablesJson());
      return new Receipt(order.orderId(), order.amount() * 2, headers.channel());
    }
  }

  @Test
  void declarativeWorkerOpenedWithARunTimeJobType() throws Exception {
    String pid = deploy("declared");
    Orders bean = new Orders();
    List<WorkerDefinition> defs = WorkerScanner.scan(bean);
    assertEquals(1, defs.size());
    assertEquals("replaced-at-run-time", defs.get(0).jobType());
    JobWorker w = defs.get(0).withJobType("declared").builder(client).open();
    ProcessInstance pi = client.createProcessInstanceWithResult(pid, Map.of("orderId", "o-3", "amount", 1.5, "other", true), Duration.ofSeconds(20))
        .get(30, TimeUnit.SECONDS);
    JsonNode out = new ObjectMapper().readTree(pi.variables());
    assertEquals(3.0, out.path("total").asDouble(), pi.variables());
    assertEquals("o-3", out.path("orderId").asText());
    assertEquals(List.of("amount", "orderId"), sortedNames(new ObjectMapper().readTree(bean.fetched.get(0))));
    w.close(Duration.ofSeconds(5));
  }
}
