package io.jobwire.spring;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * Actuator endpoint {@code jobwire} ({@code /actuator/jobwire} once exposed): the status and the
 * workers, each with its name, job type, state and held jobs, and the gateway addresses.
 */
@Endpoint(id = "jobwire")
public class JobwireEndpoint {
  private final JobwireLifecycle lifecycle;
  private final io.jobwire.JobwireClient client;

  /**
   * @param lifecycle the lifecycle that holds the workers
   * @param client the client
   */
  public JobwireEndpoint(JobwireLifecycle lifecycle, io.jobwire.JobwireClient client) {
    this.lifecycle = lifecycle;
    this.client = client;
  }

  /** @return {@code {"status": …, "addresses": […], "workers": [{"name", "type", "state", "heldJobs"}]}} */
  @ReadOperation
  public Map<String, Object> workers() {
    var workers = lifecycle.workers();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("status", JobwireHealth.status(workers));
    out.put("addresses", client.addresses());
    out.put("workers", JobwireHealth.workers(workers));
    return out;
  }
}
