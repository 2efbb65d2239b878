package io.jobwire.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A parameter of a {@link JobWorker} method that receives one variable, converted to the
 * parameter's type (Jackson). A missing variable is null (a primitive parameter: invalid input);
 * a value that does not fit is invalid input, and the method is not called.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface Variable {
  /** @return the variable's name (default: the parameter's name; compile with {@code -parameters}) */
  String value() default "";
}
