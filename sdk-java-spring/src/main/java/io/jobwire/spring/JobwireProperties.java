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

  /** @return whether the client and the workers are created at all (unset: camunda.client.enabled, else true) */
  public Boolean getEnabled() {
    return enabled;
  }

  /** @param enabled whether the client and the workers are created at all (unset: camunda.client.enabled, else true) */
  public void setEnabled(Boolean enabled) {
    this.enabled = enabled;
  }

  /** @return how long the graceful close of the workers on application shutdown may take: running handlers get this long to finish (default 30 s, as spring.lifecycle.timeout-per-shutdown-phase) */
  public Duration getCloseTimeout() {
    return closeTimeout;
  }

  /** @param closeTimeout how long the graceful close of the workers on application shutdown may take: running handlers get this long to finish (default 30 s, as spring.lifecycle.timeout-per-shutdown-phase) */
  public void setCloseTimeout(Duration closeTimeout) {
    this.closeTimeout = closeTimeout;
  }

  /** @return the client options */
  public Client getClient() {
    return client;
  }

  /** @return the worker options */
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

    /** @return gateway address(es), host:port (a grpc:// or http:// scheme means plaintext, grpcs:// or https:// TLS); default 127.0.0.1:26500 */
    public List<String> getAddress() {
      return address;
    }

    /** @param address gateway address(es), host:port (a grpc:// or http:// scheme means plaintext, grpcs:// or https:// TLS); default 127.0.0.1:26500 */
    public void setAddress(List<String> address) {
      this.address = address;
    }

    /** @return plaintext (true) or TLS (false); default: plaintext for loopback addresses only */
    public Boolean getInsecure() {
      return insecure;
    }

    /** @param insecure plaintext (true) or TLS (false); default: plaintext for loopback addresses only */
    public void setInsecure(Boolean insecure) {
      this.insecure = insecure;
    }

    /** @return PEM file of the CA that signed the gateway's certificate (implies TLS) */
    public String getCaCertificatePath() {
      return caCertificatePath;
    }

    /** @param caCertificatePath PEM file of the CA that signed the gateway's certificate (implies TLS) */
    public void setCaCertificatePath(String caCertificatePath) {
      this.caCertificatePath = caCertificatePath;
    }

    /** @return mutual TLS: PEM client certificate (chain) */
    public String getClientCertificatePath() {
      return clientCertificatePath;
    }

    /** @param clientCertificatePath mutual TLS: PEM client certificate (chain) */
    public void setClientCertificatePath(String clientCertificatePath) {
      this.clientCertificatePath = clientCertificatePath;
    }

    /** @return mutual TLS: PEM private key (PKCS#8) of the client certificate */
    public String getClientPrivateKeyPath() {
      return clientPrivateKeyPath;
    }

    /** @param clientPrivateKeyPath mutual TLS: PEM private key (PKCS#8) of the client certificate */
    public void setClientPrivateKeyPath(String clientPrivateKeyPath) {
      this.clientPrivateKeyPath = clientPrivateKeyPath;
    }

    /** @return HTTP/2 keepalive ping interval (default 45 s) */
    public Duration getKeepAlive() {
      return keepAlive;
    }

    /** @param keepAlive HTTP/2 keepalive ping interval (default 45 s) */
    public void setKeepAlive(Duration keepAlive) {
      this.keepAlive = keepAlive;
    }

    /** @return deadline of client commands and of workers' outcome calls (default 30 s) */
    public Duration getCommandTimeout() {
      return commandTimeout;
    }

    /** @param commandTimeout deadline of client commands and of workers' outcome calls (default 30 s) */
    public void setCommandTimeout(Duration commandTimeout) {
      this.commandTimeout = commandTimeout;
    }

    /** @return HTTP/2 receive window of the long-call connections, bytes (default 8192) */
    public Integer getStreamWindowBytes() {
      return streamWindowBytes;
    }

    /** @param streamWindowBytes HTTP/2 receive window of the long-call connections, bytes (default 8192) */
    public void setStreamWindowBytes(Integer streamWindowBytes) {
      this.streamWindowBytes = streamWindowBytes;
    }

    /** @return OAuth client credentials */
    public OAuth getOauth() {
      return oauth;
    }

    /** @return transport back-off of polls, stream reopens and resends */
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

    /** @return OAuth client id */
    public String getClientId() {
      return clientId;
    }

    /** @param clientId OAuth client id */
    public void setClientId(String clientId) {
      this.clientId = clientId;
    }

    /** @return OAuth client secret */
    public String getClientSecret() {
      return clientSecret;
    }

    /** @param clientSecret OAuth client secret */
    public void setClientSecret(String clientSecret) {
      this.clientSecret = clientSecret;
    }

    /** @return token endpoint */
    public String getAuthorizationServerUrl() {
      return authorizationServerUrl;
    }

    /** @param authorizationServerUrl token endpoint */
    public void setAuthorizationServerUrl(String authorizationServerUrl) {
      this.authorizationServerUrl = authorizationServerUrl;
    }

    /** @return token audience */
    public String getAudience() {
      return audience;
    }

    /** @param audience token audience */
    public void setAudience(String audience) {
      this.audience = audience;
    }

    /** @return token scope */
    public String getScope() {
      return scope;
    }

    /** @param scope token scope */
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

    /** @return the first wait (default 50 ms) */
    public Duration getInitial() {
      return initial;
    }

    /** @param initial the first wait (default 50 ms) */
    public void setInitial(Duration initial) {
      this.initial = initial;
    }

    /** @return the longest wait (default 5 s) */
    public Duration getMax() {
      return max;
    }

    /** @param max the longest wait (default 5 s) */
    public void setMax(Duration max) {
      this.max = max;
    }

    /** @return growth per failure (default 1.6) */
    public Double getMultiplier() {
      return multiplier;
    }

    /** @param multiplier growth per failure (default 1.6) */
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

    /** @return options for every worker; a value set on the @JobWorker annotation wins over these */
    public WorkerOptions getDefaults() {
      return defaults;
    }

    /** @return options per job type; they win over the annotation and the defaults */
    public Map<String, WorkerOptions> getOverride() {
      return override;
    }

    /** @param override options per job type; they win over the annotation and the defaults */
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

    /** @return worker name recorded on each activated job (default: the host name) */
    public String getName() {
      return name;
    }

    /** @param name worker name recorded on each activated job (default: the host name) */
    public void setName(String name) {
      this.name = name;
    }

    /** @return capacity: jobs held at once (default 32) */
    public Integer getMaxJobsActive() {
      return maxJobsActive;
    }

    /** @param maxJobsActive capacity: jobs held at once (default 32) */
    public void setMaxJobsActive(Integer maxJobsActive) {
      this.maxJobsActive = maxJobsActive;
    }

    /** @return handlers running in parallel (default: max-jobs-active) */
    public Integer getConcurrency() {
      return concurrency;
    }

    /** @param concurrency handlers running in parallel (default: max-jobs-active) */
    public void setConcurrency(Integer concurrency) {
      this.concurrency = concurrency;
    }

    /** @return activation timeout (default 5 min) */
    public Duration getJobTimeout() {
      return jobTimeout;
    }

    /** @param jobTimeout activation timeout (default 5 min) */
    public void setJobTimeout(Duration jobTimeout) {
      this.jobTimeout = jobTimeout;
    }

    /** @return long-poll duration (default 10 s; negative turns long polling off) */
    public Duration getRequestTimeout() {
      return requestTimeout;
    }

    /** @param requestTimeout long-poll duration (default 10 s; negative turns long polling off) */
    public void setRequestTimeout(Duration requestTimeout) {
      this.requestTimeout = requestTimeout;
    }

    /** @return pause after an empty poll with long polling off (default 100 ms) */
    public Duration getPollInterval() {
      return pollInterval;
    }

    /** @param pollInterval pause after an empty poll with long polling off (default 100 ms) */
    public void setPollInterval(Duration pollInterval) {
      this.pollInterval = pollInterval;
    }

    /** @return push via StreamActivatedJobs, with backfill polling (default true) */
    public Boolean getStreamEnabled() {
      return streamEnabled;
    }

    /** @param streamEnabled push via StreamActivatedJobs, with backfill polling (default true) */
    public void setStreamEnabled(Boolean streamEnabled) {
      this.streamEnabled = streamEnabled;
    }

    /** @return recycle a healthy stream after this long (default 1 h) */
    public Duration getStreamTimeout() {
      return streamTimeout;
    }

    /** @param streamTimeout recycle a healthy stream after this long (default 1 h) */
    public void setStreamTimeout(Duration streamTimeout) {
      this.streamTimeout = streamTimeout;
    }

    /** @return variables to fetch (default: derived from the method's parameters) */
    public List<String> getFetchVariables() {
      return fetchVariables;
    }

    /** @param fetchVariables variables to fetch (default: derived from the method's parameters) */
    public void setFetchVariables(List<String> fetchVariables) {
      this.fetchVariables = fetchVariables;
    }

    /** @return tenants to activate jobs for (default: the default tenant) */
    public List<String> getTenantIds() {
      return tenantIds;
    }

    /** @param tenantIds tenants to activate jobs for (default: the default tenant) */
    public void setTenantIds(List<String> tenantIds) {
      this.tenantIds = tenantIds;
    }

    /** @return complete the job with the method's return value (default true) */
    public Boolean getAutoComplete() {
      return autoComplete;
    }

    /** @param autoComplete complete the job with the method's return value (default true) */
    public void setAutoComplete(Boolean autoComplete) {
      this.autoComplete = autoComplete;
    }

    /** @return extend the job timeout while the handler runs (default false) */
    public Boolean getAutoExtend() {
      return autoExtend;
    }

    /** @param autoExtend extend the job timeout while the handler runs (default false) */
    public void setAutoExtend(Boolean autoExtend) {
      this.autoExtend = autoExtend;
    }

    /** @return A fixed retry back-off instead of the default retry policy */
    public Duration getRetryBackOff() {
      return retryBackOff;
    }

    /** @param retryBackOff A fixed retry back-off instead of the default retry policy */
    public void setRetryBackOff(Duration retryBackOff) {
      this.retryBackOff = retryBackOff;
    }

    /** @return whether the client and the workers are created at all (unset: camunda.client.enabled, else true) */
    public Boolean getEnabled() {
      return enabled;
    }

    /** @param enabled whether the client and the workers are created at all (unset: camunda.client.enabled, else true) */
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
