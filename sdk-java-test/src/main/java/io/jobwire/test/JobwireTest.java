package io.jobwire.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs the annotated test class against a jobwire engine: the first such class starts the engine
 * (one per JVM, stopped when the test run ends), every test starts on an empty engine (ResetState:
 * no deployments, instances, jobs or faults, engine time back to wall time), and test and lifecycle
 * methods may take a {@link JobwireTestEngine} or a {@link io.jobwire.JobwireClient} parameter
 * (the engine's connected client). The binary comes from io.jobwire:jobwire-engine; the system
 * property {@code jobwire.engine} or the environment variable {@code JOBWIRE_ENGINE} names another.
 */
@Target({ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(JobwireExtension.class)
public @interface JobwireTest {}
