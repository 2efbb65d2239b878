package io.jobwire.examples;

import io.jobwire.JobErrorException;
import io.jobwire.JobHandler;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Bookkeeping for `make run`: counts handled jobs and measures the hand-off latency (time from the
 * previous task's handler returning to this handler starting: completion, engine, job push). Not
 * needed in your own worker.
 */
final class Stats {
  /** Log buckets of 5 % width from 10 µs up (same as the Go and Node examples). */
  static final class Histogram {
    final long[] counts = new long[400];

    void add(double ms) {
      int i = ms > 0.01 ? (int) Math.floor(Math.log(ms / 0.01) / Math.log(1.05)) : 0;
      counts[Math.min(Math.max(i, 0), counts.length - 1)]++;
    }

    double quantile(double q) {
      long n = 0;
      for (long c : counts) n += c;
      if (n == 0) return 0;
      long rank = (long) Math.ceil(q * n);
      long seen = 0;
      for (int i = 0; i < counts.length; i++) {
        seen += counts[i];
        if (seen >= rank) return 0.01 * Math.pow(1.05, i + 1);
      }
      return 0;
    }
  }

  private final String sdk;
  private final long start = System.nanoTime();
  private long lastTime = start;
  private long lastN;
  private long handled;
  private long bpmnErrors;
  private long failed;
  private long inflight;
  private final Map<String, Long> byType = new TreeMap<>();
  private final Histogram total = new Histogram();
  private Histogram window = new Histogram();

  Stats(String sdk) {
    this.sdk = sdk;
  }

  static double nowMs() {
    return System.currentTimeMillis() + (System.nanoTime() % 1_000_000) / 1e6;
  }

  /** A middleware: counts the worker's jobs and passes the hand-off timestamp on. */
  io.jobwire.Middleware middleware(String jobType) {
    return (job, next) -> wrap(jobType, j -> next.proceed()).handle(job);
  }

  /** Wraps a handler: counts its jobs and passes the hand-off timestamp on. */
  JobHandler wrap(String jobType, JobHandler handler) {
    return job -> {
      double startedAt = nowMs();
      synchronized (this) {
        inflight++;
      }
      boolean bpmn = false;
      boolean fail = false;
      try {
        Object out = handler.handle(job);
        if (out instanceof Map) {
          @SuppressWarnings("unchecked")
          Map<String, Object> m = (Map<String, Object>) out;
          m.put("handedOffAt", nowMs());
        }
        return out;
      } catch (JobErrorException e) {
        bpmn = true;
        throw e;
      } catch (Exception e) {
        fail = true;
        throw e;
      } finally {
        Object at = job.variables().get("handedOffAt");
        synchronized (this) {
          inflight--;
          handled++;
          if (bpmn) bpmnErrors++;
          if (fail) failed++;
          byType.merge(jobType, 1L, Long::sum);
          if (at instanceof Number && ((Number) at).doubleValue() > 0) {
            double d = startedAt - ((Number) at).doubleValue();
            total.add(d);
            window.add(d);
          }
        }
      }
    };
  }

  /** Writes one JSON line to stdout (read by examples/go/load). */
  synchronized void print(boolean fin) {
    long now = System.nanoTime();
    double rate = (handled - lastN) * 1e9 / Math.max(1, now - lastTime);
    StringBuilder types = new StringBuilder("{");
    byType.forEach((k, v) -> types.append(types.length() > 1 ? "," : "").append('"').append(k).append("\":").append(v));
    types.append('}');
    System.out.println(String.format(Locale.ROOT,
        "{\"stats\":\"order-worker\",\"sdk\":\"%s\",\"final\":%s,\"uptime_s\":%.3f,\"handled\":%d,\"by_type\":%s,\"bpmn_errors\":%d,"
            + "\"failed\":%d,\"inflight\":%d,\"jobs_per_s\":%.1f,\"p50_ms\":%.4f,\"p99_ms\":%.4f,\"total_p50_ms\":%.4f,\"total_p99_ms\":%.4f}",
        sdk, fin, (now - start) / 1e9, handled, types, bpmnErrors, failed, inflight, rate, window.quantile(0.5), window.quantile(0.99),
        total.quantile(0.5), total.quantile(0.99)));
    System.out.flush();
    window = new Histogram();
    lastN = handled;
    lastTime = now;
  }
}
