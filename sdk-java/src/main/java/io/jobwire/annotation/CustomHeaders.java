package io.jobwire.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A parameter of a {@link JobWorker} method that receives the job's custom headers: a
 * {@code Map<String, String>}, or a record or bean the headers are converted into (Jackson;
 * header values are strings, numbers and booleans are read from them).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface CustomHeaders {}
