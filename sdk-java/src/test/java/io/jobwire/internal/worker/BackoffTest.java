package io.jobwire.internal.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BackoffTest {
  @Test
  void growsBy16FromFiftyMsToFiveSecondsAndResets() {
    Backoff b = new Backoff(() -> 0.5); // no jitter
    assertEquals(50, b.next());
    assertEquals(80, b.next());
    assertEquals(128, b.next());
    long last = 0;
    for (int i = 0; i < 20; i++) last = b.next();
    assertEquals(5_000, last);
    b.reset();
    assertEquals(50, b.next());
    assertEquals(5_000, b.max());
  }

  @Test
  void jitterStaysWithinTenPercent() {
    Backoff lo = new Backoff(() -> 0.0);
    Backoff hi = new Backoff(() -> 0.999999);
    assertEquals(45, lo.next());
    assertEquals(55, hi.next());
    Backoff r = new Backoff();
    for (int i = 0; i < 1000; i++) {
      r.reset();
      long d = r.next();
      assertTrue(d >= 45 && d <= 55, "delay " + d);
    }
  }

  @Test
  void autoExtendWaitsHalfTheTimeLeftAndRetriesAfterTheBackoffAlone() {
    Backoff b = new Backoff(() -> 0.5); // no jitter
    assertEquals(5_000, WorkerImpl.extendWaitMs(10_000, false, b));
    assertEquals(50, WorkerImpl.extendWaitMs(60, false, b)); // floor
    assertEquals(50, WorkerImpl.extendWaitMs(5_000, true, b)); // back-off alone, not plus a share of the time left
    assertEquals(80, WorkerImpl.extendWaitMs(4_950, true, b));
    assertEquals(100, WorkerImpl.extendWaitMs(200, true, b)); // 128 capped at half of 200
    assertEquals(20, WorkerImpl.extendWaitMs(10, true, b)); // floor
  }
}
