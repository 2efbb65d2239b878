package io.jobwire.test;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/** Measurements (printed, not asserted): engine start-to-ready through the kit, reset time. -Djobwire.measure=true */
@EnabledIfSystemProperty(named = "jobwire.measure", matches = "true")
class MeasureTest {
  @Test
  void startAndReset() throws Exception {
    int n = Integer.getInteger("jobwire.measure.starts", 50);
    double[] start = new double[n];
    for (int i = 0; i < n; i++) {
      long t0 = System.nanoTime();
      try (JobwireTestEngine e = JobwireTestEngine.start()) {
        e.clock(); // ready: the admin API answers
        start[i] = (System.nanoTime() - t0) / 1e6;
      }
    }
    double[] reset = new double[50];
    try (JobwireTestEngine e = JobwireTestEngine.start()) {
      for (int i = 0; i < reset.length; i++) {
        e.deploy(JobwireExtensionTest.KIT.resolve("one-task.bpmn"));
        e.createInstance("kit-one-task");
        long t0 = System.nanoTime();
        e.reset();
        reset[i] = (System.nanoTime() - t0) / 1e6;
      }
    }
    System.out.printf("jobwire-test: engine start-to-ready over %d starts: p50 %.1f ms, p99 %.1f ms%n", n, pct(start, 50), pct(start, 99));
    System.out.printf("jobwire-test: reset over %d resets: p50 %.1f ms, p99 %.1f ms%n", reset.length, pct(reset, 50), pct(reset, 99));
  }

  static double pct(double[] v, int p) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s[Math.min(s.length - 1, (int) Math.ceil(p / 100.0 * s.length) - 1)];
  }
}
