package io.jobwire.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.jobwire.Job;
import io.jobwire.test.EngineJob;
import io.jobwire.test.JobwireTestEngine;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Closing the context closes the workers gracefully: running handlers finish and their jobs
 * complete, jobs held but not started are handed back, so the engine shows no job ACTIVATED
 * afterwards (the assertion of the conformance scenario lifecycle/close-strands-no-job).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GracefulCloseTest {
  static JobwireTestEngine engine;
  static final int N = 12;
  static final String TYPE = "spring-slow";

  @BeforeAll
  static void start() throws Exception {
    engine = JobwireTestEngine.start();
  }

  @AfterAll
  static void stop() {
    if (engine != null) engine.close();
  }

  /** Two handlers at once, four jobs held: two wait unstarted while two run for 1.5 s. */
  public static class SlowWorkers {
    final CountDownLatch started = new CountDownLatch(2);
    final Set<Long> finished = ConcurrentHashMap.newKeySet();
    final Set<Long> begun = ConcurrentHashMap.newKeySet();

    @io.jobwire.annotation.JobWorker(type = TYPE, maxJobsActive = 4, concurrency = 2, jobTimeout = "PT5M")
    public Map<String, Object> slow(Job job) throws InterruptedException {
      begun.add(job.processInstanceKey());
      started.countDown();
      Thread.sleep(1_500);
      finished.add(job.processInstanceKey());
      return Map.of("slow", "done");
    }
  }

  /** A handler that outlives the close timeout. */
  public static class StuckWorkers {
    final CountDownLatch started = new CountDownLatch(1);
    final Set<Long> interrupted = ConcurrentHashMap.newKeySet();

    @io.jobwire.annotation.JobWorker(type = "spring-stuck", maxJobsActive = 1, jobTimeout = "PT5M")
    public void stuck(Job job) throws InterruptedException {
      started.countDown();
      try {
        Thread.sleep(20_000);
      } catch (InterruptedException e) {
        interrupted.add(job.processInstanceKey());
        throw e;
      }
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class StuckApp {
    @Bean
    StuckWorkers stuckWorkers() {
      return new StuckWorkers();
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {
    @Bean
    SlowWorkers slowWorkers() {
      return new SlowWorkers();
    }
  }

  @Test
  void contextCloseFinishesRunningHandlersAndHandsBackTheRest() throws Exception {
    engine.deploy(TestProcesses.bpmn(TYPE, Map.of()));
    ConfigurableApplicationContext ctx = TestProcesses.run(engine, new Class<?>[] {App.class}, "jobwire.close-timeout=10s");
    SlowWorkers bean = ctx.getBean(SlowWorkers.class);
    for (int i = 0; i < N; i++) engine.createInstance("one-task-" + TYPE, Map.of("i", i));
    assertThat(bean.started.await(10, TimeUnit.SECONDS)).isTrue();
    long t0 = System.nanoTime();
    ctx.close();
    long closeMs = (System.nanoTime() - t0) / 1_000_000;
    System.out.printf("GracefulCloseTest: context closed in %d ms, %d handlers began, %d finished%n", closeMs, bean.begun.size(), bean.finished.size());
    assertThat(bean.finished).as("every handler that began ran to its end").isEqualTo(bean.begun);
    assertThat(closeMs).as("close waited for the running handlers only").isLessThan(10_000);
    // the engine: none ACTIVATED (none stranded until the 5 min timeout), every job completed or activatable again
    List<EngineJob> left = engine.jobs(TYPE);
    assertThat(left).as("no job left ACTIVATED").allMatch(j -> j.state().equals("ACTIVATABLE"));
    assertThat(left).as("retries unchanged: handed back, not failed").allMatch(j -> j.retries() == 3);
    assertThat(left.size() + bean.finished.size()).as("completed + activatable = all").isEqualTo(N);
    for (Long instance : bean.finished) assertThat(engine.awaitCompleted(instance)).containsEntry("slow", "done");
  }

  @Test
  void closeTimeoutBoundsTheWaitForRunningHandlers() throws Exception {
    engine.deploy(TestProcesses.bpmn("spring-stuck", Map.of()));
    ConfigurableApplicationContext ctx = TestProcesses.run(engine, new Class<?>[] {StuckApp.class}, "jobwire.close-timeout=1s");
    StuckWorkers bean = ctx.getBean(StuckWorkers.class);
    long instance = engine.createInstance("one-task-spring-stuck");
    JobwireLifecycle lifecycle = ctx.getBean(JobwireLifecycle.class);
    assertThat(bean.started.await(30, TimeUnit.SECONDS))
        .as(() -> "the stuck handler started; workers " + lifecycle.workers().stream()
            .map(w -> w.jobType() + "=" + w.state() + "/held " + w.heldJobs()).toList() + ", engine jobs " + engine.jobs("spring-stuck"))
        .isTrue();
    long t0 = System.nanoTime();
    ctx.close();
    long closeMs = (System.nanoTime() - t0) / 1_000_000;
    System.out.printf("GracefulCloseTest: close with a stuck handler took %d ms (close-timeout 1 s)%n", closeMs);
    assertThat(closeMs).as("jobwire.close-timeout=1s, not the 30 s default").isBetween(900L, 8_000L);
    assertThat(bean.interrupted).containsExactly(instance);
    List<EngineJob> left = engine.jobs("spring-stuck");
    assertThat(left).hasSize(1).allMatch(j -> j.state().equals("ACTIVATABLE"), "handed back, not stranded until its 5 min timeout");
  }
}
