package io.jobwire.testing;

import io.jobwire.internal.Json;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A job to run a handler on ({@link TestJobs#runHandler(io.jobwire.JobHandler, TestJob)}): the fields
 * of an activated job. The handler receives the SDK's own {@link io.jobwire.Job}, built from these
 * fields exactly as the worker builds it from a job the gateway sent.
 */
public final class TestJob {
  private static final AtomicLong KEYS = new AtomicLong(2251799813685249L);

  private final long key;
  private final String jobType;
  private final Map<String, Object> variables;
  private final Map<String, String> customHeaders;
  private final int retries;
  private final Instant deadline;
  private final long processInstanceKey;
  private final String bpmnProcessId;
  private final int processDefinitionVersion;
  private final long processDefinitionKey;
  private final String elementId;
  private final long elementInstanceKey;
  private final String worker;
  private final String tenantId;

  private TestJob(Builder b) {
    key = b.key != null ? b.key : KEYS.getAndIncrement();
    jobType = b.jobType;
    variables = Collections.unmodifiableMap(new LinkedHashMap<>(b.variables)); // null values allowed
    customHeaders = Collections.unmodifiableMap(new LinkedHashMap<>(b.customHeaders));
    retries = b.retries;
    deadline = b.deadline;
    processInstanceKey = b.processInstanceKey != null ? b.processInstanceKey : KEYS.getAndIncrement();
    bpmnProcessId = b.bpmnProcessId;
    processDefinitionVersion = b.processDefinitionVersion;
    processDefinitionKey = b.processDefinitionKey;
    elementId = b.elementId;
    elementInstanceKey = b.elementInstanceKey != null ? b.elementInstanceKey : KEYS.getAndIncrement();
    worker = b.worker;
    tenantId = b.tenantId;
  }

  /** @return a builder with the defaults: job type "test", 3 retries, element "task", no variables */
  public static Builder builder() {
    return new Builder();
  }

  /** @return the job key */
  public long key() {
    return key;
  }

  /** @return the job type */
  public String jobType() {
    return jobType;
  }

  /** @return the job's variables */
  public Map<String, Object> variables() {
    return variables;
  }

  /** @return the task's custom headers */
  public Map<String, String> customHeaders() {
    return customHeaders;
  }

  /** @return the retries left */
  public int retries() {
    return retries;
  }

  /** @return the activation deadline, or null for "now + the run's job timeout" */
  public Instant deadline() {
    return deadline;
  }

  /** @return the process instance key */
  public long processInstanceKey() {
    return processInstanceKey;
  }

  /** @return the BPMN process id */
  public String bpmnProcessId() {
    return bpmnProcessId;
  }

  /** @return the element id of the task */
  public String elementId() {
    return elementId;
  }

  /** The raw activated job (the worker's input), deadline from {@code defaultDeadlineMs} when unset. */
  io.jobwire.internal.gateway.GatewayOuterClass.ActivatedJob toActivated(long defaultDeadlineMs) {
    return io.jobwire.internal.gateway.GatewayOuterClass.ActivatedJob.newBuilder()
        .setKey(key)
        .setType(jobType)
        .setProcessInstanceKey(processInstanceKey)
        .setBpmnProcessId(bpmnProcessId)
        .setProcessDefinitionVersion(processDefinitionVersion)
        .setProcessDefinitionKey(processDefinitionKey)
        .setElementId(elementId)
        .setElementInstanceKey(elementInstanceKey)
        .setCustomHeaders(Json.variablesToJson(customHeaders, "custom headers of a test job"))
        .setWorker(worker)
        .setRetries(retries)
        .setDeadline(deadline != null ? deadline.toEpochMilli() : defaultDeadlineMs)
        .setVariables(Json.variablesToJson(variables, "variables of a test job"))
        .setTenantId(tenantId)
        .build();
  }

  /** Builds a {@link TestJob}. */
  public static final class Builder {
    private Long key;
    private String jobType = "test";
    private final Map<String, Object> variables = new LinkedHashMap<>();
    private final Map<String, String> customHeaders = new LinkedHashMap<>();
    private int retries = 3;
    private Instant deadline;
    private Long processInstanceKey;
    private String bpmnProcessId = "process";
    private int processDefinitionVersion = 1;
    private long processDefinitionKey = 2251799813685248L;
    private String elementId = "task";
    private Long elementInstanceKey;
    private String worker = "jobwire-test";
    private String tenantId = "<default>";

    private Builder() {}

    /**
     * @param variables the job's variables (added to those set before; values as the SDK serialises them)
     * @return this builder
     */
    public Builder variables(Map<String, ?> variables) {
      this.variables.putAll(variables);
      return this;
    }

    /**
     * @param name a variable name
     * @param value its value
     * @return this builder
     */
    public Builder variable(String name, Object value) {
      variables.put(name, value);
      return this;
    }

    /**
     * @param headers the task's custom headers (added to those set before)
     * @return this builder
     */
    public Builder customHeaders(Map<String, String> headers) {
      customHeaders.putAll(headers);
      return this;
    }

    /**
     * @param name a custom header name
     * @param value its value
     * @return this builder
     */
    public Builder customHeader(String name, String value) {
      customHeaders.put(name, value);
      return this;
    }

    /**
     * @param retries retries left (default 3)
     * @return this builder
     */
    public Builder retries(int retries) {
      if (retries < 0) throw new IllegalArgumentException("retries must be >= 0");
      this.retries = retries;
      return this;
    }

    /**
     * @param deadline the activation deadline (default: when the handler starts plus the run's job timeout)
     * @return this builder
     */
    public Builder deadline(Instant deadline) {
      this.deadline = deadline;
      return this;
    }

    /**
     * @param jobType the job type (default "test")
     * @return this builder
     */
    public Builder jobType(String jobType) {
      this.jobType = jobType;
      return this;
    }

    /**
     * @param key the job key (default: a new one per job)
     * @return this builder
     */
    public Builder key(long key) {
      this.key = key;
      return this;
    }

    /**
     * @param processInstanceKey the process instance key (default: a new one per job)
     * @return this builder
     */
    public Builder processInstanceKey(long processInstanceKey) {
      this.processInstanceKey = processInstanceKey;
      return this;
    }

    /**
     * @param bpmnProcessId the BPMN process id (default "process")
     * @return this builder
     */
    public Builder bpmnProcessId(String bpmnProcessId) {
      this.bpmnProcessId = bpmnProcessId;
      return this;
    }

    /**
     * @param elementId the task's element id (default "task")
     * @return this builder
     */
    public Builder elementId(String elementId) {
      this.elementId = elementId;
      return this;
    }

    /**
     * @param tenantId the tenant (default "&lt;default&gt;")
     * @return this builder
     */
    public Builder tenantId(String tenantId) {
      this.tenantId = tenantId;
      return this;
    }

    /** @return the job */
    public TestJob build() {
      return new TestJob(this);
    }
  }
}
