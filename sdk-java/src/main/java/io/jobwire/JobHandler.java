package io.jobwire;

/**
 * A job handler. Return variables to complete the job (a Map, a POJO, a JSON object text or
 * null); throw a {@link JobErrorException} for a BPMN error; throw anything else and the worker's
 * {@link RetryPolicy} decides (by default FailJob with retries − 1 after an exponential back-off; a
 * {@link NonRetryableException} opens an incident at once). Runs on the worker's handler executor (never on a gRPC thread); when the
 * worker's close timeout runs out the thread is interrupted.
 */
@FunctionalInterface
public interface JobHandler {
  /**
   * Handles one job.
   *
   * @param job the activated job
   * @return variables to complete with (auto-complete), or null
   * @throws Exception any failure: the retry policy decides (by default retries − 1)
   */
  Object handle(Job job) throws Exception;
}
