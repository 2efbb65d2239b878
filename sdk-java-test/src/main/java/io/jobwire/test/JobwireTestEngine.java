package io.jobwire.test;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.jobwire.Deployment;
import io.jobwire.Job;
import io.jobwire.JobwireClient;
import io.jobwire.JobwireException;
import io.jobwire.NotFoundException;
import io.jobwire.admin.v1.AdminServiceGrpc;
import io.jobwire.admin.v1.AdvanceClockRequest;
import io.jobwire.admin.v1.ClearFaultsRequest;
import io.jobwire.admin.v1.GetClockRequest;
import io.jobwire.admin.v1.IncidentInfo;
import io.jobwire.admin.v1.InjectFaultRequest;
import io.jobwire.admin.v1.JobInfo;
import io.jobwire.admin.v1.JobState;
import io.jobwire.admin.v1.ListIncidentsRequest;
import io.jobwire.admin.v1.ListJobsRequest;
import io.jobwire.admin.v1.ListProcessInstancesRequest;
import io.jobwire.admin.v1.ProcessInstanceInfo;
import io.jobwire.admin.v1.ProcessInstanceState;
import io.jobwire.admin.v1.RejectFault;
import io.jobwire.admin.v1.ResetStateRequest;
import io.jobwire.admin.v1.ResetStreamsRequest;
import io.jobwire.admin.v1.RestartGatewayRequest;
import io.jobwire.admin.v1.SetClockRequest;
import io.jobwire.engine.JobwireEngine;
import io.jobwire.internal.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.opentest4j.AssertionFailedError;

/**
 * A running jobwire engine for process tests: its connected {@link #client()}, deploy and create
 * helpers, waits for an instance's end or incident, the engine's view of jobs and variables, job
 * stand-ins ({@link #completeJobs}), the engine clock and faults. {@link JobwireTest} gives one per
 * JVM, reset before each test; {@link #start()} starts one without JUnit (close it).
 */
public final class JobwireTestEngine implements AutoCloseable {
  static final Duration DEFAULT_WAIT = Duration.ofSeconds(10);
  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

  private final JobwireEngine engine;
  private final JobwireClient client;
  private final ManagedChannel adminChannel;
  private final AdminServiceGrpc.AdminServiceBlockingStub admin;
  private boolean closed;

  private JobwireTestEngine(JobwireEngine engine) throws IOException {
    this.engine = engine;
    try {
      this.client = JobwireClient.builder().address(engine.address()).insecure(true).build();
    } catch (io.jobwire.ConfigurationException | RuntimeException e) {
      engine.close();
      throw new IOException("jobwire: cannot connect to the engine at " + engine.address() + ": " + e.getMessage(), e);
    }
    this.adminChannel = Grpc.newChannelBuilder(engine.address(), InsecureChannelCredentials.create()).build();
    this.admin = AdminServiceGrpc.newBlockingStub(adminChannel);
  }

  /**
   * Starts an engine (io.jobwire:jobwire-engine, a free port on 127.0.0.1, a temporary data folder)
   * and connects a client to it. Without {@link JobwireTest}: close it when done.
   *
   * @return the running engine
   * @throws IOException when the engine binary is missing or does not start
   */
  public static JobwireTestEngine start() throws IOException {
    return new JobwireTestEngine(JobwireEngine.start());
  }

  /** @return the gateway address, "127.0.0.1:PORT" */
  public String address() {
    return engine.address();
  }

  /** @return a client connected to the engine (closed with the engine) */
  public JobwireClient client() {
    return client;
  }

  private AdminServiceGrpc.AdminServiceBlockingStub admin() {
    return admin.withDeadlineAfter(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static <T> T await(Future<T> f) {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("jobwire: interrupted", e);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof RuntimeException r) throw r;
      throw new CompletionException(c);
    }
  }

  /**
   * Deploys a BPMN (or DMN) file.
   *
   * @param file the resource file
   * @return the BPMN process ids it deployed
   */
  public List<String> deploy(Path file) {
    return ids(await(client.deployResource(file)));
  }

  /**
   * Deploys a resource given as a file path or as BPMN XML text (starting with {@code <}).
   *
   * @param pathOrXml a path, or the XML itself
   * @return the BPMN process ids it deployed
   */
  public List<String> deploy(String pathOrXml) {
    if (pathOrXml.stripLeading().startsWith("<")) {
      return ids(await(client.deployResource("process.bpmn", pathOrXml.getBytes(StandardCharsets.UTF_8))));
    }
    Path p = Path.of(pathOrXml);
    if (!Files.isRegularFile(p)) throw new IllegalArgumentException("jobwire: no such file: " + p.toAbsolutePath());
    return deploy(p);
  }

  private static List<String> ids(Deployment d) {
    return d.processes().stream().map(Deployment.Process::bpmnProcessId).toList();
  }

  /**
   * @param processId the BPMN process id (latest version)
   * @return the new instance's key
   */
  public long createInstance(String processId) {
    return createInstance(processId, null);
  }

  /**
   * @param processId the BPMN process id (latest version)
   * @param variables its variables (a map or any object the SDK serialises), or null
   * @return the new instance's key
   */
  public long createInstance(String processId, Object variables) {
    return await(client.createProcessInstance(processId, variables)).processInstanceKey();
  }

  private ProcessInstanceInfo instance(long key) {
    for (ProcessInstanceInfo i : admin().listProcessInstances(ListProcessInstancesRequest.newBuilder().setIncludeInstances(true).build()).getInstancesList()) {
      if (i.getKey() == key) return i;
    }
    return null;
  }

  /**
   * The instance's root-scope variables now.
   *
   * @param instance the process instance key
   * @return its variables
   * @throws NotFoundException when the engine does not know the instance (e.g. after a reset)
   */
  public Map<String, Object> variables(long instance) {
    ProcessInstanceInfo i = instance(instance);
    if (i == null) throw new NotFoundException("jobwire: the engine has no process instance " + instance, io.grpc.Status.Code.NOT_FOUND, "", null);
    return Json.parseObject(i.getVariables().isEmpty() ? "{}" : i.getVariables());
  }

  /**
   * {@link #awaitCompleted(long, Duration)} with a 10-second timeout.
   *
   * @param instance the process instance key
   * @return the instance's variables at its end
   */
  public Map<String, Object> awaitCompleted(long instance) {
    return awaitCompleted(instance, DEFAULT_WAIT);
  }

  /**
   * Waits until the instance completed.
   *
   * @param instance the process instance key
   * @param timeout how long to wait
   * @return the instance's variables at its end
   * @throws AssertionFailedError when it did not complete in time (with its state, variables,
   *     incidents and open jobs), or was cancelled
   */
  public Map<String, Object> awaitCompleted(long instance, Duration timeout) {
    long end = System.nanoTime() + timeout.toNanos();
    while (true) {
      ProcessInstanceInfo i = instance(instance);
      if (i != null && i.getState() == ProcessInstanceState.PROCESS_INSTANCE_STATE_COMPLETED) {
        return Json.parseObject(i.getVariables().isEmpty() ? "{}" : i.getVariables());
      }
      if (i != null && i.getState() == ProcessInstanceState.PROCESS_INSTANCE_STATE_CANCELED) {
        throw new AssertionFailedError("jobwire: process instance " + instance + " was cancelled, not completed\n" + describe(instance));
      }
      if (System.nanoTime() > end) {
        throw new AssertionFailedError("jobwire: process instance " + instance + " did not complete within " + timeout + "\n" + describe(instance));
      }
      sleep();
    }
  }

  /**
   * {@link #awaitIncident(long, Duration)} with a 10-second timeout.
   *
   * @param instance the process instance key
   * @return its first incident
   */
  public Incident awaitIncident(long instance) {
    return awaitIncident(instance, DEFAULT_WAIT);
  }

  /**
   * Waits until the instance has an open incident.
   *
   * @param instance the process instance key
   * @param timeout how long to wait
   * @return its first incident
   * @throws AssertionFailedError when none appeared in time (with the instance's state)
   */
  public Incident awaitIncident(long instance, Duration timeout) {
    long end = System.nanoTime() + timeout.toNanos();
    while (true) {
      List<IncidentInfo> l = admin().listIncidents(ListIncidentsRequest.newBuilder().setProcessInstanceKey(instance).build()).getIncidentsList();
      if (!l.isEmpty()) {
        IncidentInfo i = l.get(0);
        return new Incident(i.getType(), i.getMessage(), i.getKey(), i.getProcessInstanceKey(), i.getElementInstanceKey(), i.getJobKey());
      }
      if (System.nanoTime() > end) {
        throw new AssertionFailedError("jobwire: process instance " + instance + " has no incident after " + timeout + "\n" + describe(instance));
      }
      sleep();
    }
  }

  private static void sleep() {
    try {
      Thread.sleep(5);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("jobwire: interrupted", e);
    }
  }

  /** The instance's state, variables, incidents and open jobs, for failure messages. */
  String describe(long instance) {
    StringBuilder b = new StringBuilder();
    try {
      ProcessInstanceInfo i = instance(instance);
      if (i == null) return "  the engine does not know this instance";
      b.append("  state: ").append(i.getState().name().replace("PROCESS_INSTANCE_STATE_", "")).append('\n');
      b.append("  variables: ").append(i.getVariables().isEmpty() ? "{}" : i.getVariables()).append('\n');
      for (IncidentInfo x : admin().listIncidents(ListIncidentsRequest.newBuilder().setProcessInstanceKey(instance).build()).getIncidentsList()) {
        b.append("  incident ").append(x.getType()).append(": ").append(x.getMessage()).append('\n');
      }
      for (JobInfo j : admin().listJobs(ListJobsRequest.newBuilder().setIncludeJobs(true).build()).getJobsList()) {
        if (j.getProcessInstanceKey() != instance || !open(j.getState())) continue;
        b.append("  open job ").append(j.getKey()).append(" type ").append(j.getType()).append(" (")
            .append(j.getState().name().replace("JOB_STATE_", "")).append(", retries ").append(j.getRetries()).append(")\n");
      }
    } catch (RuntimeException e) {
      b.append("  (cannot read the instance: ").append(e.getMessage()).append(")\n");
    }
    return b.toString();
  }

  private static boolean open(JobState s) {
    return s == JobState.JOB_STATE_ACTIVATABLE || s == JobState.JOB_STATE_ACTIVATED || s == JobState.JOB_STATE_FAILED_BACKOFF
        || s == JobState.JOB_STATE_INCIDENT;
  }

  /**
   * The jobs of a type that wait for a worker or are held by one.
   *
   * @param jobType the job type
   * @return activatable and activated jobs of that type
   */
  public List<EngineJob> jobs(String jobType) {
    List<EngineJob> out = new ArrayList<>();
    for (JobInfo j : admin().listJobs(ListJobsRequest.newBuilder().setType(jobType).setIncludeJobs(true).build()).getJobsList()) {
      if (j.getState() != JobState.JOB_STATE_ACTIVATABLE && j.getState() != JobState.JOB_STATE_ACTIVATED) continue;
      out.add(new EngineJob(j.getKey(), j.getType(), j.getState().name().replace("JOB_STATE_", ""), j.getRetries(), j.getWorker(),
          j.getDeadline() == 0 ? null : Instant.ofEpochMilli(j.getDeadline()), j.getProcessInstanceKey(), j.getElementInstanceKey()));
    }
    return out;
  }

  /**
   * {@link #completeJobs(String, Object)} without variables.
   *
   * @param jobType the job type
   * @return how many jobs it completed
   */
  public int completeJobs(String jobType) {
    return completeJobs(jobType, null);
  }

  /**
   * Activates every activatable job of a type and completes it: a stand-in for a worker the test
   * does not run.
   *
   * @param jobType the job type
   * @param variables variables to complete each job with, or null
   * @return how many jobs it completed
   * @throws JobwireException the activation's error (e.g. an injected RESOURCE_EXHAUSTED)
   */
  public int completeJobs(String jobType, Object variables) {
    int n = 0;
    while (true) {
      List<Job> got = await(client.activateJobs(jobType, 1000, Duration.ofSeconds(30), "jobwire-test", Duration.ofMillis(-1)));
      if (got.isEmpty()) return n;
      for (Job j : got) await(client.completeJob(j.key(), variables));
      n += got.size();
    }
  }

  /**
   * Moves engine time forward and processes what became due (timers, job time-outs, retry
   * back-offs, message TTLs); returns once that is done.
   *
   * @param duration how far (not negative)
   * @return the engine time now
   */
  public Instant advanceClock(Duration duration) {
    if (duration.isNegative()) throw new IllegalArgumentException("jobwire: advanceClock needs a duration >= 0");
    return Instant.ofEpochMilli(call(() -> admin().advanceClock(AdvanceClockRequest.newBuilder().setDurationMs(duration.toMillis()).build()).getNowMs()));
  }

  /**
   * Sets engine time (never backwards) and processes what became due.
   *
   * @param time the new engine time
   * @return the engine time now
   */
  public Instant setClock(Instant time) {
    return Instant.ofEpochMilli(call(() -> admin().setClock(SetClockRequest.newBuilder().setEpochMs(time.toEpochMilli()).build()).getNowMs()));
  }

  /** @return the engine time */
  public Instant clock() {
    return Instant.ofEpochMilli(call(() -> admin().getClock(GetClockRequest.getDefaultInstance()).getNowMs()));
  }

  /** Drops every deployment, instance, job, message, incident, timer and fault; engine time back to wall time. */
  public void reset() {
    call(() -> admin().resetState(ResetStateRequest.getDefaultInstance()));
    clearFaults();
  }

  /**
   * The next {@code count} ActivateJobs calls (polls and {@link #completeJobs}) fail with
   * RESOURCE_EXHAUSTED, as under gateway backpressure.
   *
   * @param count how many calls
   */
  public void injectResourceExhausted(int count) {
    call(() -> admin().injectFault(InjectFaultRequest.newBuilder().setReject(RejectFault.newBuilder().setMethod("ActivateJobs")
        .setCode(io.grpc.Status.Code.RESOURCE_EXHAUSTED.value()).setCount(count).setMessage("jobwire-test: injected backpressure")).build()));
  }

  /** Ends every open job stream and parked long poll with UNAVAILABLE, as a gateway restart does; workers reconnect. */
  public void dropStreams() {
    call(() -> admin().resetStreams(ResetStreamsRequest.newBuilder().setIncludeLongPolls(true).build()));
  }

  /** Restarts the gateway (an engine started in cluster mode only; the single-process engine refuses with UNIMPLEMENTED). */
  public void restartGateway() {
    call(() -> admin().restartGateway(RestartGatewayRequest.newBuilder().setIndex(0).build()));
  }

  /** Removes every injected fault. */
  public void clearFaults() {
    call(() -> admin().clearFaults(ClearFaultsRequest.getDefaultInstance()));
  }

  private static <T> T call(java.util.function.Supplier<T> c) {
    try {
      return c.get();
    } catch (StatusRuntimeException e) {
      throw JobwireException.from(e, "admin");
    }
  }

  /** Closes the client and stops the engine (idempotent). */
  @Override
  public synchronized void close() {
    if (closed) return;
    closed = true;
    try {
      client.close(Duration.ofSeconds(5));
    } finally {
      adminChannel.shutdownNow();
      engine.close();
    }
  }
}
