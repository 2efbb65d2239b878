package io.jobwire.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a method as a job handler. Its parameters may be the {@code io.jobwire.Job}, single
 * variables ({@link Variable}), all variables as a type ({@link VariablesAsType}) and the custom
 * headers ({@link CustomHeaders}); what it returns completes the job (void: no variables). The
 * worker fetches only the variables its parameters name (the {@code @Variable} names and the
 * {@code @VariablesAsType} type's properties) unless {@link #fetchVariables} or
 * {@link #fetchAllVariables} is set. Unset values are the worker defaults of
 * {@code JobWorkerBuilder}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface JobWorker {
  /** @return the job type (default: the method's name); {@code WorkerDefinition.withJobType} overrides it at run time */
  String type() default "";

  /** @return the worker name (default: the host name) */
  String workerName() default "";

  /** @return the capacity; 0 = the default (32) */
  int maxJobsActive() default 0;

  /** @return handlers running at once; 0 = the default (maxJobsActive) */
  int concurrency() default 0;

  /** @return the activation timeout: milliseconds ({@code "30000"}) or ISO-8601 ({@code "PT30S"}); empty = the default (5 min) */
  String jobTimeout() default "";

  /** @return the variables to fetch; empty = derived from the parameters (and {@code traceparent}, the job span's parent) */
  String[] fetchVariables() default {};

  /** @return fetch all variables instead of deriving them from the parameters */
  boolean fetchAllVariables() default false;

  /** @return complete the job with the method's return value (default true) */
  boolean autoComplete() default true;

  /** @return receive jobs by push as well as by polling (default true) */
  boolean streamEnabled() default true;

  /** @return extend the job's timeout while the handler runs (default false) */
  boolean autoExtend() default false;

  /** @return the tenants to activate jobs for; empty = the default tenant */
  String[] tenantIds() default {};

  /** @return a fixed retry back-off instead of the default policy: milliseconds or ISO-8601; empty = the default policy */
  String retryBackOff() default "";

  /** @return whether the worker is started (default true) */
  boolean enabled() default true;
}
