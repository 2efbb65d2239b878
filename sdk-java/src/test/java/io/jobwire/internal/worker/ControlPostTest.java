package io.jobwire.internal.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ControlPostTest {
  private static ScheduledThreadPoolExecutor ctl() {
    return new ScheduledThreadPoolExecutor(1, JobExecutor.daemon("jobwire-worker-t", false));
  }

  @Test
  void everyEventRunsOnceOnTheControlThreadInTheOrderEachThreadPostedIt() throws Exception {
    ScheduledThreadPoolExecutor ctl = ctl();
    try {
      ControlPost post = new ControlPost(ctl);
      int threads = 4;
      int each = 20_000;
      List<List<Integer>> seen = new ArrayList<>();
      for (int t = 0; t < threads; t++) seen.add(new ArrayList<>()); // written on the control thread only
      AtomicInteger offThread = new AtomicInteger();
      CountDownLatch start = new CountDownLatch(1);
      List<Thread> producers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int id = t;
        Thread p = new Thread(() -> {
          try {
            start.await();
          } catch (InterruptedException e) {
            return;
          }
          for (int i = 0; i < each; i++) {
            int n = i;
            post.execute(() -> {
              if (!Thread.currentThread().getName().equals("jobwire-worker-t")) offThread.incrementAndGet();
              seen.get(id).add(n);
            });
          }
        });
        p.start();
        producers.add(p);
      }
      start.countDown();
      for (Thread p : producers) p.join();
      ctl.submit(() -> {}).get(10, TimeUnit.SECONDS); // runs after every event posted before it
      assertEquals(0, offThread.get());
      for (List<Integer> s : ctl.submit(() -> seen).get(10, TimeUnit.SECONDS)) {
        assertEquals(each, s.size());
        for (int i = 0; i < each; i++) assertEquals(i, s.get(i));
      }
    } finally {
      ctl.shutdownNow();
    }
  }

  @Test
  void anEventPostedBeforeATaskSubmittedDirectlyRunsBeforeIt() throws Exception {
    ScheduledThreadPoolExecutor ctl = ctl();
    try {
      ControlPost post = new ControlPost(ctl);
      CountDownLatch busy = new CountDownLatch(1);
      List<String> order = new ArrayList<>();
      post.execute(() -> {
        try {
          busy.await(5, TimeUnit.SECONDS); // the drain is running while the next events are posted
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        order.add("first");
      });
      post.execute(() -> order.add("second"));
      var direct = ctl.submit(() -> order.add("direct"));
      busy.countDown();
      direct.get(5, TimeUnit.SECONDS);
      assertEquals(List.of("first", "second", "direct"), ctl.submit(() -> List.copyOf(order)).get(5, TimeUnit.SECONDS));
    } finally {
      ctl.shutdownNow();
    }
  }

  @Test
  void aThrowingEventDoesNotStopTheOnesAfterIt() throws Exception {
    ScheduledThreadPoolExecutor ctl = ctl();
    try {
      ControlPost post = new ControlPost(ctl);
      CountDownLatch ran = new CountDownLatch(2);
      post.execute(() -> {
        throw new IllegalStateException("boom (expected by the test)");
      });
      post.execute(ran::countDown);
      assertTrue(waitFor(ran));
      post.execute(ran::countDown); // and a later drain still starts
      assertTrue(ran.await(5, TimeUnit.SECONDS));
    } finally {
      ctl.shutdownNow();
    }
  }

  @Test
  void eventsPostedAfterTheControlThreadShutDownAreDropped() throws Exception {
    ScheduledThreadPoolExecutor ctl = ctl();
    ControlPost post = new ControlPost(ctl);
    ctl.shutdown();
    assertTrue(ctl.awaitTermination(5, TimeUnit.SECONDS));
    AtomicInteger ran = new AtomicInteger();
    post.execute(ran::incrementAndGet); // no exception
    post.execute(ran::incrementAndGet);
    assertEquals(0, ran.get());
  }

  private static boolean waitFor(CountDownLatch l) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (l.getCount() > 1 && System.nanoTime() < end) Thread.sleep(1);
    return l.getCount() <= 1;
  }
}
