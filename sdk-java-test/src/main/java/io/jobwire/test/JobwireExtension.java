package io.jobwire.test;

import io.jobwire.JobwireClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The JUnit 5 extension behind {@link JobwireTest}: one {@link JobwireTestEngine} in the root
 * store (started on first use, closed when the test run ends), reset before each test, injected
 * as {@link JobwireTestEngine} and {@link JobwireClient} parameters.
 */
public final class JobwireExtension implements BeforeEachCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(JobwireExtension.class);

  /** Used by JUnit. */
  public JobwireExtension() {}

  /**
   * The engine of this test run (started on first use).
   *
   * @param context any extension context of the run
   * @return the shared engine
   */
  public static JobwireTestEngine engine(ExtensionContext context) {
    Holder h = context.getRoot().getStore(NS).getOrComputeIfAbsent(Holder.class, k -> new Holder(), Holder.class);
    return h.engine;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    engine(context).reset();
  }

  @Override
  public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
    Class<?> t = p.getParameter().getType();
    return t == JobwireTestEngine.class || t == JobwireClient.class;
  }

  @Override
  public Object resolveParameter(ParameterContext p, ExtensionContext e) {
    JobwireTestEngine engine;
    try {
      engine = engine(e);
    } catch (RuntimeException x) {
      throw new ParameterResolutionException("jobwire: the engine did not start: " + x.getMessage(), x);
    }
    return p.getParameter().getType() == JobwireClient.class ? engine.client() : engine;
  }

  /** Closes the engine when the root context closes (the end of the test run). */
  @SuppressWarnings("deprecation") // CloseableResource for JUnit before 5.13, AutoCloseable from 5.13 on (closed once)
  static final class Holder implements ExtensionContext.Store.CloseableResource, AutoCloseable {
    final JobwireTestEngine engine;

    Holder() {
      try {
        engine = JobwireTestEngine.start();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() {
      engine.close();
    }
  }
}
