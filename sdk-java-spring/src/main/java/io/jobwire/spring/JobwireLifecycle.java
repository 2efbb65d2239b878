package io.jobwire.spring;

import io.jobwire.ConfigurationException;
import io.jobwire.JobWorker;
import io.jobwire.JobwireClient;
import io.jobwire.JobWorkerBuilder;
import io.jobwire.WorkerDefinition;
import io.jobwire.WorkerScanner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Opens the {@code @JobWorker} methods of the context's beans once the context is ready (a late
 * {@link SmartLifecycle} phase: after the web server started, so health is served first) and closes
 * them gracefully when the context closes (first, before the web server stops): each worker stops
 * taking jobs, hands back the jobs it holds but has not started, and lets running handlers finish
 * within {@code jobwire.close-timeout}. The client itself is closed after that, when the context
 * destroys its bean.
 *
 * <p>Options of a worker, lowest precedence first: the SDK defaults, {@code jobwire.worker.defaults}
 * (else {@code camunda.client.worker.defaults}), the values set on the annotation,
 * {@code jobwire.worker.override.<type>} (else {@code camunda.client.worker.override.<type>}).
 */
public class JobwireLifecycle implements SmartLifecycle {
  /** The phase: late (after the web server's), so workers start last and stop first. */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;
  private static final Logger LOG = LoggerFactory.getLogger(JobwireLifecycle.class);

  private final JobwireClient client;
  private final JobWorkerBeans beans;
  private final JobwireSettings settings;
  private final List<JobWorker> workers = new CopyOnWriteArrayList<>();
  private volatile boolean running;

  /**
   * @param client the client the workers run on
   * @param beans the beans with {@code @JobWorker} methods
   * @param settings the effective settings
   */
  public JobwireLifecycle(JobwireClient client, JobWorkerBeans beans, JobwireSettings settings) {
    this.client = client;
    this.beans = beans;
    this.settings = settings;
  }

  @Override
  public synchronized void start() {
    if (running) return;
    workers.clear(); // a restart after stop(): the closed workers are gone
    List<JobWorker> opened = new ArrayList<>();
    try {
      for (JobWorkerBeans.Entry e : beans.beans()) {
        for (WorkerDefinition d : WorkerScanner.scan(e.bean())) {
          JobwireProperties.WorkerOptions override = settings.workerOverride(d.jobType());
          JobwireProperties.WorkerOptions defaults = settings.workerDefaults();
          Boolean enabled = override.getEnabled() != null ? override.getEnabled() : defaults.getEnabled();
          if (Boolean.FALSE.equals(enabled)) {
            LOG.info("jobwire: worker {} of bean {} is disabled by configuration", d.jobType(), e.beanName());
            continue;
          }
          JobWorkerBuilder b = d.builder(client, defaults::applyTo);
          override.applyTo(b);
          opened.add(b.open());
        }
      }
    } catch (ConfigurationException | RuntimeException ex) {
      for (JobWorker w : opened) w.close(Duration.ZERO);
      throw new IllegalStateException("jobwire: cannot open the @JobWorker workers: " + ex.getMessage(), ex);
    }
    workers.addAll(opened);
    running = true;
    LOG.info("jobwire: {} worker(s) opened on {}", opened.size(), client.addresses());
  }

  @Override
  public void stop() {
    CompletableFuture<Void> done = closeAll();
    try {
      done.get(settings.closeTimeout().toMillis() + 5_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      LOG.warn("jobwire: closing the workers: {}", e.toString());
    }
  }

  @Override
  public void stop(Runnable callback) {
    closeAll().whenComplete((v, err) -> callback.run());
  }

  /** Closes every worker at once (each drains, hands back unstarted jobs, waits for running handlers). */
  private synchronized CompletableFuture<Void> closeAll() {
    running = false;
    Duration timeout = settings.closeTimeout();
    List<CompletableFuture<Void>> all = new ArrayList<>();
    for (JobWorker w : workers) all.add(w.closeAsync(timeout));
    if (!all.isEmpty()) LOG.info("jobwire: closing {} worker(s) (close timeout {})", all.size(), timeout);
    return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public boolean isAutoStartup() {
    return true;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }

  /** @return the workers opened (also after they closed, until the context is gone) */
  public List<JobWorker> workers() {
    return List.copyOf(workers);
  }
}
