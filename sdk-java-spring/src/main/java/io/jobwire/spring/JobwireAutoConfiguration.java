package io.jobwire.spring;

import io.jobwire.ConfigurationException;
import io.jobwire.JobwireClient;
import io.jobwire.MetricsRecorder;
import io.jobwire.Middleware;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * jobwire for Spring Boot: a {@link JobwireClient} from the {@code jobwire.*} (and
 * {@code camunda.client.*}) properties, the {@code @JobWorker} methods of the context's beans run by
 * {@link JobwireLifecycle}, and, when the application has them, Micrometer meters
 * ({@link JobwireMicrometerRecorder}), the {@code jobwire} health indicator and the {@code jobwire}
 * Actuator endpoint. {@code jobwire.enabled=false} turns all of it off. An application's own
 * {@code JobwireClient} or {@code MetricsRecorder} bean replaces the one made here.
 */
@AutoConfiguration(afterName = {
    "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.export.prometheus.PrometheusMetricsExportAutoConfiguration"})
@Conditional(JobwireEnabledCondition.class)
@EnableConfigurationProperties(JobwireProperties.class)
public class JobwireAutoConfiguration {

  /** @return the collector of {@code @JobWorker} beans (static: a bean post-processor) */
  @Bean
  @ConditionalOnMissingBean
  public static JobWorkerBeans jobwireWorkerBeans() {
    return new JobWorkerBeans();
  }

  /**
   * @param properties the {@code jobwire.*} properties
   * @param env the environment ({@code camunda.client.*})
   * @return the effective settings
   */
  @Bean
  @ConditionalOnMissingBean
  public JobwireSettings jobwireSettings(JobwireProperties properties, Environment env) {
    return JobwireSettings.of(properties, env);
  }

  /**
   * The client: the configured options, the application's {@link MetricsRecorder} bean (or the
   * Micrometer one) and its {@link Middleware} beans in their order. Invalid options fail the
   * application's start with the SDK's {@link ConfigurationException}.
   *
   * @param settings the effective settings
   * @param recorder the metrics recorder, if any
   * @param middleware the middleware beans
   * @param openTelemetry the application's {@code OpenTelemetry} bean, if any (Spring Boot's
   *     OpenTelemetry auto-configuration makes one): the workers' spans and instruments go there
   *     instead of to {@code GlobalOpenTelemetry}
   * @return the client (closed by the context after the workers)
   * @throws ConfigurationException on invalid options
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public JobwireClient jobwireClient(JobwireSettings settings, ObjectProvider<MetricsRecorder> recorder,
      ObjectProvider<Middleware> middleware, ObjectProvider<io.opentelemetry.api.OpenTelemetry> openTelemetry)
      throws ConfigurationException {
    JobwireClient.Builder b = JobwireClient.builder();
    settings.applyTo(b);
    MetricsRecorder r = recorder.getIfUnique();
    if (r != null) b.metricsRecorder(r);
    io.opentelemetry.api.OpenTelemetry otel = openTelemetry.getIfUnique();
    if (otel != null) b.openTelemetry(otel);
    b.middleware(middleware.orderedStream().toArray(Middleware[]::new));
    return b.build();
  }

  /**
   * @param client the client
   * @param beans the {@code @JobWorker} beans
   * @param settings the effective settings
   * @return the lifecycle that opens and closes the workers
   */
  @Bean
  @ConditionalOnMissingBean
  public JobwireLifecycle jobwireLifecycle(JobwireClient client, JobWorkerBeans beans, JobwireSettings settings) {
    return new JobwireLifecycle(client, beans, settings);
  }

  /** Micrometer: the worker metrics in the application's registry. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterRegistry.class)
  @ConditionalOnBean(MeterRegistry.class)
  static class Micrometer {
    @Bean
    @ConditionalOnMissingBean(MetricsRecorder.class)
    JobwireMicrometerRecorder jobwireMicrometerRecorder(MeterRegistry registry) {
      return new JobwireMicrometerRecorder(registry);
    }
  }

  /** Actuator health: {@code jobwire}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  static class Health {
    @Bean
    @ConditionalOnMissingBean(name = "jobwireHealthIndicator")
    @ConditionalOnEnabledHealthIndicator("jobwire")
    JobwireHealthIndicator jobwireHealthIndicator(JobwireLifecycle lifecycle) {
      return new JobwireHealthIndicator(lifecycle);
    }
  }

  /** Actuator endpoint: {@code jobwire}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
  static class Endpoint {
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(endpoint = JobwireEndpoint.class)
    JobwireEndpoint jobwireEndpoint(JobwireLifecycle lifecycle, JobwireClient client) {
      return new JobwireEndpoint(lifecycle, client);
    }
  }
}
