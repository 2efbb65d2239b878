package io.jobwire.examples;

import io.jobwire.JobwireClient;
import io.jobwire.Topology;
import io.jobwire.UnauthenticatedException;
import io.jobwire.WorkerState;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * camunda-saas connects a worker to a Camunda 8 SaaS cluster (or any Zeebe gateway behind OAuth)
 * with client credentials, prints the cluster topology and handles jobs of JOB_TYPE until Ctrl-C.
 *
 * <p>Create an API client in the Camunda console (scope Zeebe) and export what it shows:
 *
 * <pre>
 *   export ZEEBE_ADDRESS=&lt;cluster-id&gt;.&lt;region&gt;.zeebe.camunda.io:443
 *   export ZEEBE_CLIENT_ID=...  ZEEBE_CLIENT_SECRET=...
 *   export ZEEBE_AUTHORIZATION_SERVER_URL=https://login.cloud.camunda.io/oauth/token   # the default
 *   export ZEEBE_TOKEN_AUDIENCE=zeebe.camunda.io                                       # the default
 *   ./camunda-saas/run
 * </pre>
 *
 * {@code JobwireClient.fromEnvironment()} alone would read the same variables; the options are
 * spelled out here to show them. TLS is on because the address is not loopback.
 */
public final class CamundaSaas {
  static String must(String name) {
    String v = System.getenv(name);
    if (v == null || v.isEmpty()) {
      System.err.println(name + " is not set (see the comment at the top of CamundaSaas.java)");
      System.exit(2);
    }
    return v;
  }

  static void log(String msg) {
    System.out.println(LocalTime.now().format(DateTimeFormatter.ofPattern("HH:mm:ss")) + " " + msg);
    System.out.flush();
  }

  public static void main(String[] args) throws Exception {
    String address = must("ZEEBE_ADDRESS");
    JobwireClient client = JobwireClient.builder()
        .address(address)
        .oauth(must("ZEEBE_CLIENT_ID"), must("ZEEBE_CLIENT_SECRET"),
            System.getenv().getOrDefault("ZEEBE_AUTHORIZATION_SERVER_URL", "https://login.cloud.camunda.io/oauth/token"),
            System.getenv().getOrDefault("ZEEBE_TOKEN_AUDIENCE", "zeebe.camunda.io"), null)
        .build();
    Topology topo;
    try {
      topo = client.topology().get(); // fetches a token, then calls the gateway
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnauthenticatedException) {
        System.err.println("the gateway refused the token: check the client id, secret and audience: " + e.getCause().getMessage());
      } else {
        System.err.println("camunda-saas (java): " + e.getCause().getMessage());
      }
      client.close(Duration.ofSeconds(1));
      System.exit(1);
      return;
    }
    log("connected to " + address + ": gateway " + topo.gatewayVersion() + ", " + topo.brokers().size() + " broker(s), " + topo.partitionsCount()
        + " partition(s)");
    String jobType = System.getenv().getOrDefault("JOB_TYPE", "hello");
    AtomicBoolean said = new AtomicBoolean();
    client.newWorker().jobType(jobType).handler(job -> {
      log("job " + job.key() + " of process " + job.bpmnProcessId());
      return Map.of("handledBy", "jobwire-java");
    }).errorListener(e -> log("worker error: " + e.getMessage())).stateListener(s -> {
      // once connected (runWorkers, on the next line, is in place long before)
      if ((s == WorkerState.STREAMING || s == WorkerState.POLLING) && !said.getAndSet(true)) {
        log("handling jobs of type " + jobType + " (Ctrl-C to stop)");
      }
    }).open();
    // Until Ctrl-C / SIGTERM: the worker stops taking jobs, running handlers get 10 s to finish,
    // then runWorkers returns and the process exits 0.
    client.runWorkers(Duration.ofSeconds(10));
    log("stopped");
  }

  private CamundaSaas() {}
}
