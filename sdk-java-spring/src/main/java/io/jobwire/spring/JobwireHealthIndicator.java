package io.jobwire.spring;

import java.util.List;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;

/**
 * Actuator health {@code jobwire}: UP when every worker is idle, polling or streaming (and when
 * there are none), DOWN when a worker is in back-off (the gateway is unreachable or refusing:
 * shown within the keep-alive watchdog's bound, at once when the connection breaks),
 * OUT_OF_SERVICE when a worker is closing or closed. The details hold {@code workers}: each one's
 * {@code name}, {@code type}, {@code state} and {@code heldJobs}.
 */
public class JobwireHealthIndicator extends AbstractHealthIndicator {
  private final JobwireLifecycle lifecycle;

  /** @param lifecycle the lifecycle that holds the workers */
  public JobwireHealthIndicator(JobwireLifecycle lifecycle) {
    super("jobwire health check failed");
    this.lifecycle = lifecycle;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    var workers = lifecycle.workers();
    builder.status(new Status(JobwireHealth.status(workers))).withDetail("workers", JobwireHealth.workers(workers));
  }

  /** @return the status code alone (UP, DOWN or OUT_OF_SERVICE) */
  public String statusCode() {
    return JobwireHealth.status(lifecycle.workers());
  }

  List<?> workers() {
    return JobwireHealth.workers(lifecycle.workers());
  }
}
