package io.jobwire;

import io.jobwire.annotation.CustomHeaders;
import io.jobwire.annotation.JobWorker;
import io.jobwire.annotation.Variable;
import io.jobwire.annotation.VariablesAsType;
import io.jobwire.internal.TypedInput;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.lang.reflect.Type;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Reads the declarative workers of an object: its {@code @JobWorker} methods (public, declared
 * on its class or a superclass), checked once here so that a worker fails at start-up, not at
 * its first job. Reflection only, no framework: {@code JobwireClient.openWorkers(bean)} uses it,
 * and so can a dependency-injection container.
 *
 * <p>Parameters: {@link Job}; {@code @Variable("name") T} (one variable converted to T; missing:
 * null); {@code @VariablesAsType T} (all variables decoded into T); {@code @CustomHeaders}
 * {@code Map<String, String>} or a type. Variables that do not fit fail the job with an
 * {@link InvalidInputException} naming every field, and the method is not called. The return
 * value completes the job ({@code void}: no variables).
 */
public final class WorkerScanner {
  private WorkerScanner() {}

  /**
   * The workers declared by an object's {@code @JobWorker} methods ({@code enabled = false} ones
   * left out), sorted by method name.
   *
   * @param bean the object whose methods handle the jobs
   * @return its workers
   * @throws IllegalArgumentException when an annotated method cannot be a worker (not public, a
   *     parameter the worker cannot fill, an invalid duration, an unnamed {@code @Variable}
   *     compiled without {@code -parameters})
   */
  public static List<WorkerDefinition> scan(Object bean) {
    if (bean == null) throw new IllegalArgumentException("jobwire: scan needs an object");
    List<Method> methods = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    for (Class<?> c = bean.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
      for (Method m : c.getDeclaredMethods()) {
        if (!m.isAnnotationPresent(JobWorker.class) || m.isBridge() || m.isSynthetic()) continue;
        if (!seen.add(m.getName() + java.util.Arrays.toString(m.getParameterTypes()))) continue; // overridden
        if (!Modifier.isPublic(m.getModifiers()) || Modifier.isStatic(m.getModifiers())) {
          throw new IllegalArgumentException("jobwire: @JobWorker method " + where(m) + " must be public and not static");
        }
        methods.add(m);
      }
    }
    methods.sort(Comparator.comparing(Method::getName));
    List<WorkerDefinition> out = new ArrayList<>();
    for (Method m : methods) {
      JobWorker a = m.getAnnotation(JobWorker.class);
      if (a.enabled()) out.add(definition(bean, m, a));
    }
    return List.copyOf(out);
  }

  private static String where(Method m) {
    return m.getDeclaringClass().getName() + "." + m.getName();
  }

  private static WorkerDefinition definition(Object bean, Method m, JobWorker a) {
    m.trySetAccessible(); // a public method of a class that is not public
    Parameter[] params = m.getParameters();
    List<Function<Ctx, Object>> args = new ArrayList<>();
    Set<String> names = new LinkedHashSet<>();
    boolean all = false;
    boolean typed = false;
    for (Parameter p : params) {
      Type t = p.getParameterizedType();
      if (p.getType() == Job.class) {
        args.add(c -> c.job);
      } else if (p.isAnnotationPresent(Variable.class)) {
        String name = p.getAnnotation(Variable.class).value();
        if (name.isEmpty()) {
          if (!p.isNamePresent()) {
            throw new IllegalArgumentException("jobwire: @Variable parameter " + p.getName() + " of " + where(m)
                + " has no name: give it one (@Variable(\"name\")) or compile with -parameters");
          }
          name = p.getName();
        }
        String n = name;
        names.add(n);
        typed = true;
        args.add(c -> TypedInput.variable(c.vars(), n, t));
      } else if (p.isAnnotationPresent(VariablesAsType.class)) {
        List<String> props = TypedInput.variableNames(t);
        if (props == null) all = true;
        else names.addAll(props);
        typed = true;
        args.add(c -> TypedInput.decode(c.vars(), t));
      } else if (p.isAnnotationPresent(CustomHeaders.class)) {
        if (Map.class.isAssignableFrom(p.getType())) args.add(c -> c.job.customHeaders());
        else args.add(c -> TypedInput.headers(c.job.customHeaders(), t));
      } else {
        throw new IllegalArgumentException("jobwire: parameter " + p.getName() + " of @JobWorker method " + where(m)
            + ": declare it as Job or annotate it with @Variable, @VariablesAsType or @CustomHeaders");
      }
    }
    JobHandler handler = job -> {
      Ctx c = new Ctx(job);
      Object[] values = new Object[args.size()];
      List<InvalidInputException.Issue> issues = new ArrayList<>();
      InvalidInputException first = null;
      for (int i = 0; i < values.length; i++) {
        try {
          values[i] = args.get(i).apply(c);
        } catch (InvalidInputException e) {
          if (first == null) first = e;
          issues.addAll(e.issues());
        }
      }
      if (first != null) throw issues.size() == first.issues().size() ? first : new InvalidInputException(issues, first);
      try {
        return m.invoke(bean, values);
      } catch (InvocationTargetException e) {
        Throwable cause = e.getCause();
        if (cause instanceof Exception) throw (Exception) cause;
        if (cause instanceof Error) throw (Error) cause;
        throw e;
      }
    };
    String type = a.type().isEmpty() ? m.getName() : a.type();
    WorkerDefinition.Options o = new WorkerDefinition.Options(a.workerName(), a.maxJobsActive(), a.concurrency(), duration(m, "jobTimeout", a.jobTimeout()),
        List.of(a.fetchVariables()), a.fetchAllVariables(), a.autoComplete(), a.streamEnabled(), a.autoExtend(), List.of(a.tenantIds()),
        duration(m, "retryBackOff", a.retryBackOff()));
    List<String> derived = all || !typed || a.fetchAllVariables() ? null : List.copyOf(names);
    return new WorkerDefinition(type, handler, derived, o);
  }

  /** Milliseconds ({@code "30000"}) or ISO-8601 ({@code "PT30S"}); empty: not set. */
  static Duration duration(Method m, String what, String v) {
    if (v.isEmpty()) return null;
    try {
      if (v.chars().allMatch(Character::isDigit)) return Duration.ofMillis(Long.parseLong(v));
      return Duration.parse(v);
    } catch (NumberFormatException | DateTimeParseException e) {
      throw new IllegalArgumentException("jobwire: @JobWorker(" + what + " = \"" + v + "\") of " + where(m)
          + ": want milliseconds (\"30000\") or an ISO-8601 duration (\"PT30S\")", e);
    }
  }

  /** One job's arguments: the variables are parsed once, when a parameter needs them. */
  private static final class Ctx {
    final Job job;
    private com.fasterxml.jackson.databind.JsonNode vars;

    Ctx(Job job) {
      this.job = job;
    }

    com.fasterxml.jackson.databind.JsonNode vars() {
      if (vars == null) vars = TypedInput.tree(job.variablesJson());
      return vars;
    }
  }
}
