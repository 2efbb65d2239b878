package io.jobwire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.jobwire.internal.gateway.GatewayGrpc;
import io.jobwire.internal.gateway.GatewayOuterClass.BroadcastSignalRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.BroadcastSignalResponse;
import io.jobwire.internal.gateway.GatewayOuterClass.DeleteResourceRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.DeleteResourceResponse;
import io.jobwire.internal.gateway.GatewayOuterClass.EvaluateDecisionRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.EvaluateDecisionResponse;
import io.jobwire.internal.gateway.GatewayOuterClass.EvaluatedDecision;
import io.jobwire.internal.gateway.GatewayOuterClass.EvaluatedDecisionInput;
import io.jobwire.internal.gateway.GatewayOuterClass.EvaluatedDecisionOutput;
import io.jobwire.internal.gateway.GatewayOuterClass.MatchedDecisionRule;
import io.jobwire.internal.gateway.GatewayOuterClass.MigrateProcessInstanceRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.MigrateProcessInstanceResponse;
import io.jobwire.internal.gateway.GatewayOuterClass.ModifyProcessInstanceRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.ModifyProcessInstanceResponse;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The five client commands of the full gateway API against an in-process fake gateway on
 * 127.0.0.1 (a free port): the request built from the typed input, the result mapped, errors
 * typed, and the resend rule (docs/worker-semantics.md, "Client commands: which are resent").
 * Their behaviour against the real engine is in {@link CommandsIntegrationTest}.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ClientCommandsTest {
  Server server;
  JobwireClient client;
  final Gw gw = new Gw();

  @AfterEach
  void stop() throws Exception {
    if (client != null) client.close(Duration.ofSeconds(2));
    if (server != null) server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  JobwireClient start(Duration commandTimeout) throws Exception {
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(gw).build().start();
    JobwireClient.Builder b = JobwireClient.builder().environment(Map.of()).address("127.0.0.1:" + server.getPort());
    if (commandTimeout != null) b.commandTimeout(commandTimeout);
    client = b.build();
    return client;
  }

  JobwireClient start() throws Exception {
    return start(null);
  }

  /** Records every request with its arrival time; answers the queued errors first, then OK. */
  static final class Gw extends GatewayGrpc.GatewayImplBase {
    final List<Object> requests = new CopyOnWriteArrayList<>();
    final List<Long> times = new CopyOnWriteArrayList<>();
    final ConcurrentLinkedDeque<Status> errors = new ConcurrentLinkedDeque<>();
    volatile Status always;
    volatile long delayMs;
    final ConcurrentLinkedDeque<Long> delays = new ConcurrentLinkedDeque<>();
    volatile EvaluateDecisionResponse evaluation = EvaluateDecisionResponse.getDefaultInstance();

    <T> void answer(Object req, T ok, StreamObserver<T> obs) {
      requests.add(req);
      times.add(System.nanoTime());
      Long d = delays.poll();
      long wait = d != null ? d : delayMs;
      if (wait > 0) {
        try {
          Thread.sleep(wait);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      Status err = always != null ? always : errors.poll();
      if (err != null) {
        obs.onError(err.asRuntimeException());
        return;
      }
      obs.onNext(ok);
      obs.onCompleted();
    }

    @Override
    public void evaluateDecision(EvaluateDecisionRequest req, StreamObserver<EvaluateDecisionResponse> obs) {
      answer(req, evaluation, obs);
    }

    @Override
    public void modifyProcessInstance(ModifyProcessInstanceRequest req, StreamObserver<ModifyProcessInstanceResponse> obs) {
      answer(req, ModifyProcessInstanceResponse.getDefaultInstance(), obs);
    }

    @Override
    public void migrateProcessInstance(MigrateProcessInstanceRequest req, StreamObserver<MigrateProcessInstanceResponse> obs) {
      answer(req, MigrateProcessInstanceResponse.getDefaultInstance(), obs);
    }

    @Override
    public void deleteResource(DeleteResourceRequest req, StreamObserver<DeleteResourceResponse> obs) {
      answer(req, DeleteResourceResponse.getDefaultInstance(), obs);
    }

    @Override
    public void broadcastSignal(BroadcastSignalRequest req, StreamObserver<BroadcastSignalResponse> obs) {
      answer(req, BroadcastSignalResponse.newBuilder().setKey(2251799813685300L).build(), obs);
    }
  }

  /** One call of each command, as a user makes it; whether it is resent after UNAVAILABLE. */
  enum Cmd {
    EVALUATE_DECISION(c -> c.evaluateDecision("d", Map.of()), true),
    MODIFY(c -> c.modifyProcessInstance(1).activate("a").send(), false),
    MIGRATE(c -> c.migrateProcessInstance(1).targetProcessDefinitionKey(2).map("a", "b").send(), false),
    DELETE_RESOURCE(c -> c.deleteResource(1), false),
    BROADCAST_SIGNAL(c -> c.broadcastSignal("s", null), false);

    final Function<JobwireClient, CompletableFuture<?>> call;
    final boolean resentAfterUnavailable;

    Cmd(Function<JobwireClient, CompletableFuture<?>> call, boolean resentAfterUnavailable) {
      this.call = call;
      this.resentAfterUnavailable = resentAfterUnavailable;
    }
  }

  static JobwireException failure(CompletableFuture<?> f) {
    ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(20, TimeUnit.SECONDS));
    return assertInstanceOf(JobwireException.class, e.getCause());
  }

  // ------------------------------------------------------------------ requests and results

  @Test
  void evaluateDecisionByIdSendsIdVariablesAndTenantAndMapsEveryField() throws Exception {
    gw.evaluation = EvaluateDecisionResponse.newBuilder().setDecisionKey(2251799813685249L).setDecisionId("cost").setDecisionName("Cost")
        .setDecisionVersion(3).setDecisionRequirementsId("drg").setDecisionRequirementsKey(2251799813685248L)
        .setDecisionOutput("{\"price\":9007199254740993}").setTenantId("t1").setDecisionInstanceKey(7).setDecisionEvaluationKey(8)
        .addEvaluatedDecisions(EvaluatedDecision.newBuilder().setDecisionKey(11).setDecisionId("zone").setDecisionName("Zone").setDecisionVersion(3)
            .setDecisionType("DECISION_TABLE").setDecisionOutput("\"home\"").setTenantId("t1").setDecisionEvaluationInstanceKey("7-1")
            .addEvaluatedInputs(EvaluatedDecisionInput.newBuilder().setInputId("in1").setInputName("Country").setInputValue("\"DE\""))
            .addMatchedRules(MatchedDecisionRule.newBuilder().setRuleId("r1").setRuleIndex(1)
                .addEvaluatedOutputs(EvaluatedDecisionOutput.newBuilder().setOutputId("o1").setOutputName("zone").setOutputValue("\"home\""))))
        .addEvaluatedDecisions(EvaluatedDecision.newBuilder().setDecisionKey(2251799813685249L).setDecisionId("cost").setDecisionType("LITERAL_EXPRESSION"))
        .build();
    DecisionEvaluation e = start().evaluateDecision("cost", "{\"id\":1152921504606846983,\"big\":123456789012345678901234567890}", "t1")
        .get(10, TimeUnit.SECONDS);
    EvaluateDecisionRequest req = (EvaluateDecisionRequest) gw.requests.get(0);
    assertEquals("cost", req.getDecisionId());
    assertEquals(0, req.getDecisionKey());
    assertEquals("t1", req.getTenantId());
    assertEquals("{\"id\":1152921504606846983,\"big\":123456789012345678901234567890}", req.getVariables(), "variables are sent as given, exactly");

    assertEquals(2251799813685249L, e.decisionKey());
    assertEquals("cost", e.decisionId());
    assertEquals("Cost", e.decisionName());
    assertEquals(3, e.decisionVersion());
    assertEquals("drg", e.decisionRequirementsId());
    assertEquals(2251799813685248L, e.decisionRequirementsKey());
    assertEquals("{\"price\":9007199254740993}", e.decisionOutput(), "the output is the raw JSON text");
    assertEquals("t1", e.tenantId());
    assertEquals(7, e.decisionInstanceKey());
    assertEquals(8, e.decisionEvaluationKey());
    assertEquals("", e.failedDecisionId());
    assertEquals("", e.failureMessage());
    assertEquals(2, e.evaluatedDecisions().size());
    DecisionEvaluation.EvaluatedDecision zone = e.evaluatedDecisions().get(0);
    assertEquals(new DecisionEvaluation.EvaluatedDecision(11, "zone", "Zone", 3, "DECISION_TABLE", "\"home\"",
        List.of(new DecisionEvaluation.MatchedRule("r1", 1, List.of(new DecisionEvaluation.EvaluatedOutput("o1", "zone", "\"home\"")))),
        List.of(new DecisionEvaluation.EvaluatedInput("in1", "Country", "\"DE\"")), "t1", "7-1"), zone);
    assertEquals("cost", e.evaluatedDecisions().get(1).decisionId());
    assertEquals(List.of(), e.evaluatedDecisions().get(1).matchedRules());
    assertThrows(UnsupportedOperationException.class, () -> e.evaluatedDecisions().clear(), "immutable");
  }

  @Test
  void evaluateDecisionByKeySendsTheKeyAndMapVariablesLosslessly() throws Exception {
    gw.evaluation = EvaluateDecisionResponse.newBuilder().setDecisionKey(42).setFailedDecisionId("cost").setFailureMessage("no rule matched").build();
    Map<String, Object> vars = new java.util.LinkedHashMap<>();
    vars.put("id", 1152921504606846983L);
    vars.put("big", new java.math.BigInteger("123456789012345678901234567890"));
    DecisionEvaluation e = start().evaluateDecision(42L, vars).get(10, TimeUnit.SECONDS);
    EvaluateDecisionRequest req = (EvaluateDecisionRequest) gw.requests.get(0);
    assertEquals(42, req.getDecisionKey());
    assertEquals("", req.getDecisionId());
    assertEquals("", req.getTenantId());
    assertEquals("{\"id\":1152921504606846983,\"big\":123456789012345678901234567890}", req.getVariables());
    assertEquals("cost", e.failedDecisionId(), "a failed evaluation is a result, not an exception");
    assertEquals("no rule matched", e.failureMessage());
  }

  @Test
  void variablesThatAreNotAnObjectAreRefusedBeforeAnythingIsSent() throws Exception {
    start();
    assertThrows(InvalidVariablesException.class, () -> client.evaluateDecision("d", "[1,2]"));
    assertThrows(InvalidVariablesException.class, () -> client.broadcastSignal("s", List.of(1)));
    assertThrows(InvalidVariablesException.class, () -> client.modifyProcessInstance(1).activate("a").withVariables("42"));
    assertEquals(List.of(), gw.requests);
  }

  @Test
  void modifyBuildsActivateVariableAndTerminateInstructionsInOrder() throws Exception {
    start().modifyProcessInstance(2251799813685251L)
        .activate("review").withVariables(Map.of("n", 1152921504606846983L)).withVariables("{\"x\":true}", "review")
        .terminate(2251799813685260L)
        .activate("audit", 2251799813685255L)
        .terminate(2251799813685261L)
        .send().get(10, TimeUnit.SECONDS);
    assertEquals(1, gw.requests.size());
    ModifyProcessInstanceRequest req = (ModifyProcessInstanceRequest) gw.requests.get(0);
    assertEquals(2251799813685251L, req.getProcessInstanceKey());
    assertEquals(2, req.getActivateInstructionsCount());
    var review = req.getActivateInstructions(0);
    assertEquals("review", review.getElementId());
    assertEquals(0, review.getAncestorElementInstanceKey());
    assertEquals(2, review.getVariableInstructionsCount());
    assertEquals("{\"n\":1152921504606846983}", review.getVariableInstructions(0).getVariables());
    assertEquals("", review.getVariableInstructions(0).getScopeId());
    assertEquals("{\"x\":true}", review.getVariableInstructions(1).getVariables());
    assertEquals("review", review.getVariableInstructions(1).getScopeId());
    var audit = req.getActivateInstructions(1);
    assertEquals("audit", audit.getElementId());
    assertEquals(2251799813685255L, audit.getAncestorElementInstanceKey());
    assertEquals(0, audit.getVariableInstructionsCount());
    assertEquals(List.of(2251799813685260L, 2251799813685261L),
        req.getTerminateInstructionsList().stream().map(t -> t.getElementInstanceKey()).toList());
  }

  @Test
  void modifyVariablesNeedAnActivateBefore() throws Exception {
    ModifyProcessInstanceCommand c = start().modifyProcessInstance(1).terminate(2);
    assertThrows(IllegalStateException.class, () -> c.withVariables(Map.of("a", 1)));
  }

  @Test
  void migrateSendsTheTargetAndTheMappingsSourceToTarget() throws Exception {
    start().migrateProcessInstance(2251799813685251L).targetProcessDefinitionKey(2251799813685270L)
        .map("taskA", "taskA2").map("timer", "timer2").send().get(10, TimeUnit.SECONDS);
    MigrateProcessInstanceRequest req = (MigrateProcessInstanceRequest) gw.requests.get(0);
    assertEquals(2251799813685251L, req.getProcessInstanceKey());
    assertEquals(2251799813685270L, req.getMigrationPlan().getTargetProcessDefinitionKey());
    assertEquals(2, req.getMigrationPlan().getMappingInstructionsCount());
    assertEquals("taskA", req.getMigrationPlan().getMappingInstructions(0).getSourceElementId());
    assertEquals("taskA2", req.getMigrationPlan().getMappingInstructions(0).getTargetElementId());
    assertEquals("timer", req.getMigrationPlan().getMappingInstructions(1).getSourceElementId());
    assertEquals("timer2", req.getMigrationPlan().getMappingInstructions(1).getTargetElementId());
  }

  @Test
  void migrateWithoutATargetIsRefusedBeforeAnythingIsSent() throws Exception {
    MigrateProcessInstanceCommand c = start().migrateProcessInstance(1).map("a", "b");
    assertThrows(IllegalStateException.class, c::send);
    assertEquals(List.of(), gw.requests);
  }

  @Test
  void deleteResourceSendsTheKey() throws Exception {
    start().deleteResource(2251799813685249L).get(10, TimeUnit.SECONDS);
    assertEquals(2251799813685249L, ((DeleteResourceRequest) gw.requests.get(0)).getResourceKey());
  }

  @Test
  void broadcastSignalSendsNameVariablesAndTenantAndReturnsTheKey() throws Exception {
    long key = start().broadcastSignal("price-changed", Map.of("sku", "A-1", "n", 1152921504606846983L), "t1").get(10, TimeUnit.SECONDS);
    assertEquals(2251799813685300L, key);
    BroadcastSignalRequest req = (BroadcastSignalRequest) gw.requests.get(0);
    assertEquals("price-changed", req.getSignalName());
    assertEquals("t1", req.getTenantId());
    assertEquals(Map.of("sku", "A-1", "n", 1152921504606846983L), io.jobwire.internal.Json.parseObject(req.getVariables()));
    client.broadcastSignal("s2", null).get(10, TimeUnit.SECONDS);
    BroadcastSignalRequest req2 = (BroadcastSignalRequest) gw.requests.get(1);
    assertEquals("", req2.getVariables());
    assertEquals("", req2.getTenantId());
  }

  // ------------------------------------------------------------------ errors and the resend rule

  @ParameterizedTest
  @EnumSource(Cmd.class)
  void anErrorThatIsNeverResentIsItsTypedExceptionAtOnce(Cmd cmd) throws Exception {
    start();
    Object[][] cases = {
        {Status.NOT_FOUND, NotFoundException.class},
        {Status.INVALID_ARGUMENT, InvalidArgumentException.class},
        {Status.FAILED_PRECONDITION, FailedPreconditionException.class},
        {Status.DEADLINE_EXCEEDED, DeadlineExceededException.class},
        {Status.CANCELLED, RequestCancelledException.class},
        {Status.ABORTED, InternalException.class},
        {Status.PERMISSION_DENIED, PermissionDeniedException.class},
        {Status.UNIMPLEMENTED, UnimplementedException.class},
        {Status.INTERNAL, InternalException.class},
    };
    for (Object[] c : cases) {
      gw.requests.clear();
      Status s = ((Status) c[0]).withDescription("from the fake");
      gw.errors.add(s);
      JobwireException e = failure(cmd.call.apply(client));
      assertInstanceOf((Class<?>) c[1], e, s.getCode().name());
      assertEquals(s.getCode(), e.code());
      assertEquals("from the fake", e.details());
      assertEquals(1, gw.requests.size(), s.getCode() + " is not resent");
      gw.errors.clear();
    }
  }

  @ParameterizedTest
  @EnumSource(Cmd.class)
  void resourceExhaustedIsResentWithTheSharedBackoff(Cmd cmd) throws Exception {
    start();
    gw.errors.add(Status.RESOURCE_EXHAUSTED.withDescription("backpressure"));
    gw.errors.add(Status.RESOURCE_EXHAUSTED.withDescription("backpressure"));
    cmd.call.apply(client).get(10, TimeUnit.SECONDS);
    assertEquals(3, gw.requests.size());
    for (int i = 1; i < 3; i++) assertEquals(gw.requests.get(0), gw.requests.get(i), "the same request each time");
    long gap1 = TimeUnit.NANOSECONDS.toMillis(gw.times.get(1) - gw.times.get(0));
    long gap2 = TimeUnit.NANOSECONDS.toMillis(gw.times.get(2) - gw.times.get(1));
    assertTrue(gap1 >= 44, "first wait 50 ms ±10 %: " + gap1);
    assertTrue(gap2 >= 71, "second wait 80 ms ±10 %: " + gap2);
  }

  @ParameterizedTest
  @EnumSource(Cmd.class)
  void unavailableIsResentOnlyForEvaluateDecision(Cmd cmd) throws Exception {
    start();
    gw.errors.add(Status.UNAVAILABLE.withDescription("connection lost"));
    CompletableFuture<?> f = cmd.call.apply(client);
    if (cmd.resentAfterUnavailable) {
      f.get(10, TimeUnit.SECONDS);
      assertEquals(2, gw.requests.size());
    } else {
      JobwireException e = failure(f);
      assertInstanceOf(UnavailableException.class, e);
      Thread.sleep(200); // longer than the first backoff step: nothing more may be sent
      assertEquals(1, gw.requests.size(), "UNAVAILABLE may follow an applied command: not resent");
    }
  }

  @ParameterizedTest
  @EnumSource(Cmd.class)
  void atMostFiveAttemptsThenTheLastTypedError(Cmd cmd) throws Exception {
    start();
    gw.always = Status.RESOURCE_EXHAUSTED.withDescription("backpressure");
    JobwireException e = failure(cmd.call.apply(client));
    assertInstanceOf(BackpressureException.class, e);
    Thread.sleep(700); // longer than a sixth backoff step would be
    assertEquals(5, gw.requests.size());
  }

  @Test
  void evaluateDecisionGivesUpAfterFiveUnavailable() throws Exception {
    start();
    gw.always = Status.UNAVAILABLE.withDescription("down");
    assertInstanceOf(UnavailableException.class, failure(client.evaluateDecision("d", null)));
    Thread.sleep(700);
    assertEquals(5, gw.requests.size());
  }

  @Test
  void noAttemptStartsPastTheCallsDeadline() throws Exception {
    // commandTimeout 400 ms; every attempt is held 150 ms, then RESOURCE_EXHAUSTED: two or three
    // attempts fit, never five, and the call ends by its deadline
    start(Duration.ofMillis(400)).deleteResource(1).get(10, TimeUnit.SECONDS); // connected before the clock starts
    gw.requests.clear();
    gw.times.clear();
    gw.always = Status.RESOURCE_EXHAUSTED.withDescription("backpressure");
    gw.delayMs = 150;
    long t0 = System.nanoTime();
    JobwireException e = failure(client.deleteResource(1));
    long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    Thread.sleep(500); // nothing more may arrive
    assertTrue(e instanceof BackpressureException || e instanceof DeadlineExceededException, e.toString());
    assertTrue(gw.requests.size() >= 2 && gw.requests.size() <= 3, "attempts: " + gw.requests.size());
    for (long t : gw.times) assertTrue(TimeUnit.NANOSECONDS.toMillis(t - t0) < 400, "an attempt arrived after the deadline");
    assertTrue(took < 550, "returned after " + took + " ms");
  }

  @Test
  void anAttemptGetsOnlyTheTimeLeftOfTheCallsDeadline() throws Exception {
    start(Duration.ofMillis(1_000)).evaluateDecision("d", null).get(10, TimeUnit.SECONDS); // connected before the clock starts
    gw.requests.clear();
    gw.errors.add(Status.RESOURCE_EXHAUSTED.withDescription("backpressure"));
    gw.delays.add(100L);
    gw.delays.add(5_000L); // the second attempt is held past the call's deadline
    long t0 = System.nanoTime();
    JobwireException e = failure(client.evaluateDecision("d", null));
    long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertInstanceOf(DeadlineExceededException.class, e);
    assertEquals(2, gw.requests.size());
    assertTrue(took >= 900 && took < 1_500, "returned after " + took + " ms");
  }
}
