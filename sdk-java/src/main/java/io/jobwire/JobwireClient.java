package io.jobwire;

import com.google.protobuf.ByteString;
import io.grpc.ClientCall;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.jobwire.internal.ClientConfig;
import io.jobwire.internal.CommandResend;
import io.jobwire.internal.Json;
import io.jobwire.internal.Transport;
import io.jobwire.internal.gateway.GatewayGrpc;
import io.jobwire.internal.gateway.GatewayOuterClass.ActivateJobsRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.ActivateJobsResponse;
import io.jobwire.internal.gateway.GatewayOuterClass.ActivatedJob;
import io.jobwire.internal.gateway.GatewayOuterClass.BroadcastSignalRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.BrokerInfo;
import io.jobwire.internal.gateway.GatewayOuterClass.CancelProcessInstanceRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.CompleteJobRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.CreateProcessInstanceRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.CreateProcessInstanceWithResultRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.DeleteResourceRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.DeployResourceRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.EvaluateDecisionRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.EvaluateDecisionResponse;
import io.jobwire.internal.gateway.GatewayOuterClass.EvaluatedDecisionInput;
import io.jobwire.internal.gateway.GatewayOuterClass.EvaluatedDecisionOutput;
import io.jobwire.internal.gateway.GatewayOuterClass.MatchedDecisionRule;
import io.jobwire.internal.gateway.GatewayOuterClass.FailJobRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.Partition;
import io.jobwire.internal.gateway.GatewayOuterClass.PublishMessageRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.ResolveIncidentRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.Resource;
import io.jobwire.internal.gateway.GatewayOuterClass.SetVariablesRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.ThrowErrorRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.TopologyRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.UpdateJobRetriesRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.UpdateJobTimeoutRequest;
import io.jobwire.internal.worker.DirectJob;
import io.jobwire.internal.worker.GuardedRecorder;
import io.jobwire.internal.worker.WorkerImpl;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client of a Zeebe / Camunda 8 gateway (or {@code jobwire-engine}): every RPC of the gateway
 * protocol as a {@link CompletableFuture}, and job workers ({@link #newWorker()}). One command
 * channel is shared by every call and worker; workers' long polls and streams use separate
 * long-call connections. Thread-safe; close it when done.
 *
 * <pre>{@code
 * try (JobwireClient client = JobwireClient.builder().build()) {   // from ZEEBE_* / CAMUNDA_* env
 *   JobWorker w = client.newWorker().jobType("charge").handler(job -> Map.of("charged", true)).open();
 *   ...
 * }
 * }</pre>
 */
public final class JobwireClient implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JobwireClient.class);
  private final Transport transport;
  private final ClientConfig config;
  private final Set<WorkerImpl> workers = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;
  /** Set when {@link #close(Duration)} has returned; {@link #runWorkers} waits on this monitor. */
  private volatile boolean closeFinished;
  private final Object runMonitor = new Object();

  private final List<Middleware> middleware;
  private final GuardedRecorder metricsRecorder;
  private final io.opentelemetry.api.OpenTelemetry openTelemetry;

  private JobwireClient(ClientConfig config, List<Middleware> middleware, MetricsRecorder metricsRecorder,
      io.opentelemetry.api.OpenTelemetry openTelemetry) throws ConfigurationException {
    this.config = config;
    this.middleware = List.copyOf(middleware);
    this.metricsRecorder = metricsRecorder == null ? GuardedRecorder.NONE : new GuardedRecorder(metricsRecorder);
    this.openTelemetry = openTelemetry;
    this.transport = new Transport(config);
  }

  /** @return a builder; unset options come from the environment, then the defaults */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A client configured from the environment only ({@code ZEEBE_ADDRESS}, ...).
   *
   * @return the client
   * @throws ConfigurationException on invalid environment values
   */
  public static JobwireClient fromEnvironment() throws ConfigurationException {
    return builder().build();
  }

  /** @return the gateway addresses in use */
  public List<String> addresses() {
    return config.addresses();
  }

  /** @return whether the client talks plaintext (no TLS) */
  public boolean isInsecure() {
    return config.insecure();
  }

  /** @return a builder for a job worker on this client */
  public JobWorkerBuilder newWorker() {
    return new JobWorkerBuilder(this, transport);
  }

  boolean isClosed() {
    return closed;
  }

  /** The guarded metrics recorder every worker of this client reports to. */
  GuardedRecorder metricsRecorder() {
    return metricsRecorder;
  }

  /** The OpenTelemetry the workers report to; null: the global one at the time a worker opens. */
  io.opentelemetry.api.OpenTelemetry openTelemetry() {
    return openTelemetry;
  }

  /** The client-level middleware, outermost first (every worker of this client runs it). */
  List<Middleware> middleware() {
    return middleware;
  }

  /**
   * Starts the declarative workers of the given objects: every {@code @JobWorker} method
   * ({@link io.jobwire.annotation.JobWorker}), read by {@link WorkerScanner#scan}. All or nothing:
   * every bean is scanned before any worker starts, and when one fails to start the ones already
   * started are closed. To change a definition first (e.g. its job type at run time), scan
   * yourself and open {@code definition.withJobType(t).builder(client)}.
   *
   * @param beans objects with {@code @JobWorker} methods
   * @return the started workers, in the order of the beans and their methods (sorted by name)
   * @throws ConfigurationException when a method cannot be a worker or a worker's options are invalid
   */
  public List<JobWorker> openWorkers(Object... beans) throws ConfigurationException {
    List<WorkerDefinition> defs = new ArrayList<>();
    for (Object bean : beans) {
      try {
        defs.addAll(WorkerScanner.scan(bean));
      } catch (IllegalArgumentException e) {
        throw new ConfigurationException(e.getMessage(), e);
      }
    }
    List<JobWorker> started = new ArrayList<>();
    try {
      for (WorkerDefinition d : defs) started.add(d.builder(this).open());
    } catch (ConfigurationException | RuntimeException e) {
      for (JobWorker w : started) w.closeAsync(Duration.ZERO);
      throw e;
    }
    return List.copyOf(started);
  }

  void track(WorkerImpl w) {
    workers.add(w);
  }

  void forget(WorkerImpl w) {
    workers.remove(w);
    wakeRunner();
  }

  private void wakeRunner() {
    synchronized (runMonitor) {
      runMonitor.notifyAll();
    }
  }

  /** @return long-call connections open now (at most 32 workers share one) */
  public int longConnectionCount() {
    return transport.longConnectionCount();
  }

  // ------------------------------------------------------------------ commands

  /** @return the cluster topology */
  public CompletableFuture<Topology> topology() {
    return transport.unary(GatewayGrpc.getTopologyMethod(), TopologyRequest.getDefaultInstance(), null).thenApply(r -> {
      List<Topology.Broker> brokers = new ArrayList<>();
      for (BrokerInfo b : r.getBrokersList()) {
        List<Topology.Partition> parts = new ArrayList<>();
        for (Partition p : b.getPartitionsList()) parts.add(new Topology.Partition(p.getPartitionId(), p.getRole().name(), p.getHealth().name()));
        brokers.add(new Topology.Broker(b.getNodeId(), b.getHost(), b.getPort(), b.getVersion(), List.copyOf(parts)));
      }
      return new Topology(List.copyOf(brokers), r.getClusterSize(), r.getPartitionsCount(), r.getReplicationFactor(), r.getGatewayVersion());
    });
  }

  /**
   * Deploys one resource (BPMN, DMN, form).
   *
   * @param name resource name, e.g. {@code order.bpmn}
   * @param content the bytes
   * @return the deployment
   */
  public CompletableFuture<Deployment> deployResource(String name, byte[] content) {
    DeployResourceRequest req = DeployResourceRequest.newBuilder()
        .addResources(Resource.newBuilder().setName(name).setContent(ByteString.copyFrom(content)))
        .build();
    return transport.unary(GatewayGrpc.getDeployResourceMethod(), req, null).thenApply(r -> {
      List<Deployment.Process> ps = new ArrayList<>();
      r.getDeploymentsList().forEach(d -> {
        if (d.hasProcess()) {
          var p = d.getProcess();
          ps.add(new Deployment.Process(p.getBpmnProcessId(), p.getVersion(), p.getProcessDefinitionKey(), p.getResourceName()));
        }
      });
      return new Deployment(r.getKey(), List.copyOf(ps), r.getTenantId());
    });
  }

  /**
   * Deploys a resource file.
   *
   * @param file the file
   * @return the deployment
   */
  public CompletableFuture<Deployment> deployResource(Path file) {
    try {
      return deployResource(file.getFileName().toString(), Files.readAllBytes(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Creates an instance of the latest version of a process.
   *
   * @param bpmnProcessId the process id
   * @param variables a Map, POJO, JSON object text or null
   * @return the instance
   * @throws InvalidVariablesException when variables are not a JSON object (nothing is sent)
   */
  public CompletableFuture<ProcessInstance> createProcessInstance(String bpmnProcessId, Object variables) {
    return createProcessInstance(bpmnProcessId, variables, List.of());
  }

  /**
   * Creates an instance of the latest version of a process that starts before the given elements
   * instead of at its none start event.
   *
   * <pre>{@code
   * client.createProcessInstance("order", Map.of("orderId", 42), List.of("ship")).join();
   * }</pre>
   *
   * @param bpmnProcessId the process id
   * @param variables a Map, POJO, JSON object text or null
   * @param startElementIds the elements to start before (empty: the none start event); an element
   *     the engine cannot start at, such as a boundary event, fails with {@link InvalidArgumentException}
   * @return the instance
   * @throws InvalidVariablesException when variables are not a JSON object (nothing is sent)
   */
  public CompletableFuture<ProcessInstance> createProcessInstance(String bpmnProcessId, Object variables, List<String> startElementIds) {
    CreateProcessInstanceRequest.Builder b = CreateProcessInstanceRequest.newBuilder().setBpmnProcessId(bpmnProcessId).setVersion(-1)
        .setVariables(Json.variablesToJson(variables, "createProcessInstance"));
    for (String elementId : startElementIds) {
      b.addStartInstructions(io.jobwire.internal.gateway.GatewayOuterClass.ProcessInstanceCreationStartInstruction.newBuilder().setElementId(elementId));
    }
    CreateProcessInstanceRequest req = b.build();
    return transport.unary(GatewayGrpc.getCreateProcessInstanceMethod(), req, null)
        .thenApply(r -> new ProcessInstance(r.getProcessDefinitionKey(), r.getBpmnProcessId(), r.getVersion(), r.getProcessInstanceKey(), ""));
  }

  /**
   * Creates an instance and waits for it to complete.
   *
   * @param bpmnProcessId the process id
   * @param variables a Map, POJO, JSON object text or null
   * @param timeout how long to wait for the instance to complete
   * @return the instance with its final variables
   */
  public CompletableFuture<ProcessInstance> createProcessInstanceWithResult(String bpmnProcessId, Object variables, Duration timeout) {
    CreateProcessInstanceRequest inner = CreateProcessInstanceRequest.newBuilder().setBpmnProcessId(bpmnProcessId).setVersion(-1)
        .setVariables(Json.variablesToJson(variables, "createProcessInstanceWithResult")).build();
    CreateProcessInstanceWithResultRequest req = CreateProcessInstanceWithResultRequest.newBuilder().setRequest(inner)
        .setRequestTimeout(timeout.toMillis()).build();
    return transport.unary(GatewayGrpc.getCreateProcessInstanceWithResultMethod(), req, timeout.plusSeconds(10))
        .thenApply(r -> new ProcessInstance(r.getProcessDefinitionKey(), r.getBpmnProcessId(), r.getVersion(), r.getProcessInstanceKey(), r.getVariables()));
  }

  /**
   * Cancels a running process instance.
   *
   * @param processInstanceKey the instance
   * @return completes when cancelled
   */
  public CompletableFuture<Void> cancelProcessInstance(long processInstanceKey) {
    return transport.unary(GatewayGrpc.getCancelProcessInstanceMethod(), CancelProcessInstanceRequest.newBuilder().setProcessInstanceKey(processInstanceKey).build(), null)
        .thenApply(r -> null);
  }

  /**
   * Publishes a message.
   *
   * @param name message name
   * @param correlationKey correlation key
   * @param variables a Map, POJO, JSON object text or null
   * @param timeToLive how long the message is buffered (null = 0)
   * @param messageId unique id for deduplication, or null
   * @return the message key
   */
  public CompletableFuture<Long> publishMessage(String name, String correlationKey, Object variables, Duration timeToLive, String messageId) {
    PublishMessageRequest.Builder b = PublishMessageRequest.newBuilder().setName(name).setCorrelationKey(correlationKey == null ? "" : correlationKey)
        .setTimeToLive(timeToLive == null ? 0 : timeToLive.toMillis()).setVariables(Json.variablesToJson(variables, "publishMessage"));
    if (messageId != null) b.setMessageId(messageId);
    return transport.unary(GatewayGrpc.getPublishMessageMethod(), b.build(), null).thenApply(r -> r.getKey());
  }

  /**
   * Resolves an incident (after its cause was fixed, e.g. the job's retries raised).
   *
   * @param incidentKey the incident
   * @return completes when resolved
   */
  public CompletableFuture<Void> resolveIncident(long incidentKey) {
    return transport.unary(GatewayGrpc.getResolveIncidentMethod(), ResolveIncidentRequest.newBuilder().setIncidentKey(incidentKey).build(), null)
        .thenApply(r -> null);
  }

  /**
   * Sets variables on an element instance scope.
   *
   * @param elementInstanceKey the scope (a process instance key for the root)
   * @param variables a Map, POJO or JSON object text
   * @param local set on this scope only (no propagation)
   * @return the command key
   */
  public CompletableFuture<Long> setVariables(long elementInstanceKey, Object variables, boolean local) {
    SetVariablesRequest req = SetVariablesRequest.newBuilder().setElementInstanceKey(elementInstanceKey)
        .setVariables(Json.variablesToJson(variables == null ? Map.of() : variables, "setVariables")).setLocal(local).build();
    return transport.unary(GatewayGrpc.getSetVariablesMethod(), req, null).thenApply(r -> r.getKey());
  }

  /**
   * Sets the retries of a job.
   *
   * @param jobKey the job
   * @param retries new retries
   * @return completes when updated
   */
  public CompletableFuture<Void> updateJobRetries(long jobKey, int retries) {
    return transport.unary(GatewayGrpc.getUpdateJobRetriesMethod(), UpdateJobRetriesRequest.newBuilder().setJobKey(jobKey).setRetries(retries).build(), null)
        .thenApply(r -> null);
  }

  /**
   * Sets a new activation timeout on a job, counted from now.
   *
   * @param jobKey the job
   * @param timeout new timeout from now
   * @return completes when updated
   */
  public CompletableFuture<Void> updateJobTimeout(long jobKey, Duration timeout) {
    return transport.unary(GatewayGrpc.getUpdateJobTimeoutMethod(), UpdateJobTimeoutRequest.newBuilder().setJobKey(jobKey).setTimeout(timeout.toMillis()).build(), null)
        .thenApply(r -> null);
  }

  /**
   * Completes a job by key, outside of a worker.
   *
   * @param jobKey the job
   * @param variables a Map, POJO, JSON object text or null
   * @return completes when acknowledged
   */
  public CompletableFuture<Void> completeJob(long jobKey, Object variables) {
    CompleteJobRequest req = CompleteJobRequest.newBuilder().setJobKey(jobKey).setVariables(Json.variablesToJson(variables, "completeJob")).build();
    return transport.unary(GatewayGrpc.getCompleteJobMethod(), req, null).thenApply(r -> null);
  }

  /**
   * Fails a job.
   *
   * @param jobKey the job
   * @param retries retries left
   * @param message error message
   * @param retryBackOff delay before the next activation (null = 0)
   * @return completes when acknowledged
   */
  public CompletableFuture<Void> failJob(long jobKey, int retries, String message, Duration retryBackOff) {
    return failJob(jobKey, retries, message, retryBackOff, null);
  }

  /**
   * Fails a job and sets variables on the task's scope.
   *
   * @param jobKey the job
   * @param retries retries left
   * @param message error message
   * @param retryBackOff delay before the next activation (null = 0)
   * @param variables a Map, POJO, JSON object text or null
   * @return completes when acknowledged
   */
  public CompletableFuture<Void> failJob(long jobKey, int retries, String message, Duration retryBackOff, Object variables) {
    FailJobRequest req = FailJobRequest.newBuilder().setJobKey(jobKey).setRetries(retries).setErrorMessage(message == null ? "" : message)
        .setRetryBackOff(retryBackOff == null ? 0 : retryBackOff.toMillis()).setVariables(Json.variablesToJson(variables, "failJob")).build();
    return transport.unary(GatewayGrpc.getFailJobMethod(), req, null).thenApply(r -> null);
  }

  /**
   * Throws a BPMN error for a job.
   *
   * @param jobKey the job
   * @param code the BPMN error code
   * @param message error message
   * @param variables a Map, POJO, JSON object text or null
   * @return completes when acknowledged
   */
  public CompletableFuture<Void> throwError(long jobKey, String code, String message, Object variables) {
    ThrowErrorRequest req = ThrowErrorRequest.newBuilder().setJobKey(jobKey).setErrorCode(code).setErrorMessage(message == null ? "" : message)
        .setVariables(Json.variablesToJson(variables, "throwError")).build();
    return transport.unary(GatewayGrpc.getThrowErrorMethod(), req, null).thenApply(r -> null);
  }

  // ------------------------------------------------------------------ decisions, modification, migration, deletion, signals
  // Resent only after a status that proves the command was not applied (docs/worker-semantics.md,
  // "Client commands: which are resent"): the rules are in CommandResend, one function per command.

  /**
   * Evaluates the latest version of a deployed decision. Resent after {@code UNAVAILABLE} or
   * {@code RESOURCE_EXHAUSTED} (an evaluation changes no process state), with backoff, at most 5
   * attempts, within the client's {@code commandTimeout}; every other error is its typed exception
   * at once. A decision that fails to evaluate is a result with
   * {@link DecisionEvaluation#failedDecisionId()} set, not an exception.
   *
   * <pre>{@code
   * DecisionEvaluation e = client.evaluateDecision("shipping-zone", Map.of("country", "DE")).join();
   * String zone = e.decisionOutput();   // a JSON document, e.g. "\"home\""
   * }</pre>
   *
   * @param decisionId the decision's id
   * @param variables a Map, POJO, JSON object text or null: the variables the decision sees
   * @return the evaluation; exceptionally {@link NotFoundException} when no such decision is deployed
   * @throws InvalidVariablesException when variables are not a JSON object (nothing is sent)
   */
  public CompletableFuture<DecisionEvaluation> evaluateDecision(String decisionId, Object variables) {
    return evaluateDecision(decisionId, variables, null);
  }

  /**
   * {@link #evaluateDecision(String, Object)} for a tenant.
   *
   * <pre>{@code
   * client.evaluateDecision("shipping-zone", Map.of("country", "DE"), "tenant-a").join();
   * }</pre>
   *
   * @param decisionId the decision's id
   * @param variables a Map, POJO, JSON object text or null
   * @param tenantId the tenant (null: the default tenant)
   * @return the evaluation
   * @throws InvalidVariablesException when variables are not a JSON object (nothing is sent)
   */
  public CompletableFuture<DecisionEvaluation> evaluateDecision(String decisionId, Object variables, String tenantId) {
    return evaluateDecision(0, decisionId, variables, tenantId);
  }

  /**
   * Evaluates a deployed decision by its key (one version). Resent as
   * {@link #evaluateDecision(String, Object)}.
   *
   * <pre>{@code
   * DecisionEvaluation e = client.evaluateDecision(decisionKey, "{\"country\":\"DE\"}").join();
   * }</pre>
   *
   * @param decisionKey the decision's key
   * @param variables a Map, POJO, JSON object text or null
   * @return the evaluation; exceptionally {@link NotFoundException} when no such decision is deployed
   * @throws InvalidVariablesException when variables are not a JSON object (nothing is sent)
   */
  public CompletableFuture<DecisionEvaluation> evaluateDecision(long decisionKey, Object variables) {
    return evaluateDecision(decisionKey, variables, null);
  }

  /**
   * {@link #evaluateDecision(long, Object)} for a tenant.
   *
   * <pre>{@code
   * client.evaluateDecision(decisionKey, Map.of("country", "DE"), "tenant-a").join();
   * }</pre>
   *
   * @param decisionKey the decision's key
   * @param variables a Map, POJO, JSON object text or null
   * @param tenantId the tenant (null: the default tenant)
   * @return the evaluation
   * @throws InvalidVariablesException when variables are not a JSON object (nothing is sent)
   */
  public CompletableFuture<DecisionEvaluation> evaluateDecision(long decisionKey, Object variables, String tenantId) {
    return evaluateDecision(decisionKey, null, variables, tenantId);
  }

  private CompletableFuture<DecisionEvaluation> evaluateDecision(long decisionKey, String decisionId, Object variables, String tenantId) {
    EvaluateDecisionRequest.Builder b = EvaluateDecisionRequest.newBuilder().setDecisionKey(decisionKey).setDecisionId(decisionId == null ? "" : decisionId)
        .setTenantId(tenantId == null ? "" : tenantId);
    b.setVariables(Json.variablesToJson(variables, "evaluateDecision"));
    return CommandResend.send(transport, GatewayGrpc.getEvaluateDecisionMethod(), b.build(), CommandResend::evaluateDecision)
        .thenApply(JobwireClient::decisionEvaluation);
  }

  static DecisionEvaluation decisionEvaluation(EvaluateDecisionResponse r) {
    List<DecisionEvaluation.EvaluatedDecision> decisions = new ArrayList<>();
    for (var d : r.getEvaluatedDecisionsList()) {
      List<DecisionEvaluation.MatchedRule> rules = new ArrayList<>();
      for (MatchedDecisionRule m : d.getMatchedRulesList()) {
        List<DecisionEvaluation.EvaluatedOutput> outs = new ArrayList<>();
        for (EvaluatedDecisionOutput o : m.getEvaluatedOutputsList()) outs.add(new DecisionEvaluation.EvaluatedOutput(o.getOutputId(), o.getOutputName(), o.getOutputValue()));
        rules.add(new DecisionEvaluation.MatchedRule(m.getRuleId(), m.getRuleIndex(), outs));
      }
      List<DecisionEvaluation.EvaluatedInput> ins = new ArrayList<>();
      for (EvaluatedDecisionInput i : d.getEvaluatedInputsList()) ins.add(new DecisionEvaluation.EvaluatedInput(i.getInputId(), i.getInputName(), i.getInputValue()));
      decisions.add(new DecisionEvaluation.EvaluatedDecision(d.getDecisionKey(), d.getDecisionId(), d.getDecisionName(), d.getDecisionVersion(), d.getDecisionType(),
          d.getDecisionOutput(), rules, ins, d.getTenantId(), d.getDecisionEvaluationInstanceKey()));
    }
    return new DecisionEvaluation(r.getDecisionKey(), r.getDecisionId(), r.getDecisionName(), r.getDecisionVersion(), r.getDecisionRequirementsId(),
        r.getDecisionRequirementsKey(), r.getDecisionOutput(), decisions, r.getFailedDecisionId(), r.getFailureMessage(), r.getTenantId(),
        r.getDecisionInstanceKey(), r.getDecisionEvaluationKey());
  }

  /**
   * Starts a modification of a running process instance: activate elements (with variables),
   * terminate element instances, then {@link ModifyProcessInstanceCommand#send() send}. Resent only
   * after {@code RESOURCE_EXHAUSTED}.
   *
   * <pre>{@code
   * client.modifyProcessInstance(processInstanceKey)
   *     .activate("review").withVariables(Map.of("reason", "manual"))
   *     .terminate(stuckElementInstanceKey)
   *     .send().join();
   * }</pre>
   *
   * @param processInstanceKey the instance
   * @return the command to fill in and send
   */
  public ModifyProcessInstanceCommand modifyProcessInstance(long processInstanceKey) {
    return new ModifyProcessInstanceCommand(transport, processInstanceKey);
  }

  /**
   * Starts a migration of a running process instance to another process definition: give the
   * target and the element mappings, then {@link MigrateProcessInstanceCommand#send() send}. Resent
   * only after {@code RESOURCE_EXHAUSTED}.
   *
   * <pre>{@code
   * client.migrateProcessInstance(processInstanceKey)
   *     .targetProcessDefinitionKey(v2Key)
   *     .map("check-order", "check-order-v2")
   *     .send().join();
   * }</pre>
   *
   * @param processInstanceKey the instance
   * @return the command to fill in and send
   */
  public MigrateProcessInstanceCommand migrateProcessInstance(long processInstanceKey) {
    return new MigrateProcessInstanceCommand(transport, processInstanceKey);
  }

  /**
   * Deletes a deployed process definition, decision requirements graph or form. A process
   * definition that still has running instances is refused ({@code FAILED_PRECONDITION}). Resent only after {@code RESOURCE_EXHAUSTED}:
   * after {@code UNAVAILABLE} the deletion may have been applied, and the error is returned at once.
   *
   * <pre>{@code
   * long key = client.deployResource(Path.of("order.bpmn")).join().processes().get(0).processDefinitionKey();
   * client.deleteResource(key).join();
   * }</pre>
   *
   * @param resourceKey the key of the process definition, decision requirements graph or form
   * @return completes when deleted; exceptionally {@link NotFoundException} when there is no such resource
   */
  public CompletableFuture<Void> deleteResource(long resourceKey) {
    DeleteResourceRequest req = DeleteResourceRequest.newBuilder().setResourceKey(resourceKey).build();
    return CommandResend.send(transport, GatewayGrpc.getDeleteResourceMethod(), req, CommandResend::deleteResource).thenApply(r -> null);
  }

  /**
   * Broadcasts a signal: every signal start event and every waiting signal catch event with this
   * name is triggered and receives the variables. Resent only after {@code RESOURCE_EXHAUSTED}:
   * after {@code UNAVAILABLE} the signal may have been broadcast, and the error is returned at once
   * (a second broadcast would start second instances).
   *
   * <pre>{@code
   * long key = client.broadcastSignal("price-changed", Map.of("sku", "A-1")).join();
   * }</pre>
   *
   * @param signalName the signal's name
   * @param variables a Map, POJO, JSON object text or null
   * @return the key of the broadcast
   * @throws InvalidVariablesException when variables are not a JSON object (nothing is sent)
   */
  public CompletableFuture<Long> broadcastSignal(String signalName, Object variables) {
    return broadcastSignal(signalName, variables, null);
  }

  /**
   * {@link #broadcastSignal(String, Object)} for a tenant.
   *
   * <pre>{@code
   * long key = client.broadcastSignal("price-changed", Map.of("sku", "A-1"), "tenant-a").join();
   * }</pre>
   *
   * @param signalName the signal's name
   * @param variables a Map, POJO, JSON object text or null
   * @param tenantId the tenant (null: the default tenant)
   * @return the key of the broadcast
   * @throws InvalidVariablesException when variables are not a JSON object (nothing is sent)
   */
  public CompletableFuture<Long> broadcastSignal(String signalName, Object variables, String tenantId) {
    BroadcastSignalRequest.Builder b = BroadcastSignalRequest.newBuilder().setSignalName(signalName).setTenantId(tenantId == null ? "" : tenantId);
    b.setVariables(Json.variablesToJson(variables, "broadcastSignal"));
    return CommandResend.send(transport, GatewayGrpc.getBroadcastSignalMethod(), b.build(), CommandResend::broadcastSignal).thenApply(r -> r.getKey());
  }

  /** A job's outcome with no variables arrives as "" (none); the commands take null for none. */
  private static String emptyAsNull(String variables) {
    return variables == null || variables.isEmpty() ? null : variables;
  }

  /**
   * One ActivateJobs call (for tools and tests; workers do this for you).
   *
   * @param jobType job type
   * @param maxJobs at most this many
   * @param jobTimeout activation timeout
   * @param workerName recorded on the jobs
   * @param requestTimeout long-poll time (negative: answer at once)
   * @return the activated jobs; their outcome methods send one command each through this client
   */
  public CompletableFuture<List<Job>> activateJobs(String jobType, int maxJobs, Duration jobTimeout, String workerName, Duration requestTimeout) {
    ActivateJobsRequest req = ActivateJobsRequest.newBuilder().setType(jobType).setMaxJobsToActivate(maxJobs).setTimeout(jobTimeout.toMillis())
        .setWorker(workerName == null ? "" : workerName).setRequestTimeout(requestTimeout.toMillis()).build();
    CompletableFuture<List<Job>> out = new CompletableFuture<>();
    List<Job> jobs = new ArrayList<>();
    DirectJob.Commands commands = new DirectJob.Commands() {
      @Override
      public CompletableFuture<Void> complete(long key, String variables) {
        return completeJob(key, emptyAsNull(variables));
      }

      @Override
      public CompletableFuture<Void> fail(long key, int retries, String message, Duration backoff, String variables) {
        return failJob(key, retries, message, backoff, emptyAsNull(variables));
      }

      @Override
      public CompletableFuture<Void> throwError(long key, String code, String message, String variables) {
        return JobwireClient.this.throwError(key, code, message, emptyAsNull(variables));
      }

      @Override
      public CompletableFuture<Void> updateTimeout(long key, Duration timeout) {
        return updateJobTimeout(key, timeout);
      }
    };
    long deadline = Math.max(0, requestTimeout.toMillis()) + 10_000;
    ClientCall<ActivateJobsRequest, ActivateJobsResponse> call =
        transportChannelCall(deadline);
    ClientCalls.asyncServerStreamingCall(call, req, new StreamObserver<>() {
      @Override
      public void onNext(ActivateJobsResponse r) {
        for (ActivatedJob j : r.getJobsList()) {
          jobs.add(DirectJob.of(j, commands));
        }
      }

      @Override
      public void onError(Throwable t) {
        out.completeExceptionally(JobwireException.from(t, "ActivateJobs"));
      }

      @Override
      public void onCompleted() {
        out.complete(List.copyOf(jobs));
      }
    });
    return out;
  }

  private ClientCall<ActivateJobsRequest, ActivateJobsResponse> transportChannelCall(long deadlineMs) {
    return transport.newCommandCall(GatewayGrpc.getActivateJobsMethod(), Duration.ofMillis(deadlineMs));
  }

  // ------------------------------------------------------------------ run

  /** The default close timeout of {@link #runWorkers()}: 30 s, as {@link #close()}. */
  private static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(30);

  /** How long the shutdown hook of {@link #runWorkers} waits, after the close, for the calling thread to end. */
  static final long CALLER_EXIT_WAIT_MS = 5_000;

  /**
   * {@link #runWorkers(Duration)} with a 30 s close timeout.
   *
   * @see #runWorkers(Duration)
   */
  public void runWorkers() {
    runWorkers(DEFAULT_CLOSE_TIMEOUT);
  }

  /**
   * Runs the workers of this client until the process is told to stop, then closes them
   * gracefully: the last line of a worker's {@code main}. Workers start at
   * {@link JobWorkerBuilder#open()}, so every worker opened on this client is running already;
   * this call blocks the calling thread until one of:
   *
   * <ul>
   *   <li>SIGINT (Ctrl-C) or SIGTERM, or any other JVM shutdown: a shutdown hook, registered for
   *       the duration of this call, wakes the calling thread, which closes the client
   *       ({@link #close(Duration)}: every worker stops taking jobs, hands back the jobs it has
   *       not started, lets running handlers finish within {@code closeTimeout}, then interrupts
   *       them and hands their jobs back; then the channels) and returns normally. The hook waits
   *       for that close (at most {@code closeTimeout} plus 15 s), so no job is lost to the JVM
   *       exiting under it. After SIGINT or SIGTERM the hook then waits for the calling thread to
   *       end (at most 5 s, so code after this call, e.g. the end of {@code main}, still runs)
   *       and ends the JVM with status 0 (a graceful stop is a success, not the JVM's 130 / 143),
   *       as {@link Runtime#halt(int)} does: shutdown hooks of the application still running at
   *       that point do not finish. A {@link System#exit(int)} keeps its status.
   *   <li>the calling thread is interrupted: the client is closed the same way, this call returns
   *       and the thread's interrupt flag is set again.
   *   <li>another thread closes the client, or every worker of this client is closed: this call
   *       returns (after the client's close has finished). With no open worker it returns at once.
   * </ul>
   *
   * <p>The shutdown hook exists only while this call runs (it is removed when the call returns
   * for any other reason than a JVM shutdown): a signal before this call is the JVM's default.
   *
   * <pre>{@code
   * JobwireClient client = JobwireClient.fromEnvironment();
   * client.newWorker().jobType("charge").handler(job -> Map.of("charged", true)).open();
   * client.runWorkers();   // until Ctrl-C / SIGTERM; then exit 0
   * }</pre>
   *
   * @param closeTimeout how long running handlers may take once the workers are told to close
   *     (each worker, in parallel)
   */
  public void runWorkers(Duration closeTimeout) {
    Duration timeout = closeTimeout == null ? DEFAULT_CLOSE_TIMEOUT : closeTimeout;
    Thread caller = Thread.currentThread();
    AtomicBoolean shutdown = new AtomicBoolean();
    CompletableFuture<Void> done = new CompletableFuture<>();
    Thread hook = new Thread(() -> {
      shutdown.set(true);
      wakeRunner();
      try {
        done.get(Math.max(0, timeout.toMillis()) + 15_000, TimeUnit.MILLISECONDS);
      } catch (InterruptedException | ExecutionException | TimeoutException e) {
        LOG.warn("jobwire: the workers did not close in time; the JVM exits anyway");
      }
      if (!stopSignalled()) return; // System.exit(n): keep n
      try {
        if (caller != Thread.currentThread()) caller.join(CALLER_EXIT_WAIT_MS);
      } catch (InterruptedException ignored) {
        // exit now
      }
      Runtime.getRuntime().halt(0);
    }, "jobwire-run-workers-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    boolean interrupted = false;
    try {
      synchronized (runMonitor) {
        while (!shutdown.get() && !workers.isEmpty() && !closeFinished) runMonitor.wait();
      }
    } catch (InterruptedException e) {
      interrupted = true;
    }
    try {
      if (shutdown.get() || interrupted) {
        LOG.info(shutdown.get() ? "jobwire: shutting down; closing the workers" : "jobwire: interrupted; closing the workers");
        close(timeout);
      } else if (closed && !closeFinished) {
        // another thread is closing the client: return once its close has finished
        synchronized (runMonitor) {
          while (!closeFinished) runMonitor.wait();
        }
      }
    } catch (InterruptedException e) {
      interrupted = true;
    } finally {
      done.complete(null);
      if (!shutdown.get()) {
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
          // the hook has started or is about to: it finds the close done
        }
      }
      if (interrupted) caller.interrupt();
    }
  }

  /** Whether the JVM is shutting down for SIGINT or SIGTERM: the JVM runs the exit on its signal's dispatch thread. */
  private static boolean stopSignalled() {
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      String n = t.getName();
      if (n.equals("SIGTERM handler") || n.equals("SIGINT handler")) return true;
    }
    return false;
  }

  // ------------------------------------------------------------------ close

  /**
   * Closes every worker of this client (each with {@code timeout}) and then the channels.
   *
   * @param timeout how long running handlers may take
   */
  public void close(Duration timeout) {
    closed = true;
    try {
      List<CompletableFuture<Void>> fs = new ArrayList<>();
      for (WorkerImpl w : new ArrayList<>(workers)) fs.add(w.closeAsync(timeout));
      try {
        CompletableFuture.allOf(fs.toArray(new CompletableFuture[0])).get(Math.max(0, timeout.toMillis()) + 10_000, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // closing anyway
      } catch (Exception ignored) {
        // closing anyway
      }
      transport.close();
    } finally {
      closeFinished = true;
      wakeRunner();
    }
  }

  /** Closes with a 30 s timeout for running handlers. */
  @Override
  public void close() {
    close(Duration.ofSeconds(30));
  }

  /**
   * Builds a {@link JobwireClient}. Every option is optional: unset ones come from the
   * environment ({@code ZEEBE_*} / {@code CAMUNDA_*}, docs/configuration.md), then the defaults.
   */
  public static final class Builder {
    private final ClientConfig.Input in = new ClientConfig.Input();
    private Map<String, String> env = System.getenv();
    private final List<Middleware> middleware = new ArrayList<>();
    private MetricsRecorder metricsRecorder;
    private io.opentelemetry.api.OpenTelemetry openTelemetry;

    Builder() {}

    /**
     * The gateway address(es).
     *
     * @param addresses gateway address(es) {@code host:port}; several are balanced round-robin
     * @return this
     */
    public Builder address(String... addresses) {
      in.addresses = Arrays.asList(addresses);
      return this;
    }

    /**
     * Plaintext or TLS.
     *
     * @param insecure true for plaintext, false for TLS (default: plaintext for loopback only)
     * @return this
     */
    public Builder insecure(boolean insecure) {
      in.insecure = insecure;
      return this;
    }

    /**
     * The CA certificate that signed the gateway's certificate.
     *
     * @param pem PEM file of the CA that signed the gateway's certificate (implies TLS)
     * @return this
     */
    public Builder caCertificatePath(Path pem) {
      in.caCertificatePath = pem;
      return this;
    }

    /**
     * OAuth client credentials.
     *
     * @param clientId client id
     * @param clientSecret client secret
     * @param authorizationServerUrl token endpoint
     * @param audience token audience (may be null)
     * @param scope scope (may be null)
     * @return this
     */
    public Builder oauth(String clientId, String clientSecret, String authorizationServerUrl, String audience, String scope) {
      in.oauth = new ClientConfig.OAuth(clientId, clientSecret, authorizationServerUrl, audience, scope);
      return this;
    }

    /**
     * The HTTP/2 keepalive ping interval.
     *
     * @param d HTTP/2 keepalive ping interval (default 45 s)
     * @return this
     */
    public Builder keepAlive(Duration d) {
      in.keepAlive = d;
      return this;
    }

    /**
     * The deadline of client commands.
     *
     * @param d deadline of client commands and of workers' outcome calls (default 30 s)
     * @return this
     */
    public Builder commandTimeout(Duration d) {
      in.commandTimeout = d;
      return this;
    }

    /**
     * The HTTP/2 receive window of the long-call connections.
     *
     * @param bytes HTTP/2 receive window of the long-call connections (default 8192)
     * @return this
     */
    public Builder streamWindowBytes(int bytes) {
      in.streamWindowBytes = bytes;
      return this;
    }

    /**
     * Mutual TLS: the client's certificate chain and private key (PEM; the key in PKCS#8).
     *
     * @param certificateChain PEM file with the client certificate (and intermediates)
     * @param privateKey PEM file with its private key
     * @return this
     */
    public Builder clientCertificate(Path certificateChain, Path privateKey) {
      in.clientCertificatePath = certificateChain;
      in.clientKeyPath = privateKey;
      return this;
    }

    /**
     * Mutual TLS: the client's certificate chain (PEM); give {@link #clientPrivateKeyPath} too.
     * Default: env {@code ZEEBE_CLIENT_CERTIFICATE_PATH}, else none.
     *
     * @param certificateChain PEM file with the client certificate (and intermediates)
     * @return this
     */
    public Builder clientCertificatePath(Path certificateChain) {
      in.clientCertificatePath = certificateChain;
      return this;
    }

    /**
     * Mutual TLS: the private key (PEM, PKCS#8) of {@link #clientCertificatePath}. Default: env
     * {@code ZEEBE_CLIENT_PRIVATE_KEY_PATH}, else none.
     *
     * @param privateKey PEM file with the private key
     * @return this
     */
    public Builder clientPrivateKeyPath(Path privateKey) {
      in.clientKeyPath = privateKey;
      return this;
    }

    /**
     * Raw grpc-java channel options, applied after the client's own to every connection (the
     * command channel and the long-call connections), e.g. {@code b -> b.maxInboundMessageSize(8 << 20)}.
     *
     * @param customizer receives each channel builder before it is built
     * @return this
     */
    public Builder channelCustomizer(java.util.function.Consumer<io.grpc.ManagedChannelBuilder<?>> customizer) {
      in.channelCustomizer = customizer;
      return this;
    }

    /**
     * The environment variables to read the unset options from.
     *
     * @param env the environment to read instead of {@link System#getenv()} (tests)
     * @return this
     */
    public Builder environment(Map<String, String> env) {
      this.env = env;
      return this;
    }

    /**
     * Client-level middleware: runs around the handler of every worker of this client
     * ({@link JobwireClient#newWorker()} and {@link JobwireClient#openWorkers}), outside the
     * worker's own middleware, in the order given.
     *
     * @param middleware the middleware, outermost first
     * @return this
     */
    public Builder middleware(Middleware... middleware) {
      for (Middleware m : middleware) {
        if (m == null) throw new IllegalArgumentException("jobwire: middleware must not be null");
        this.middleware.add(m);
      }
      return this;
    }

    /**
     * The transport back-off: the waits between polls after errors, stream reopens and resends
     * of outcomes and commands (each grows from {@code initial} by {@code multiplier} per failure
     * up to {@code max}, ±10 % jitter, and starts again after a success). Not the back-off of
     * failed jobs: that is the retry policy's.
     *
     * @param initial the first wait (default 50 ms; positive)
     * @param max the longest wait (default 5 s; at least {@code initial})
     * @param multiplier growth per failure (default 1.6; at least 1)
     * @return this
     */
    public Builder backoff(Duration initial, Duration max, double multiplier) {
      in.backoff = new ClientConfig.TransportBackoff(initial, max, multiplier);
      return this;
    }

    /**
     * A metrics recorder: receives every worker metric under the same instrument name and
     * attributes as the OpenTelemetry instruments (which keep recording too), e.g. a bridge to
     * Micrometer. A recorder that throws is logged once per instrument and otherwise ignored.
     *
     * @param recorder the recorder, or null for none (the default)
     * @return this
     */
    public Builder metricsRecorder(MetricsRecorder recorder) {
      this.metricsRecorder = recorder;
      return this;
    }

    /**
     * The OpenTelemetry whose tracer and meter the workers use (the span per job, the
     * {@code jobwire.worker.*} instruments), e.g. the one a framework configured, instead of
     * {@code GlobalOpenTelemetry} (the default).
     *
     * @param openTelemetry the OpenTelemetry, or null for the global one
     * @return this
     */
    public Builder openTelemetry(io.opentelemetry.api.OpenTelemetry openTelemetry) {
      this.openTelemetry = openTelemetry;
      return this;
    }

    /**
     * Resolves the configuration and opens the channels (lazily connected).
     *
     * @return the client
     * @throws ConfigurationException on invalid options or environment values
     */
    public JobwireClient build() throws ConfigurationException {
      return new JobwireClient(ClientConfig.resolve(in, env), middleware, metricsRecorder, openTelemetry);
    }
  }
}
