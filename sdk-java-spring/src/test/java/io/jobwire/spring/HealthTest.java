package io.jobwire.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.jobwire.JobwireClient;
import io.jobwire.WorkerState;
import io.jobwire.test.JobwireTestEngine;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthContributorRegistry;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Actuator health {@code jobwire} against the real engine: UP while the worker streams, DOWN
 * within the keep-alive watchdog's bound (keepAlive × (1 + 20/45)) once the engine is killed (the
 * broken connection shows at once), OUT_OF_SERVICE after the context closed; the {@code jobwire}
 * endpoint reports the same workers.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class HealthTest {
  public static class Workers {
    @io.jobwire.annotation.JobWorker(type = "spring-health", workerName = "health-worker")
    public void work() {}
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {
    @Bean
    Workers workers() {
      return new Workers();
    }
  }

  static Status await(JobwireHealthIndicator h, Status want, Duration within) throws InterruptedException {
    long end = System.nanoTime() + within.toNanos();
    Status s = h.health().getStatus();
    while (!s.equals(want) && System.nanoTime() < end) {
      Thread.sleep(50);
      s = h.health().getStatus();
    }
    return s;
  }

  @Test
  @SuppressWarnings("unchecked")
  void healthFollowsTheWorkersAndShowsAGatewayOutage() throws Exception {
    JobwireTestEngine engine = JobwireTestEngine.start();
    ConfigurableApplicationContext ctx = null;
    try {
      ctx = TestProcesses.run(engine, new Class<?>[] {App.class}, "management.endpoints.web.exposure.include=health,jobwire");
      HealthContributorRegistry registry = ctx.getBean(HealthContributorRegistry.class);
      assertThat(registry.getContributor("jobwire")).as("health key jobwire").isInstanceOf(JobwireHealthIndicator.class);
      JobwireHealthIndicator h = (JobwireHealthIndicator) registry.getContributor("jobwire");
      var worker = ctx.getBean(JobwireLifecycle.class).workers().get(0);
      long until = System.currentTimeMillis() + 10_000;
      while (worker.state() != WorkerState.STREAMING && System.currentTimeMillis() < until) Thread.sleep(20);
      Health up = h.health();
      assertThat(up.getStatus()).isEqualTo(Status.UP);
      List<Map<String, Object>> workers = (List<Map<String, Object>>) up.getDetails().get("workers");
      assertThat(workers).containsExactly(Map.of("name", "health-worker", "type", "spring-health", "state", "streaming", "heldJobs", 0));
      JobwireEndpoint endpoint = ctx.getBean(JobwireEndpoint.class);
      assertThat(endpoint.workers()).containsEntry("status", "UP").containsEntry("workers", workers);

      // the outage: the engine is killed; the bound is the keep-alive watchdog's (45 s × (1 + 20/45) = 65 s)
      Duration keepAlive = Duration.ofSeconds(45);
      Duration bound = Duration.ofMillis((long) (keepAlive.toMillis() * (1 + 20.0 / 45)));
      long t0 = System.nanoTime();
      engine.close();
      Status down = await(h, Status.DOWN, bound);
      long ms = (System.nanoTime() - t0) / 1_000_000;
      System.out.printf("HealthTest: DOWN %d ms after the engine was killed (bound %d ms)%n", ms, bound.toMillis());
      assertThat(down).isEqualTo(Status.DOWN);
      assertThat(((List<Map<String, Object>>) h.health().getDetails().get("workers")).get(0)).containsEntry("state", "backoff");
      assertThat(ctx.getBean(JobwireClient.class).addresses()).containsExactly(engine.address());

      ctx.close();
      assertThat(h.health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
    } finally {
      if (ctx != null) ctx.close();
      engine.close();
    }
  }
}
