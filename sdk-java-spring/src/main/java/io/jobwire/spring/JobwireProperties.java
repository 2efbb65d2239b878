package io.jobwire.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * The {@code jobwire.*} properties: the client options of docs/configuration.md under
 * {@code jobwire.client}, the worker options under {@code jobwire.worker.defaults} and
 * {@code jobwire.worker.override.<job type>}, and the lifecycle settings. An unset option falls
 * back to the matching {@code camunda.client.*} key, then to the SDK (its environment variables,
 * then its defaults).
 */
@ConfigurationProperties(prefix = "jobwire")
public class JobwireProperties {
  /** Whether the client and the workers are created at all (unset: camunda.client.enabled, else true). */
  private Boolean enabled;

  /**
   * How long the graceful close of the workers on application shutdown may take: running handlers
   * get this long to finish (default 30 s, as spring.lifecycle.timeout-per-shutdown-phase).
   */
  private Duration closeTimeout = Duration.ofSeconds(30);

  /** The client options. */
  private final Client client = new Client();

  /** The worker options. */
  private final Worker worker = new Worker();

  public Boolean getEnabled() {
    return enabled;
  }

  public void setEnabled(Boolean enabled) {
    this.enabled = enabled;
  }

  public Duration getCloseTimeout() {
    return closeTimeout;
  }

  public void setCloseTimeout(Duration closeTimeout) {
    this.closeTimeout = closeTimeout;
  }

  public Client getClient() {
    return client;
  }

  public Worker getWorker() {
    return worker;
  }

  /** Client options (docs/configuration.md, Client); unset ones come from the environment, then the SDK defaults. */
  public static class Client {
    /** Gateway address(es), host:port (a grpc:// or http:// scheme means plaintext, grpcs:// or https:// TLS); default 127.0.0.1:26500. */
    private List<String> address = new ArrayList<>();

    /** Plaintext (true) or TLS (false); default: plaintext for loopback addresses only. */
    private Boolean insecure;

    /** PEM file of the CA that signed the gateway's certificate (implies TLS). */
    private String caCertificatePath;

    /** Mutual TLS: PEM client certificate (chain). */
    private String clientCertificatePath;

    /** Mutual TLS: PEM private key (PKCS#8) of the client certificate. */
    private String clientPrivateKeyPath;

    /** HTTP/2 keepalive ping interval (default 45 s). */
    private Duration keepAlive;

    /** Deadline of client commands and of workers' outcome calls (default 30 s). */
    private Duration commandTimeout;

    /** HTTP/2 receive window of the long-call connections, bytes (default 8192). */
    private Integer streamWindowBytes;

    /** OAuth client credentials. */
    @NestedConfigurationProperty
    private final OAuth oauth = new OAuth();

    /** Transport back-off of polls, stream reopens and resends. */
    @NestedConfigurationProperty
    private final Backoff backoff = new Backoff();

    public List<String> getAddress() {
      return address;
    }

    public void setAddress(List<String> address) {
      this.address = address;
    }

    public Boolean getInsecure() {
      return insecure;
    }

    public void setInsecure(Boolean insecure) {
      this.insecure = insecure;
    }

    public String getCaCertificatePath() {
      return caCertificatePath;
    }

    public void setCaCertificatePath(String caCertificatePath) {
      this.caCertificatePath = caCertificatePath;
    }

    public String getClientCertificatePath() {
      return clientCertificatePath;
    }

    public void setClientCertificatePath(String clientCertificatePath) {
      this.clientCertificatePath = clientCertificatePath;
    }

    public String getClientPrivateKeyPath() {
      return clientPrivateKeyPath;
    }

    public void setClientPrivateKeyPath(String clientPrivateKeyPath) {
      this.clientPrivateKeyPath = clientPrivateKeyPath;
    }

    public Duration getKeepAlive() {
      return keepAlive;
    }

    public void setKeepAlive(Duration keepAlive) {
      this.keepAlive = keepAlive;
    }

    public Duration getCommandTimeout() {
      return commandTimeout;
    }

    public void setCommandTimeout(Duration commandTimeout) {
      this.commandTimeout = commandTimeout;
    }

    public Integer getStreamWindowBytes() {
      return streamWindowBytes;
    }

    public void setStreamWindowBytes(Integer streamWindowBytes) {
      this.streamWindowBytes = streamWindowBytes;
    }

    public OAuth getOauth() {
      return oauth;
    }

    public Backoff getBackoff() {
      return backoff;
    }
  }

  /** OAuth client credentials: id, secret and URL together turn OAuth on. */
  public static class OAuth {
    /** OAuth client id. */
    private String clientId;

    /** OAuth client secret. */
    private String clientSecret;

    /** Token endpoint. */
    private String authorizationServerUrl;

    /** Token audience. */
    private String audience;

    /** Token scope. */
    private String scope;

    public String getClientId() {
      return clientId;
    }

    public void setClientId(String clientId) {
      this.clientId = clientId;
    }

    public String getClientSecret() {
      return clientSecret;
    }

    public void setClientSecret(String clientSecret) {
      this.clientSecret = clientSecret;
    }

    public String getAuthorizationServerUrl() {
      return authorizationServerUrl;
    }

    public void setAuthorizationServerUrl(String authorizationServerUrl) {
      this.authorizationServerUrl = authorizationServerUrl;
    }

    public String getAudience() {
      return audience;
    }

    public void setAudience(String audience) {
      this.audience = audience;
    }

    public String getScope() {
      return scope;
    }

    public void setScope(String scope) {
      this.scope = scope;
    }
  }

  /** Transport back-off: set all three or none. */
  public static class Backoff {
    /** The first wait (default 50 ms). */
    private Duration initial;

    /** The longest wait (default 5 s). */
    private Duration max;

    /** Growth per failure (default 1.6). */
    private Double multiplier;

    public Duration getInitial() {
      return initial;
    }

    public void setInitial(Duration initial) {
      this.initial = initial;
    }

    public Duration getMax() {
      return max;
    }

    public void setMax(Duration max) {
      this.max = max;
    }

    public Double getMultiplier() {
      return multiplier;
    }

    public void setMultiplier(Double multiplier) {
      this.multiplier = multiplier;
    }
  }

  /** Worker options: defaults for every {@code @JobWorker}, and overrides per job type. */
  public static class Worker {
    /** Options for every worker; a value set on the @JobWorker annotation wins over these. */
    @NestedConfigurationProperty
    private final WorkerOptions defaults = new WorkerOptions();

    /** Options per job type; they win over the annotation and the defaults. */
    private Map<String, WorkerOptions> override = new LinkedHashMap<>();

    public WorkerOptions getDefaults() {
      return defaults;
    }

    public Map<String, WorkerOptions> getOverride() {
      return override;
    }

    public void setOverride(Map<String, WorkerOptions> override) {
      this.override = override;
    }
  }

  /** The options of one worker (docs/configuration.md, Worker); unset ones keep the SDK defaults. */
  public static class WorkerOptions {
    /** Worker name recorded on each activated job (default: the host name). */
    private String name;

    /** Capacity: jobs held at once (default 32). */
    private Integer maxJobsActive;

    /** Handlers running in parallel (default: max-jobs-active). */
    private Integer concurrency;

    /** Activation timeout (default 5 min). */
    private Duration jobTimeout;

    /** Long-poll duration (default 10 s; negative turns long polling off). */
    private Duration requestTimeout;

    /** Pause after an empty poll with long polling off (default 100 ms). */
    private Duration pollInterval;

    /** Push via StreamActivatedJobs, with backfill polling (default true). */
    private Boolean streamEnabled;

    /** Recycle a healthy stream after this long (default 1 h). */
    private Duration streamTimeout;

    /** Variables to fetch (default: derived from the method's parameters). */
    private List<String> fetchVariables;

    /** Tenants to activate jobs for (default: the default tenant). */
    private List<String> tenantIds;

    /** Complete the job with the method's return value (default true). */
    private Boolean autoComplete;

    /** Extend the job timeout while the handler runs (default false). */
    private Boolean autoExtend;

    /** A fixed retry back-off instead of the default retry policy. */
    private Duration retryBackOff;

    /** Whether the worker is opened (default true). */
    private Boolean enabled;

    public String getName() {
      return name;
    }

    public void setName(String name) {
      this.name = name;
    }

    public Integer getMaxJobsActive() {
      return maxJobsActive;
    }

    public void setMaxJobsActive(Integer maxJobsActive) {
      this.maxJobsActive = maxJobsActive;
    }

    public Integer getConcurrency() {
      return concurrency;
    }

    public void setConcurrency(Integer concurrency) {
      this.concurrency = concurrency;
    }

    public Duration getJobTimeout() {
      return jobTimeout;
    }

    public void setJobTimeout(Duration jobTimeout) {
      this.jobTimeout = jobTimeout;
    }

    public Duration getRequestTimeout() {
      return requestTimeout;
    }

    public void setRequestTimeout(Duration requestTimeout) {
      this.requestTimeout = requestTimeout;
    }

    public Duration getPollInterval() {
      return pollInterval;
    }

    public void setPollInterval(Duration pollInterval) {
      this.pollInterval = pollInterval;
    }

    public Boolean getStreamEnabled() {
      return streamEnabled;
    }

    public void setStreamEnabled(Boolean streamEnabled) {
      this.streamEnabled = streamEnabled;
    }

    public Duration getStreamTimeout() {
      return streamTimeout;
    }

    public void setStreamTimeout(Duration streamTimeout) {
      this.streamTimeout = streamTimeout;
    }

    public List<String> getFetchVariables() {
      return fetchVariables;
    }

    public void setFetchVariables(List<String> fetchVariables) {
      this.fetchVariables = fetchVariables;
    }

    public List<String> getTenantIds() {
      return tenantIds;
    }

    public void setTenantIds(List<String> tenantIds) {
      this.tenantIds = tenantIds;
    }

    public Boolean getAutoComplete() {
      return autoComplete;
    }

    public void setAutoComplete(Boolean autoComplete) {
      this.autoComplete = autoComplete;
    }

    public Boolean getAutoExtend() {
      return autoExtend;
    }

    public void setAutoExtend(Boolean autoExtend) {
      this.autoExtend = autoExtend;
    }

    public Duration getRetryBackOff() {
      return retryBackOff;
    }

    public void setRetryBackOff(Duration retryBackOff) {
      this.retryBackOff = retryBackOff;
    }

    public Boolean getEnabled() {
      return enabled;
    }

    public void setEnabled(Boolean enabled) {
      this.enabled = enabled;
    }

    /** @return these options, each unset one taken from {@code fallback} (null: none) */
    WorkerOptions orElse(WorkerOptions fallback) {
      WorkerOptions f = fallback == null ? new WorkerOptions() : fallback;
      WorkerOptions o = new WorkerOptions();
      o.name = name != null ? name : f.name;
      o.maxJobsActive = maxJobsActive != null ? maxJobsActive : f.maxJobsActive;
      o.concurrency = concurrency != null ? concurrency : f.concurrency;
      o.jobTimeout = jobTimeout != null ? jobTimeout : f.jobTimeout;
      o.requestTimeout = requestTimeout != null ? requestTimeout : f.requestTimeout;
      o.pollInterval = pollInterval != null ? pollInterval : f.pollInterval;
      o.streamEnabled = streamEnabled != null ? streamEnabled : f.streamEnabled;
      o.streamTimeout = streamTimeout != null ? streamTimeout : f.streamTimeout;
      o.fetchVariables = fetchVariables != null ? fetchVariables : f.fetchVariables;
      o.tenantIds = tenantIds != null ? tenantIds : f.tenantIds;
      o.autoComplete = autoComplete != null ? autoComplete : f.autoComplete;
      o.autoExtend = autoExtend != null ? autoExtend : f.autoExtend;
      o.retryBackOff = retryBackOff != null ? retryBackOff : f.retryBackOff;
      o.enabled = enabled != null ? enabled : f.enabled;
      return o;
    }

    /** Sets every option that is set here on {@code b}. */
    void applyTo(io.jobwire.JobWorkerBuilder b) {
      if (name != null && !name.isEmpty()) b.workerName(name);
      if (maxJobsActive != null) b.maxJobsActive(maxJobsActive);
      if (concurrency != null) b.concurrency(concurrency);
      if (jobTimeout != null) b.jobTimeout(jobTimeout);
      if (requestTimeout != null) b.requestTimeout(requestTimeout);
      if (pollInterval != null) b.pollInterval(pollInterval);
      if (streamEnabled != null) b.streamEnabled(streamEnabled);
      if (streamTimeout != null) b.streamTimeout(streamTimeout);
      if (fetchVariables != null) b.fetchVariables(fetchVariables);
      if (tenantIds != null) b.tenantIds(tenantIds);
      if (autoComplete != null) b.autoComplete(autoComplete);
      if (autoExtend != null) b.autoExtend(autoExtend);
      if (retryBackOff != null) b.retryBackOff(retryBackOff);
    }
  }
}
