package io.jobwire;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * An activated job as given to a {@link JobHandler}. Keys are {@code long}; variables keep
 * every integer exact (int, long or BigInteger by size).
 *
 * <p>The outcome methods ({@link #complete}, {@link #fail}, {@link #throwError}) are for manual
 * mode ({@code autoComplete(false)}); each returns a future that completes only when the engine
 * acknowledged the command and otherwise fails with the typed exception (e.g.
 * {@link NotFoundException} when the job timed out). A second outcome on a settled job fails
 * with {@link IllegalStateException} and sends nothing.
 */
public interface Job {
  /** @return the job key */
  long key();

  /** @return the job type */
  String type();

  /** @return retries left, as activated */
  int retries();

  /** @return the activation deadline, epoch milliseconds (pushed out by {@link #extendTimeout}) */
  long deadline();

  /** @return the process instance key */
  long processInstanceKey();

  /** @return the BPMN process id */
  String bpmnProcessId();

  /** @return the process definition version */
  int processDefinitionVersion();

  /** @return the process definition key */
  long processDefinitionKey();

  /** @return the element id of the service task */
  String elementId();

  /** @return the element instance key */
  long elementInstanceKey();

  /** @return the task's custom headers */
  Map<String, String> customHeaders();

  /** @return the worker name recorded on activation */
  String worker();

  /** @return the tenant id */
  String tenantId();

  /** @return how the job arrived: {@code "push"} (stream) or {@code "poll"} (ActivateJobs) */
  String activation();

  /** @return the variables as the raw JSON object text received (lossless) */
  String variablesJson();

  /** @return the variables as a mutable map (integers exact, decimals as BigDecimal) */
  Map<String, Object> variables();

  /**
   * Reads the variables into a type with Jackson.
   *
   * @param type target class (unknown properties are ignored)
   * @param <T> target type
   * @return the value
   * @throws InvalidVariablesException when the variables do not fit the type
   */
  <T> T decodeVariables(Class<T> type);

  /**
   * @return true once the worker's close timeout ran out and cancelled this handler (the
   *     handler thread is interrupted at the same time)
   */
  boolean isCancelled();

  /**
   * Completes the job (manual mode).
   *
   * @param variables a Map, a POJO, a JSON object text, or null
   * @return completes when the engine acknowledged
   * @throws InvalidVariablesException when variables are not a JSON object (nothing is sent)
   */
  CompletableFuture<Void> complete(Object variables);

  /** @return {@link #complete(Object)} with no variables */
  default CompletableFuture<Void> complete() {
    return complete(null);
  }

  /**
   * Fails the job with retries − 1 and the worker's retry back-off (manual mode).
   *
   * @param message error message (incident text when no retries are left)
   * @return completes when the engine acknowledged
   */
  CompletableFuture<Void> fail(String message);

  /**
   * Fails the job (manual mode).
   *
   * @param message error message
   * @param retries retries left after this failure
   * @param retryBackOff delay before the job can be activated again (null = the worker's)
   * @param variables variables to set on the task's scope, or null
   * @return completes when the engine acknowledged
   */
  CompletableFuture<Void> fail(String message, int retries, Duration retryBackOff, Object variables);

  /**
   * Throws a BPMN error (manual mode).
   *
   * @param code error code matched against error events
   * @param message error message
   * @param variables variables set on the error scope, or null
   * @return completes when the engine acknowledged
   */
  CompletableFuture<Void> throwError(String code, String message, Object variables);

  /**
   * Sets the job's activation timeout to {@code timeout} from now (UpdateJobTimeout).
   *
   * @param timeout the new timeout
   * @return completes when the engine acknowledged
   */
  CompletableFuture<Void> extendTimeout(Duration timeout);
}
