package io.jobwire.testing;

import io.jobwire.internal.Json;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What the worker sent for a job after its handler ran ({@link TestJobs#runHandler}).
 *
 * @param outcome how the job ended
 * @param variables the variables sent with the outcome (completed, BPMN error, and those of a manual
 *     fail); empty when none
 * @param retries the retries sent (failed: what the job has left; cancelled: unchanged); the job's
 *     retries otherwise
 * @param errorMessage the error message (failed, BPMN error, cancelled), else null
 * @param retryBackoff the retry back-off sent with a failure, else {@link Duration#ZERO}
 * @param errorCode the BPMN error code (BPMN error), else null
 * @param exception what the handler threw, null when it returned
 * @param extensions the new timeouts of the job-timeout extensions the worker made (auto-extend and
 *     {@code job.extendTimeout}), in order
 */
public record HandlerResult(
    Outcome outcome,
    Map<String, Object> variables,
    int retries,
    String errorMessage,
    Duration retryBackoff,
    String errorCode,
    Throwable exception,
    List<Duration> extensions) {

  /** How the job ended. */
  public enum Outcome {
    /** CompleteJob was sent. */
    COMPLETED,
    /** FailJob was sent (the handler threw, or failed the job itself). */
    FAILED,
    /** ThrowError was sent (a BPMN error). */
    BPMN_ERROR,
    /** The worker closed while the handler ran and handed the job back (retries unchanged). */
    CANCELLED
  }

  /**
   * Decodes {@link #variables()} into {@code type} (as {@code job.decodeVariables} does).
   *
   * @param type the class to decode into
   * @param <T> the type
   * @return the decoded variables
   */
  public <T> T variablesAs(Class<T> type) {
    return Json.parseAs(Json.variablesToJson(variables, "handler result"), type);
  }
}
