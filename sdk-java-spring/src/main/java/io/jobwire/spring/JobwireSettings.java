package io.jobwire.spring;

import io.jobwire.JobwireClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.core.env.Environment;

/**
 * The effective settings: each {@code jobwire.*} value, else the matching {@code camunda.client.*}
 * one, else nothing (the SDK then reads its environment variables, then its defaults).
 */
public final class JobwireSettings {
  private final JobwireProperties jobwire;
  private final CamundaClientProperties camunda;
  private final JobwireProperties.WorkerOptions defaults;
  private final Map<String, JobwireProperties.WorkerOptions> overrides = new LinkedHashMap<>();

  JobwireSettings(JobwireProperties jobwire, CamundaClientProperties camunda) {
    this.jobwire = jobwire;
    this.camunda = camunda == null ? CamundaClientProperties.NONE : camunda;
    this.defaults = jobwire.getWorker().getDefaults().orElse(this.camunda.workerDefaults());
    Map<String, JobwireProperties.WorkerOptions> fromCamunda = this.camunda.workerOverrides();
    for (String type : fromCamunda.keySet()) overrides.put(type, fromCamunda.get(type));
    jobwire.getWorker().getOverride().forEach((type, o) -> overrides.put(type, o.orElse(fromCamunda.get(type))));
  }

  /**
   * Reads both property trees of an environment.
   *
   * @param jobwire the bound {@code jobwire.*} properties
   * @param env the environment (for {@code camunda.client.*})
   * @return the effective settings
   */
  public static JobwireSettings of(JobwireProperties jobwire, Environment env) {
    return new JobwireSettings(jobwire, CamundaClientProperties.read(env));
  }

  /** @return whether the client and workers are created ({@code jobwire.enabled}, else {@code camunda.client.enabled}, else true) */
  public boolean enabled() {
    if (jobwire.getEnabled() != null) return jobwire.getEnabled();
    return camunda.enabled() == null || camunda.enabled();
  }

  /** @return {@code jobwire.close-timeout} (default 30 s) */
  public Duration closeTimeout() {
    return jobwire.getCloseTimeout() != null ? jobwire.getCloseTimeout() : Duration.ofSeconds(30);
  }

  /** @return the worker defaults ({@code jobwire.worker.defaults}, else {@code camunda.client.worker.defaults}) */
  public JobwireProperties.WorkerOptions workerDefaults() {
    return defaults;
  }

  /**
   * The overrides of one job type, key by key: {@code jobwire.worker.override.<type>}, else
   * {@code camunda.client.worker.override.<type>}.
   *
   * @param jobType the job type
   * @return its overrides (all unset when none)
   */
  public JobwireProperties.WorkerOptions workerOverride(String jobType) {
    JobwireProperties.WorkerOptions o = overrides.get(jobType);
    return o != null ? o : new JobwireProperties.WorkerOptions();
  }

  /**
   * Sets every client option that is configured on {@code b}; the others stay unset, so the SDK
   * reads them from its environment variables, then its defaults.
   *
   * @param b the client builder
   */
  public void applyTo(JobwireClient.Builder b) {
    JobwireProperties.Client c = jobwire.getClient();
    List<String> addresses = c.getAddress();
    if (addresses != null && !addresses.isEmpty()) b.address(addresses.toArray(String[]::new));
    else if (notBlank(camunda.grpcAddress())) b.address(camunda.grpcAddress());
    if (c.getInsecure() != null) b.insecure(c.getInsecure());
    String ca = notBlank(c.getCaCertificatePath()) ? c.getCaCertificatePath() : camunda.caCertificatePath();
    if (notBlank(ca)) b.caCertificatePath(Path.of(ca));
    if (notBlank(c.getClientCertificatePath())) b.clientCertificatePath(Path.of(c.getClientCertificatePath()));
    if (notBlank(c.getClientPrivateKeyPath())) b.clientPrivateKeyPath(Path.of(c.getClientPrivateKeyPath()));
    Duration keepAlive = c.getKeepAlive() != null ? c.getKeepAlive() : camunda.keepAlive();
    if (keepAlive != null) b.keepAlive(keepAlive);
    Duration cmd = c.getCommandTimeout() != null ? c.getCommandTimeout() : camunda.requestTimeout();
    if (cmd != null) b.commandTimeout(cmd);
    if (c.getStreamWindowBytes() != null) b.streamWindowBytes(c.getStreamWindowBytes());
    JobwireProperties.OAuth o = c.getOauth();
    CamundaClientProperties.Auth a = camunda.auth() != null ? camunda.auth() : new CamundaClientProperties.Auth(null, null, null, null, null);
    String id = first(o.getClientId(), a.clientId());
    String secret = first(o.getClientSecret(), a.clientSecret());
    if (id != null || secret != null) {
      b.oauth(id, secret, first(o.getAuthorizationServerUrl(), a.tokenUrl()), first(o.getAudience(), a.audience()), first(o.getScope(), a.scope()));
    }
    JobwireProperties.Backoff bo = c.getBackoff();
    if (bo.getInitial() != null || bo.getMax() != null || bo.getMultiplier() != null) {
      var d = io.jobwire.internal.ClientConfig.TransportBackoff.DEFAULT; // the SDK's own defaults for the unset ones
      b.backoff(bo.getInitial() != null ? bo.getInitial() : d.initial(), bo.getMax() != null ? bo.getMax() : d.max(),
          bo.getMultiplier() != null ? bo.getMultiplier() : d.multiplier());
    }
  }

  private static boolean notBlank(String s) {
    return s != null && !s.isBlank();
  }

  private static String first(String a, String b) {
    return notBlank(a) ? a : notBlank(b) ? b : null;
  }
}
