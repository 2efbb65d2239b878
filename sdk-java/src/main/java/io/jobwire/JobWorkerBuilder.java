package io.jobwire;

import io.jobwire.internal.Transport;
import io.jobwire.internal.TypedInput;
import io.jobwire.internal.worker.RetryPolicies;
import io.jobwire.internal.worker.WorkerImpl;
import io.jobwire.internal.worker.WorkerOptions;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Builds a {@link JobWorker}; options are validated at {@link #open()}. Defaults are shared by
 * every jobwire SDK (docs/configuration.md).
 *
 * <pre>{@code
 * JobWorker w = client.newWorker()
 *     .jobType("charge")
 *     .handler(job -> Map.of("charged", true))
 *     .maxJobsActive(32)
 *     .open();
 * }</pre>
 */
public final class JobWorkerBuilder {
  private final JobwireClient client;
  private final Transport transport;
  private String jobType;
  private JobHandler handler;
  private String workerName;
  private int maxJobsActive = 32;
  private Integer concurrency;
  private Duration jobTimeout = Duration.ofMinutes(5);
  private Duration requestTimeout = Duration.ofSeconds(10);
  private Duration pollInterval = Duration.ofMillis(100);
  private boolean streamEnabled = true;
  private Duration streamTimeout = Duration.ofHours(1);
  private final List<String> fetchVariables = new ArrayList<>();
  private boolean fetchVariablesSet;
  private List<String> derivedFetchVariables;
  private final List<String> tenantIds = new ArrayList<>();
  private boolean autoComplete = true;
  private boolean autoExtend;
  private Duration retryBackOff = Duration.ZERO;
  private boolean retryBackOffSet;
  private RetryPolicy retryPolicy;
  private final List<Middleware> middleware = new ArrayList<>();
  private Consumer<WorkerState> stateListener;
  private Consumer<Throwable> errorListener;

  JobWorkerBuilder(JobwireClient client, Transport transport) {
    this.client = client;
    this.transport = transport;
  }

  /**
   * The job type to work on.
   *
   * @param jobType the {@code zeebe:taskDefinition type} to work on (required)
   * @return this builder
   */
  public JobWorkerBuilder jobType(String jobType) {
    this.jobType = jobType;
    return this;
  }

  /**
   * The handler run for each job.
   *
   * @param handler the handler (required)
   * @return this builder
   */
  public JobWorkerBuilder handler(JobHandler handler) {
    this.handler = handler;
    this.derivedFetchVariables = null;
    return this;
  }

  /**
   * A typed handler: the job's variables are decoded into {@code type} (a record or a bean,
   * with Jackson; {@code @JsonProperty} names and {@code required} honoured; no string-to-number
   * coercion; a missing primitive is invalid) before the handler runs. Unless
   * {@link #fetchVariables} is set, only the type's properties and {@code traceparent} (the job
   * span's parent) are fetched (a Map, a JsonNode or a type with {@code @JsonAnySetter} fetches
   * all). Input that does not fit fails the job with an
   * {@link InvalidInputException} naming the field, through the retry policy; the handler is not
   * called. What the handler returns completes the job (serialized like any handler result).
   *
   * @param type the input type
   * @param handler the handler (required)
   * @param <T> the input type
   * @return this builder
   */
  public <T> JobWorkerBuilder handler(Class<T> type, TypedJobHandler<T> handler) {
    if (type == null || handler == null) throw new IllegalArgumentException("jobwire: a typed handler needs a type and a handler");
    this.handler = job -> handler.handle(job, TypedInput.<T>decode(TypedInput.tree(job.variablesJson()), type));
    this.derivedFetchVariables = TypedInput.variableNames(type);
    return this;
  }

  /** A handler whose fetched variables were derived (a declarative worker's parameters); null = all. */
  JobWorkerBuilder derivedHandler(JobHandler handler, List<String> derived) {
    this.handler = handler;
    this.derivedFetchVariables = derived == null ? null : List.copyOf(derived);
    return this;
  }

  /**
   * Decides what a failure does (retry after a back-off, BPMN error, incident). Wins over
   * {@link #retryBackOff}; default: {@link RetryPolicy#defaultPolicy()}.
   *
   * @param policy the policy
   * @return this builder
   */
  public JobWorkerBuilder retryPolicy(RetryPolicy policy) {
    this.retryPolicy = policy;
    return this;
  }

  /**
   * Adds middleware around this worker's handler, after (inside) the client's
   * ({@link JobwireClient.Builder#middleware}), in the order given.
   *
   * @param middleware the middleware, outermost first
   * @return this builder
   */
  public JobWorkerBuilder middleware(Middleware... middleware) {
    for (Middleware m : middleware) {
      if (m == null) throw new IllegalArgumentException("jobwire: middleware must not be null");
      this.middleware.add(m);
    }
    return this;
  }

  /**
   * The worker name sent with each activation.
   *
   * @param name recorded on each activated job (default: the host name)
   * @return this builder
   */
  public JobWorkerBuilder workerName(String name) {
    this.workerName = name;
    return this;
  }

  /**
   * The worker's capacity.
   *
   * @param n capacity: jobs held at once, pushed and polled together (default 32)
   * @return this builder
   */
  public JobWorkerBuilder maxJobsActive(int n) {
    this.maxJobsActive = n;
    return this;
  }

  /**
   * How many handlers run at once.
   *
   * @param n handlers running in parallel (default: maxJobsActive; capped at it)
   * @return this builder
   */
  public JobWorkerBuilder concurrency(int n) {
    this.concurrency = n;
    return this;
  }

  /**
   * The activation timeout.
   *
   * @param d activation timeout sent to the engine (default 5 min)
   * @return this builder
   */
  public JobWorkerBuilder jobTimeout(Duration d) {
    this.jobTimeout = d;
    return this;
  }

  /**
   * The long-poll duration of each ActivateJobs call.
   *
   * @param d long-poll duration (default 10 s); the RPC deadline is this + 10 s; zero means the
   *     gateway's default; negative turns long polling off
   * @return this builder
   */
  public JobWorkerBuilder requestTimeout(Duration d) {
    this.requestTimeout = d;
    return this;
  }

  /**
   * The pause after an empty poll.
   *
   * @param d pause after an empty poll that was not parked (default 100 ms)
   * @return this builder
   */
  public JobWorkerBuilder pollInterval(Duration d) {
    this.pollInterval = d;
    return this;
  }

  /**
   * Whether jobs are also pushed.
   *
   * @param on receive jobs by push in addition to polling (default true)
   * @return this builder
   */
  public JobWorkerBuilder streamEnabled(boolean on) {
    this.streamEnabled = on;
    return this;
  }

  /**
   * How long a stream lives before it is recycled.
   *
   * @param d recycle a healthy stream after this long (default 1 h)
   * @return this builder
   */
  public JobWorkerBuilder streamTimeout(Duration d) {
    this.streamTimeout = d;
    return this;
  }

  /**
   * The variables fetched with each job.
   *
   * @param names variables to fetch (default: all, or a typed handler's properties and
   *     {@code traceparent}); set explicitly it always wins, an empty list meaning all
   * @return this builder
   */
  public JobWorkerBuilder fetchVariables(List<String> names) {
    this.fetchVariables.clear();
    this.fetchVariables.addAll(names);
    this.fetchVariablesSet = true;
    return this;
  }

  /**
   * The variables fetched with each job.
   *
   * @param names variables to fetch (default: all, or a typed handler's properties and
   *     {@code traceparent})
   * @return this builder
   */
  public JobWorkerBuilder fetchVariables(String... names) {
    return fetchVariables(List.of(names));
  }

  /**
   * The tenants to activate jobs for.
   *
   * @param ids tenants to activate jobs for (default: the default tenant)
   * @return this builder
   */
  public JobWorkerBuilder tenantIds(List<String> ids) {
    this.tenantIds.clear();
    this.tenantIds.addAll(ids);
    return this;
  }

  /**
   * Whether the handler's return value completes the job.
   *
   * @param on complete the job with the handler's return value (default true)
   * @return this builder
   */
  public JobWorkerBuilder autoComplete(boolean on) {
    this.autoComplete = on;
    return this;
  }

  /**
   * Whether the job's timeout is extended while the handler runs.
   *
   * @param on extend the job's timeout while the handler runs (default false)
   * @return this builder
   */
  public JobWorkerBuilder autoExtend(boolean on) {
    this.autoExtend = on;
    return this;
  }

  /**
   * A fixed back-off sent with FailJob instead of the default policy's exponential one (a
   * {@link NonRetryableException} is still an incident); {@link #retryPolicy} wins over it. Also
   * the back-off of a manual {@code job.fail(message)}.
   *
   * @param d back-off sent with FailJob when the handler throws (default: the default retry policy's; manual fail: 0)
   * @return this builder
   */
  public JobWorkerBuilder retryBackOff(Duration d) {
    this.retryBackOff = d;
    this.retryBackOffSet = true;
    return this;
  }

  /**
   * A listener of the worker's state.
   *
   * @param l called on every state transition (on the worker's control thread; keep it short)
   * @return this builder
   */
  public JobWorkerBuilder stateListener(Consumer<WorkerState> l) {
    this.stateListener = l;
    return this;
  }

  /**
   * @param l receives errors the application should see (auth, invalid requests, outcomes given
   *     up); without a listener they are logged at error level
   * @return this
   */
  public JobWorkerBuilder errorListener(Consumer<Throwable> l) {
    this.errorListener = l;
    return this;
  }

  /**
   * Validates the options and starts the worker.
   *
   * @return the running worker
   * @throws ConfigurationException on invalid options
   */
  public JobWorker open() throws ConfigurationException {
    if (jobType == null || jobType.trim().isEmpty()) throw new ConfigurationException("jobwire: a worker needs a jobType");
    if (handler == null) throw new ConfigurationException("jobwire: a worker needs a handler");
    if (maxJobsActive < 1) throw new ConfigurationException("jobwire: maxJobsActive must be >= 1, got " + maxJobsActive);
    if (concurrency != null && concurrency < 1) throw new ConfigurationException("jobwire: concurrency must be >= 1, got " + concurrency);
    positive("jobTimeout", jobTimeout);
    positive("streamTimeout", streamTimeout);
    if (requestTimeout == null) throw new ConfigurationException("jobwire: requestTimeout must not be null");
    if (pollInterval == null || pollInterval.isNegative()) throw new ConfigurationException("jobwire: pollInterval must be >= 0, got " + pollInterval);
    if (retryBackOff == null || retryBackOff.isNegative()) throw new ConfigurationException("jobwire: retryBackOff must be >= 0, got " + retryBackOff);
    for (String v : fetchVariables) if (v == null || v.isEmpty()) throw new ConfigurationException("jobwire: fetchVariables must not contain empty names");
    List<String> fetch = fetchVariablesToSend();
    RetryPolicy policy = effectivePolicy(retryPolicy, retryBackOffSet ? retryBackOff : null);
    List<Middleware> chain = new ArrayList<>(client.middleware());
    chain.addAll(middleware);
    JobHandler h = chain(chain, handler);
    if (client.isClosed()) throw new ConfigurationException("jobwire: the client is closed");
    String name = workerName;
    if (name == null || name.isEmpty()) name = hostName();
    int conc = Math.min(maxJobsActive, concurrency == null ? maxJobsActive : concurrency);
    WorkerOptions o =
        new WorkerOptions(jobType, h, name, maxJobsActive, conc, jobTimeout, requestTimeout, pollInterval, streamEnabled, streamTimeout,
            fetch, List.copyOf(tenantIds), autoComplete, autoExtend, retryBackOff, policy, stateListener, errorListener);
    WorkerImpl w = new WorkerImpl(transport, o, client::forget, client.metricsRecorder(), client.openTelemetry());
    client.track(w);
    w.start();
    return w;
  }

  /** The W3C trace context variable a job's span takes its parent from (Telemetry). */
  static final String TRACEPARENT = "traceparent";

  /**
   * The variables the worker fetches: the explicit list if set (empty: all), else the derived
   * list and {@code traceparent} (once, at the end: the job span's parent, so a typed worker does
   * not cut the trace; Jackson ignores it when the type has no such property), else all.
   */
  List<String> fetchVariablesToSend() {
    if (fetchVariablesSet || derivedFetchVariables == null) return List.copyOf(fetchVariables);
    List<String> fetch = new ArrayList<>(derivedFetchVariables);
    if (!fetch.isEmpty() && !fetch.contains(TRACEPARENT)) fetch.add(TRACEPARENT);
    return List.copyOf(fetch);
  }

  /** Precedence: the retry policy, else a fixed back-off set explicitly, else the default policy. */
  static RetryPolicy effectivePolicy(RetryPolicy policy, Duration explicitBackOff) {
    if (policy != null) return policy;
    if (explicitBackOff != null) return RetryPolicies.fixed(explicitBackOff);
    return RetryPolicy.defaultPolicy();
  }

  /** The handler wrapped by the middleware: {@code chain.get(0)} outermost. */
  static JobHandler chain(List<Middleware> chain, JobHandler handler) {
    JobHandler h = handler;
    for (int i = chain.size() - 1; i >= 0; i--) {
      Middleware m = chain.get(i);
      JobHandler inner = h;
      h = job -> m.handle(job, () -> inner.handle(job));
    }
    return h;
  }

  private static void positive(String name, Duration d) throws ConfigurationException {
    if (d == null || d.isNegative() || d.isZero()) throw new ConfigurationException("jobwire: " + name + " must be positive, got " + d);
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      return "jobwire-java";
    }
  }
}
