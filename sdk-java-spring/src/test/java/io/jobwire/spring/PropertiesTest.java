package io.jobwire.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.jobwire.ConfigurationException;
import io.jobwire.JobwireClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Binding of {@code jobwire.*} and {@code camunda.client.*}, and which one wins (no engine needed). */
class PropertiesTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(JobwireAutoConfiguration.class));

  @Test
  void jobwirePropertiesBindEveryClientAndWorkerOption() {
    runner.withPropertyValues(
        "jobwire.client.address=grpc://10.1.2.3:1234,10.1.2.4",
        "jobwire.client.keep-alive=50s", "jobwire.client.command-timeout=7s", "jobwire.client.stream-window-bytes=16384",
        "jobwire.client.backoff.initial=100ms", "jobwire.client.backoff.max=2s", "jobwire.client.backoff.multiplier=2",
        "jobwire.close-timeout=12s",
        "jobwire.worker.defaults.max-jobs-active=7", "jobwire.worker.defaults.job-timeout=PT2M", "jobwire.worker.defaults.request-timeout=5s",
        "jobwire.worker.defaults.poll-interval=250ms", "jobwire.worker.defaults.stream-enabled=false", "jobwire.worker.defaults.stream-timeout=10m",
        "jobwire.worker.defaults.fetch-variables=a,b", "jobwire.worker.defaults.tenant-ids=t1", "jobwire.worker.defaults.name=w",
        "jobwire.worker.defaults.concurrency=3", "jobwire.worker.defaults.auto-complete=false", "jobwire.worker.defaults.auto-extend=true",
        "jobwire.worker.defaults.retry-back-off=3s",
        "jobwire.worker.override.charge.max-jobs-active=1", "jobwire.worker.override.charge.enabled=false")
        .run(ctx -> {
          assertThat(ctx).hasNotFailed();
          JobwireClient c = ctx.getBean(JobwireClient.class);
          assertThat(c.addresses()).containsExactly("10.1.2.3:1234", "10.1.2.4:26500");
          assertThat(c.isInsecure()).isTrue();
          JobwireSettings s = ctx.getBean(JobwireSettings.class);
          assertThat(s.closeTimeout()).isEqualTo(Duration.ofSeconds(12));
          JobwireProperties.WorkerOptions d = s.workerDefaults();
          assertThat(d.getMaxJobsActive()).isEqualTo(7);
          assertThat(d.getJobTimeout()).isEqualTo(Duration.ofMinutes(2));
          assertThat(d.getRequestTimeout()).isEqualTo(Duration.ofSeconds(5));
          assertThat(d.getPollInterval()).isEqualTo(Duration.ofMillis(250));
          assertThat(d.getStreamEnabled()).isFalse();
          assertThat(d.getStreamTimeout()).isEqualTo(Duration.ofMinutes(10));
          assertThat(d.getFetchVariables()).containsExactly("a", "b");
          assertThat(d.getTenantIds()).containsExactly("t1");
          assertThat(d.getName()).isEqualTo("w");
          assertThat(d.getConcurrency()).isEqualTo(3);
          assertThat(d.getAutoComplete()).isFalse();
          assertThat(d.getAutoExtend()).isTrue();
          assertThat(d.getRetryBackOff()).isEqualTo(Duration.ofSeconds(3));
          assertThat(s.workerOverride("charge").getMaxJobsActive()).isEqualTo(1);
          assertThat(s.workerOverride("charge").getEnabled()).isFalse();
          assertThat(s.workerOverride("other").getMaxJobsActive()).isNull();
        });
  }

  @Test
  void camundaClientKeysAreReadAndJobwireKeysWin() {
    runner.withPropertyValues(
        "camunda.client.grpc-address=https://gateway.example:443", "camunda.client.keep-alive=60s", "camunda.client.request-timeout=9s",
        "camunda.client.worker.defaults.max-jobs-active=11", "camunda.client.worker.defaults.timeout=PT1M",
        "camunda.client.worker.defaults.name=from-camunda", "camunda.client.worker.defaults.stream-enabled=false",
        "camunda.client.worker.override.charge.max-jobs-active=2", "camunda.client.worker.override.charge.fetch-variables=x",
        "jobwire.worker.defaults.name=from-jobwire", "jobwire.worker.override.charge.fetch-variables=y")
        .run(ctx -> {
          assertThat(ctx).hasNotFailed();
          JobwireClient c = ctx.getBean(JobwireClient.class);
          assertThat(c.addresses()).containsExactly("gateway.example:443");
          assertThat(c.isInsecure()).as("https:// means TLS").isFalse();
          JobwireSettings s = ctx.getBean(JobwireSettings.class);
          assertThat(s.workerDefaults().getMaxJobsActive()).isEqualTo(11);
          assertThat(s.workerDefaults().getJobTimeout()).isEqualTo(Duration.ofMinutes(1));
          assertThat(s.workerDefaults().getStreamEnabled()).isFalse();
          assertThat(s.workerDefaults().getName()).as("jobwire.* wins").isEqualTo("from-jobwire");
          assertThat(s.workerOverride("charge").getMaxJobsActive()).isEqualTo(2);
          assertThat(s.workerOverride("charge").getFetchVariables()).as("jobwire.* wins").isEqualTo(List.of("y"));
        });
    runner.withPropertyValues("camunda.client.grpc-address=http://10.9.9.9:26500", "jobwire.client.address=10.8.8.8:1")
        .run(ctx -> assertThat(ctx.getBean(JobwireClient.class).addresses()).containsExactly("10.8.8.8:1"));
  }

  @Test
  void disabledByEitherEnabledKey() {
    runner.withPropertyValues("jobwire.enabled=false").run(ctx -> assertThat(ctx).doesNotHaveBean(JobwireClient.class));
    runner.withPropertyValues("camunda.client.enabled=false").run(ctx -> assertThat(ctx).doesNotHaveBean(JobwireClient.class));
    runner.withPropertyValues("camunda.client.enabled=false", "jobwire.enabled=true").run(ctx -> assertThat(ctx).hasSingleBean(JobwireClient.class));
  }

  @Test
  void invalidOptionsFailTheStartWithTheSdksConfigurationException() {
    runner.withPropertyValues("jobwire.client.oauth.client-id=only-an-id").run(ctx -> {
      assertThat(ctx).hasFailed();
      assertThat(ctx.getStartupFailure()).rootCause().isInstanceOf(ConfigurationException.class).hasMessageContaining("OAuth");
    });
  }

  /** A bean with a worker, for the start-failure case. */
  public static class OneWorker {
    @io.jobwire.annotation.JobWorker(type = "bad-options")
    public void work() {}
  }

  @Test
  void invalidWorkerOptionsFailTheStartWithTheSdksConfigurationException() {
    runner.withBean(OneWorker.class).withPropertyValues("jobwire.client.address=127.0.0.1:1", "jobwire.worker.defaults.max-jobs-active=0")
        .run(ctx -> {
          assertThat(ctx).hasFailed();
          assertThat(ctx.getStartupFailure()).rootCause().isInstanceOf(ConfigurationException.class).hasMessageContaining("maxJobsActive");
        });
  }
}
