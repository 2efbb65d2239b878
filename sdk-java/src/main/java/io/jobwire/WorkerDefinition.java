package io.jobwire;

import java.time.Duration;
import java.util.List;

/**
 * A declarative worker read from a {@code @JobWorker} method by {@link WorkerScanner#scan}: its
 * job type, its handler (the method, with its parameters filled from the job) and its options. No
 * client is needed to read it; {@link #builder(JobwireClient)} turns it into a configured
 * {@link JobWorkerBuilder}, which can still be changed before {@code open()} (a retry policy,
 * middleware, another option). Immutable.
 *
 * <pre>{@code
 * for (WorkerDefinition d : WorkerScanner.scan(new OrderWorkers())) {
 *   d.withJobType("charge-" + region).builder(client).retryPolicy(policy).open();
 * }
 * }</pre>
 */
public final class WorkerDefinition {
  private final String jobType;
  private final JobHandler handler;
  private final List<String> derivedFetchVariables;
  private final Options options;

  /** The annotation's options, parsed. */
  record Options(String workerName, int maxJobsActive, int concurrency, Duration jobTimeout, List<String> fetchVariables,
      boolean fetchAllVariables, boolean autoComplete, boolean streamEnabled, boolean autoExtend, List<String> tenantIds,
      Duration retryBackOff) {}

  WorkerDefinition(String jobType, JobHandler handler, List<String> derivedFetchVariables, Options options) {
    this.jobType = jobType;
    this.handler = handler;
    this.derivedFetchVariables = derivedFetchVariables;
    this.options = options;
  }

  /** @return the job type (the annotation's {@code type}, else the method's name, unless overridden) */
  public String jobType() {
    return jobType;
  }

  /**
   * The same worker for another job type: annotation values are constants, so a type known only
   * at run time (a configuration value, a test's unique type) is set here.
   *
   * @param jobType the job type
   * @return a copy with this job type
   */
  public WorkerDefinition withJobType(String jobType) {
    if (jobType == null || jobType.trim().isEmpty()) throw new IllegalArgumentException("jobwire: a worker needs a jobType");
    return new WorkerDefinition(jobType, handler, derivedFetchVariables, options);
  }

  /**
   * A worker builder on {@code client} with this definition's type, handler and options
   * (the variables fetched: the annotation's {@code fetchVariables} if given, else derived from
   * the method's parameters); the client's middleware applies as for every worker.
   *
   * @param client the client
   * @return the configured builder; {@code open()} starts the worker
   */
  public JobWorkerBuilder builder(JobwireClient client) {
    return builder(client, b -> {});
  }

  /**
   * A worker builder on {@code client} as {@link #builder(JobwireClient)}, with {@code defaults}
   * applied first: the values the annotation sets (those that differ from the annotation's
   * defaults) win over them, as in a framework's {@code worker.defaults} settings.
   *
   * @param client the client
   * @param defaults sets options on the fresh builder before the annotation's values
   * @return the configured builder; {@code open()} starts the worker
   */
  public JobWorkerBuilder builder(JobwireClient client, java.util.function.Consumer<JobWorkerBuilder> defaults) {
    JobWorkerBuilder b = client.newWorker();
    defaults.accept(b);
    b.jobType(jobType).derivedHandler(handler, derivedFetchVariables);
    Options o = options;
    if (!o.workerName().isEmpty()) b.workerName(o.workerName());
    if (o.maxJobsActive() != 0) b.maxJobsActive(o.maxJobsActive());
    if (o.concurrency() != 0) b.concurrency(o.concurrency());
    if (o.jobTimeout() != null) b.jobTimeout(o.jobTimeout());
    if (!o.fetchVariables().isEmpty()) b.fetchVariables(o.fetchVariables());
    else if (o.fetchAllVariables()) b.fetchVariables(List.of());
    if (!o.autoComplete()) b.autoComplete(false);
    if (!o.streamEnabled()) b.streamEnabled(false);
    if (o.autoExtend()) b.autoExtend(true);
    if (!o.tenantIds().isEmpty()) b.tenantIds(o.tenantIds());
    if (o.retryBackOff() != null) b.retryBackOff(o.retryBackOff());
    return b;
  }

  @Override
  public String toString() {
    return "WorkerDefinition[" + jobType + "]";
  }
}
