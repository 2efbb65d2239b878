package io.jobwire.examples.spring;

import io.jobwire.Job;
import io.jobwire.annotation.CustomHeaders;
import io.jobwire.annotation.JobWorker;
import io.jobwire.annotation.VariablesAsType;
import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/** The worker: a Spring bean whose {@code @JobWorker} method the starter opens once the app is ready. */
@Component
public class ChargeWorker {
  private static final Logger LOG = LoggerFactory.getLogger(ChargeWorker.class);

  /** The variables the handler reads; only these are fetched from the engine. */
  public record Order(String orderId, double amount) {}

  /** The task's custom headers. */
  public record ChargeHeaders(String currency) {}

  private final Duration workDuration;

  public ChargeWorker(@Value("${example.work-duration:0s}") Duration workDuration) {
    this.workDuration = workDuration;
  }

  @JobWorker(type = "charge")
  public Map<String, Object> charge(Job job, @VariablesAsType Order order, @CustomHeaders ChargeHeaders headers) throws InterruptedException {
    if (!workDuration.isZero()) Thread.sleep(workDuration.toMillis()); // stands in for a call to a payment provider
    LOG.debug("charged order {}: {} {}", order.orderId(), order.amount(), headers.currency());
    return Map.of("chargedAmount", order.amount(), "currency", headers.currency(), "chargedBy", job.worker());
  }
}
