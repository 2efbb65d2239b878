package io.jobwire;

import java.time.Duration;
import java.util.Map;

/**
 * The child process of {@link RunWorkersTest}: a worker whose handler sleeps, then
 * {@link JobwireClient#runWorkers(Duration)} as the last line of {@code main}, as a user's worker
 * does. Args: gateway address, job type, handler sleep (ms). It prints {@code ready}, then
 * {@code started <key>} / {@code finished <key>} around each handler, and {@code returned} after
 * runWorkers returns.
 */
public final class RunWorkersMain {
  public static void main(String[] args) throws Exception {
    String address = args[0];
    String jobType = args[1];
    long sleepMs = Long.parseLong(args[2]);
    JobwireClient client = JobwireClient.builder().environment(Map.of()).address(address).build();
    client.newWorker().jobType(jobType).maxJobsActive(4).jobTimeout(Duration.ofMinutes(5)).handler(job -> {
      say("started " + job.key());
      Thread.sleep(sleepMs);
      say("finished " + job.key());
      return Map.of("handledBy", "child");
    }).stateListener(s -> {
      if (s == WorkerState.STREAMING || s == WorkerState.POLLING) say("ready");
    }).open();
    client.runWorkers(Duration.ofSeconds(10));
    say("returned");
  }

  private static void say(String line) {
    synchronized (System.out) {
      System.out.println(line);
      System.out.flush();
    }
  }

  private RunWorkersMain() {}
}
