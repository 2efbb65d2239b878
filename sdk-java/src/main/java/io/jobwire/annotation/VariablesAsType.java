package io.jobwire.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A parameter of a {@link JobWorker} method that receives all variables decoded into its type (a
 * record or a bean, with Jackson, {@code @JsonProperty} honoured); the type's properties are the
 * variables fetched. Input that does not fit is invalid input, and the method is not called.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface VariablesAsType {}
