package io.jobwire.spring;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The official Spring starter's {@code camunda.client.*} keys that have a jobwire counterpart, read
 * so that switching starters keeps an application's configuration (docs/spring-boot.md has the
 * table). A {@code jobwire.*} key always wins. Bound with Spring's {@link Binder}, so every source
 * works (YAML, environment variables such as {@code CAMUNDA_CLIENT_GRPCADDRESS}, ...).
 *
 * @param enabled {@code camunda.client.enabled} → {@code jobwire.enabled}
 * @param grpcAddress {@code camunda.client.grpc-address} → {@code jobwire.client.address}
 * @param caCertificatePath {@code camunda.client.ca-certificate-path} → {@code jobwire.client.ca-certificate-path}
 * @param keepAlive {@code camunda.client.keep-alive} → {@code jobwire.client.keep-alive}
 * @param requestTimeout {@code camunda.client.request-timeout} → {@code jobwire.client.command-timeout}
 * @param auth {@code camunda.client.auth.*} → {@code jobwire.client.oauth.*}
 * @param worker {@code camunda.client.worker.defaults.*} and {@code .override.<type>.*}
 */
record CamundaClientProperties(Boolean enabled, String grpcAddress, String caCertificatePath, Duration keepAlive,
    Duration requestTimeout, Auth auth, Worker worker) {

  /** The OAuth keys. */
  record Auth(String clientId, String clientSecret, String tokenUrl, String audience, String scope) {}

  /** The worker keys. */
  record Worker(WorkerOptions defaults, Map<String, WorkerOptions> override) {}

  /** The worker options both starters have ({@code timeout} is jobwire's {@code job-timeout}). */
  record WorkerOptions(String name, Integer maxJobsActive, Duration timeout, Duration requestTimeout, Duration pollInterval,
      Boolean streamEnabled, Duration streamTimeout, List<String> fetchVariables, List<String> tenantIds, Boolean autoComplete,
      Boolean enabled) {

    JobwireProperties.WorkerOptions toJobwire() {
      JobwireProperties.WorkerOptions o = new JobwireProperties.WorkerOptions();
      o.setName(name);
      o.setMaxJobsActive(maxJobsActive);
      o.setJobTimeout(timeout);
      o.setRequestTimeout(requestTimeout);
      o.setPollInterval(pollInterval);
      o.setStreamEnabled(streamEnabled);
      o.setStreamTimeout(streamTimeout);
      o.setFetchVariables(fetchVariables);
      o.setTenantIds(tenantIds);
      o.setAutoComplete(autoComplete);
      o.setEnabled(enabled);
      return o;
    }
  }

  static final CamundaClientProperties NONE = new CamundaClientProperties(null, null, null, null, null, null, null);

  /** @return the {@code camunda.client.*} keys of {@code env} (all null when none is set) */
  static CamundaClientProperties read(Environment env) {
    return Binder.get(env).bind("camunda.client", CamundaClientProperties.class).orElse(NONE);
  }

  /** @return the worker defaults in jobwire's form (never null) */
  JobwireProperties.WorkerOptions workerDefaults() {
    return worker != null && worker.defaults() != null ? worker.defaults().toJobwire() : new JobwireProperties.WorkerOptions();
  }

  /** @return the overrides per job type in jobwire's form (never null) */
  Map<String, JobwireProperties.WorkerOptions> workerOverrides() {
    Map<String, JobwireProperties.WorkerOptions> out = new LinkedHashMap<>();
    if (worker != null && worker.override() != null) worker.override().forEach((k, v) -> out.put(k, v.toJobwire()));
    return out;
  }
}
