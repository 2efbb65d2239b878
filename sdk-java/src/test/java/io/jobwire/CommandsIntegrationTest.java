package io.jobwire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jobwire.testing.TestEngine;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The five client commands of the full gateway API against the real reference engine
 * ({@code jobwire-engine dev} on 127.0.0.1, a free port, one per test, always stopped).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CommandsIntegrationTest {
  static final String HUGE_ID = "1152921504606846983";
  static final String HUGE = "123456789012345678901234567890";

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

  static <T> T get(CompletableFuture<T> f) throws Exception {
    return f.get(20, TimeUnit.SECONDS);
  }

  static JobwireException failure(CompletableFuture<?> f) {
    ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(20, TimeUnit.SECONDS));
    return assertInstanceOf(JobwireException.class, e.getCause());
  }

  /** Activates the jobs of a type (answers at once), waiting up to 10 s for at least {@code min}. */
  List<Job> jobs(String type, int min) throws Exception {
    List<Job> out = new ArrayList<>();
    long end = System.currentTimeMillis() + 10_000;
    while (true) {
      out.addAll(get(client.activateJobs(type, 10, Duration.ofMinutes(5), "it", Duration.ofMillis(-1))));
      if (out.size() >= min || System.currentTimeMillis() > end) return out;
      Thread.sleep(50);
    }
  }

  static byte[] xml(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static final String BPMN_HEAD = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      + "<bpmn:definitions xmlns:bpmn=\"http://www.omg.org/spec/BPMN/20100524/MODEL\" xmlns:zeebe=\"http://camunda.org/schema/zeebe/1.0\""
      + " id=\"defs\" targetNamespace=\"http://jobwire.dev/sdk-java\">\n";

  static String task(String id, String type) {
    return "    <bpmn:serviceTask id=\"" + id + "\"><bpmn:extensionElements><zeebe:taskDefinition type=\"" + type
        + "\"/></bpmn:extensionElements></bpmn:serviceTask>\n";
  }

  static String flow(String id, String from, String to) {
    return "    <bpmn:sequenceFlow id=\"" + id + "\" sourceRef=\"" + from + "\" targetRef=\"" + to + "\"/>\n";
  }

  /** start, then tasks in sequence (element ids and job types), then end. */
  static byte[] sequence(String processId, String... idAndType) {
    StringBuilder b = new StringBuilder(BPMN_HEAD).append("  <bpmn:process id=\"").append(processId).append("\" isExecutable=\"true\">\n")
        .append("    <bpmn:startEvent id=\"start\"/>\n");
    String prev = "start";
    for (int i = 0; i < idAndType.length; i += 2) {
      b.append(task(idAndType[i], idAndType[i + 1])).append(flow("f" + i, prev, idAndType[i]));
      prev = idAndType[i];
    }
    b.append("    <bpmn:endEvent id=\"end\"/>\n").append(flow("f-end", prev, "end")).append("  </bpmn:process>\n</bpmn:definitions>\n");
    return xml(b.toString());
  }

  /** A decision table: country to zone (first rule DE/AT/CH "home", second everything else "abroad"). */
  static final String DMN = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      + "<definitions xmlns=\"https://www.omg.org/spec/DMN/20191111/MODEL/\" id=\"zones\" name=\"Zones\" namespace=\"http://jobwire.dev/sdk-java\">\n"
      + "  <decision id=\"shipping-zone\" name=\"Shipping zone\">\n"
      + "    <decisionTable id=\"dt\" hitPolicy=\"FIRST\">\n"
      + "      <input id=\"in-country\" label=\"Country\"><inputExpression id=\"ie-country\" typeRef=\"string\"><text>country</text></inputExpression></input>\n"
      + "      <output id=\"out-zone\" name=\"zone\" typeRef=\"string\"/>\n"
      + "      <rule id=\"r-home\"><inputEntry id=\"r-home-in\"><text>\"DE\",\"AT\",\"CH\"</text></inputEntry><outputEntry id=\"r-home-out\"><text>\"home\"</text></outputEntry></rule>\n"
      + "      <rule id=\"r-abroad\"><inputEntry id=\"r-abroad-in\"><text>-</text></inputEntry><outputEntry id=\"r-abroad-out\"><text>\"abroad\"</text></outputEntry></rule>\n"
      + "    </decisionTable>\n"
      + "  </decision>\n"
      + "</definitions>\n";

  @Test
  void evaluateADeployedDecisionByIdAndByKey() throws Exception {
    get(client.deployResource("zones.dmn", xml(DMN)));
    DecisionEvaluation e = get(client.evaluateDecision("shipping-zone", Map.of("country", "DE", "orderId", new BigInteger(HUGE))));
    assertEquals("shipping-zone", e.decisionId());
    assertEquals("Shipping zone", e.decisionName());
    assertEquals(1, e.decisionVersion());
    assertEquals("zones", e.decisionRequirementsId());
    assertTrue(e.decisionKey() > 0 && e.decisionRequirementsKey() > 0, e.toString());
    assertEquals("\"home\"", e.decisionOutput());
    assertEquals("", e.failedDecisionId());
    assertEquals(1, e.evaluatedDecisions().size());
    DecisionEvaluation.EvaluatedDecision d = e.evaluatedDecisions().get(0);
    assertEquals("shipping-zone", d.decisionId());
    assertEquals(e.decisionKey(), d.decisionKey());
    assertEquals("DECISION_TABLE", d.decisionType());
    assertEquals(List.of(new DecisionEvaluation.EvaluatedInput("in-country", "Country", "\"DE\"")), d.evaluatedInputs());
    assertEquals(1, d.matchedRules().size());
    assertEquals("r-home", d.matchedRules().get(0).ruleId());
    assertEquals(1, d.matchedRules().get(0).ruleIndex());
    assertEquals(List.of(new DecisionEvaluation.EvaluatedOutput("out-zone", "zone", "\"home\"")), d.matchedRules().get(0).evaluatedOutputs());

    DecisionEvaluation byKey = get(client.evaluateDecision(e.decisionKey(), "{\"country\":\"FR\"}"));
    assertEquals("\"abroad\"", byKey.decisionOutput());
    assertEquals("r-abroad", byKey.evaluatedDecisions().get(0).matchedRules().get(0).ruleId());
    assertEquals(2, byKey.evaluatedDecisions().get(0).matchedRules().get(0).ruleIndex());

    JobwireException missing = failure(client.evaluateDecision("no-such-decision", null));
    assertInstanceOf(NotFoundException.class, missing, missing.toString());
  }

  @Test
  void deleteADeployedProcess() throws Exception {
    Deployment d = get(client.deployResource("to-delete.bpmn", sequence("to-delete", "a", "del-a")));
    long key = d.processes().get(0).processDefinitionKey();
    ProcessInstance running = get(client.createProcessInstance("to-delete", null));
    // as Zeebe 8.8: a definition with running instances is not deleted
    assertInstanceOf(FailedPreconditionException.class, failure(client.deleteResource(key)));
    get(client.cancelProcessInstance(running.processInstanceKey()));
    get(client.deleteResource(key));
    assertInstanceOf(NotFoundException.class, failure(client.createProcessInstance("to-delete", null)), "the process is gone");
    assertInstanceOf(NotFoundException.class, failure(client.deleteResource(key)), "deleted once");
  }

  @Test
  void broadcastASignalToASignalStartProcess() throws Exception {
    String bpmn = BPMN_HEAD
        + "  <bpmn:signal id=\"sig\" name=\"restock\"/>\n"
        + "  <bpmn:process id=\"on-restock\" isExecutable=\"true\">\n"
        + "    <bpmn:startEvent id=\"start\"><bpmn:signalEventDefinition id=\"sed\" signalRef=\"sig\"/></bpmn:startEvent>\n"
        + task("handle", "restock")
        + flow("f1", "start", "handle")
        + "    <bpmn:endEvent id=\"end\"/>\n"
        + flow("f2", "handle", "end")
        + "  </bpmn:process>\n</bpmn:definitions>\n";
    get(client.deployResource("on-restock.bpmn", xml(bpmn)));
    long key = get(client.broadcastSignal("restock", "{\"sku\":\"A-1\",\"id\":" + HUGE_ID + ",\"huge\":" + HUGE + "}"));
    assertTrue(key > 0, "signal key " + key);
    List<Job> js = jobs("restock", 1);
    assertEquals(1, js.size(), "one instance started");
    Map<String, Object> v = js.get(0).variables();
    assertEquals("A-1", v.get("sku"));
    assertEquals(Long.parseLong(HUGE_ID), v.get("id"));
    assertEquals(new BigInteger(HUGE), v.get("huge"));
    assertEquals("on-restock", js.get(0).bpmnProcessId());
  }

  @Test
  void modifyAnInstanceActivateWithVariablesAndTerminate() throws Exception {
    get(client.deployResource("modify-me.bpmn", sequence("modify-me", "a", "mod-a", "b", "mod-b")));
    ProcessInstance pi = get(client.createProcessInstance("modify-me", Map.of("start", 1)));
    List<Job> as = jobs("mod-a", 1);
    assertEquals(1, as.size());
    Job a = as.get(0);
    get(client.modifyProcessInstance(pi.processInstanceKey())
        .activate("b").withVariables("{\"id\":" + HUGE_ID + "}").withVariables(Map.of("local", "yes"), "b")
        .terminate(a.elementInstanceKey())
        .send());
    List<Job> bs = jobs("mod-b", 1);
    assertEquals(1, bs.size(), "b activated once");
    Job b = bs.get(0);
    assertEquals(pi.processInstanceKey(), b.processInstanceKey());
    assertEquals("b", b.elementId());
    Map<String, Object> v = b.variables();
    assertEquals(Long.parseLong(HUGE_ID), v.get("id"), v.toString());
    assertEquals("yes", v.get("local"), v.toString());
    assertEquals(1, v.get("start"), v.toString());
    // a was terminated: its job is gone
    assertInstanceOf(NotFoundException.class, failure(client.completeJob(a.key(), null)));
    assertEquals(List.of(), jobs("mod-a", 0));
    // an unknown element is the engine's typed refusal
    assertInstanceOf(InvalidArgumentException.class, failure(client.modifyProcessInstance(pi.processInstanceKey()).activate("no-such-element").send()));
    assertInstanceOf(NotFoundException.class, failure(client.modifyProcessInstance(pi.processInstanceKey() + 1_000_000).activate("b").send()));
  }

  @Test
  void createAnInstanceThatStartsBeforeAnElement() throws Exception {
    get(client.deployResource("start-at.bpmn", sequence("start-at", "a", "start-a", "b", "start-b")));
    ProcessInstance pi = get(client.createProcessInstance("start-at", Map.of("s", 1), List.of("b")));
    List<Job> bs = jobs("start-b", 1);
    assertEquals(1, bs.size());
    assertEquals(pi.processInstanceKey(), bs.get(0).processInstanceKey());
    assertEquals(1, bs.get(0).variables().get("s"));
    assertEquals(List.of(), jobs("start-a", 0), "a never ran");
    assertInstanceOf(InvalidArgumentException.class, failure(client.createProcessInstance("start-at", null, List.of("no-such-element"))));
  }

  @Test
  void migrateAnInstanceFromV1ToV2() throws Exception {
    Deployment v1 = get(client.deployResource("migrate-me.bpmn", sequence("migrate-me", "a", "mig")));
    ProcessInstance pi = get(client.createProcessInstance("migrate-me", Map.of("n", 1)));
    Deployment v2 = get(client.deployResource("migrate-me.bpmn", sequence("migrate-me", "a2", "mig")));
    long v2Key = v2.processes().get(0).processDefinitionKey();
    assertEquals(2, v2.processes().get(0).version());
    assertEquals(pi.processDefinitionKey(), v1.processes().get(0).processDefinitionKey());
    get(client.migrateProcessInstance(pi.processInstanceKey()).targetProcessDefinitionKey(v2Key).map("a", "a2").send());
    List<Job> js = jobs("mig", 1);
    assertEquals(1, js.size());
    Job j = js.get(0);
    assertEquals(pi.processInstanceKey(), j.processInstanceKey());
    assertEquals("a2", j.elementId());
    assertEquals(v2Key, j.processDefinitionKey());
    assertEquals(2, j.processDefinitionVersion());
    get(j.complete(Map.of("migrated", true)));
    // an unknown target is the engine's typed refusal
    ProcessInstance other = get(client.createProcessInstance("migrate-me", null));
    assertInstanceOf(NotFoundException.class,
        failure(client.migrateProcessInstance(other.processInstanceKey()).targetProcessDefinitionKey(v2Key + 1_000_000).map("a2", "a2").send()));
  }
}
