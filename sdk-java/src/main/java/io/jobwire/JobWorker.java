package io.jobwire;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A running job worker, created by {@link JobWorkerBuilder#open()}: it receives jobs by push
 * (StreamActivatedJobs) and poll (ActivateJobs) under one capacity of {@code maxJobsActive}
 * jobs, runs the handler and sends the outcomes, until closed. Transport errors never escape:
 * the worker moves to {@link WorkerState#BACKOFF} and retries forever.
 */
public interface JobWorker extends AutoCloseable {
  /** @return the current lifecycle state */
  WorkerState state();

  /** @return jobs held right now (received, outcome not yet acknowledged); never above maxJobsActive */
  int heldJobs();

  /** @return the job type this worker works on */
  String jobType();

  /** @return the worker name sent with each activation (the builder's, else the host name) */
  String workerName();

  /**
   * Graceful close: stops taking jobs at once (cancels the parked poll, drains the stream and
   * hands its jobs back), fails back received-but-unstarted jobs (retries unchanged, no
   * backoff), lets running handlers finish until {@code timeout}, then interrupts them and
   * hands their jobs back. Calling it again returns the same future.
   *
   * @param timeout how long running handlers may take
   * @return completes when the worker is closed
   */
  CompletableFuture<Void> closeAsync(Duration timeout);

  /**
   * {@link #closeAsync(Duration)} and waits for it.
   *
   * @param timeout how long running handlers may take
   */
  void close(Duration timeout);

  /** Closes with a 30 s timeout for running handlers. */
  @Override
  void close();
}
