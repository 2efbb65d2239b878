package io.jobwire.spring;

import io.jobwire.MetricsRecorder;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The SDK's worker metrics as Micrometer meters, named exactly as the OpenTelemetry instruments
 * and tagged with the same attribute keys: counters become {@link Counter}s
 * ({@code jobwire.worker.jobs.handled}, rendered {@code jobwire_worker_jobs_handled_total} by
 * Prometheus), the duration histogram (unit {@code s}) a {@link Timer}, other histograms a
 * {@link DistributionSummary}, and the gauge one registered gauge per attribute set. A registry
 * that throws never reaches a job: the SDK guards every call into a {@link MetricsRecorder}.
 */
public class JobwireMicrometerRecorder implements MetricsRecorder {
  private final MeterRegistry registry;
  private final Map<Key, Counter> counters = new ConcurrentHashMap<>();
  private final Map<Key, Timer> timers = new ConcurrentHashMap<>();
  private final Map<Key, DistributionSummary> summaries = new ConcurrentHashMap<>();
  private final Map<Key, AtomicLong> gauges = new ConcurrentHashMap<>();

  private record Key(String name, Map<String, String> attributes) {}

  /** @param registry the registry the meters go to */
  public JobwireMicrometerRecorder(MeterRegistry registry) {
    this.registry = registry;
  }

  static Tags tags(Map<String, String> attributes) {
    List<Tag> out = new ArrayList<>(attributes.size());
    attributes.forEach((k, v) -> out.add(Tag.of(k, v)));
    return Tags.of(out);
  }

  @Override
  public void counter(String name, long delta, Map<String, String> attributes) {
    Key k = new Key(name, attributes);
    Counter c = counters.get(k);
    if (c == null) {
      c = Counter.builder(name).tags(tags(attributes)).register(registry);
      counters.put(k, c);
    }
    c.increment(delta);
  }

  @Override
  public void histogram(String name, double value, String unit, Map<String, String> attributes) {
    Key k = new Key(name, attributes);
    if ("s".equals(unit)) {
      Timer t = timers.get(k);
      if (t == null) {
        t = Timer.builder(name).tags(tags(attributes)).register(registry);
        timers.put(k, t);
      }
      t.record(Duration.ofNanos((long) (value * 1e9)));
    } else {
      DistributionSummary s = summaries.get(k);
      if (s == null) {
        s = DistributionSummary.builder(name).baseUnit(unit).tags(tags(attributes)).register(registry);
        summaries.put(k, s);
      }
      s.record(value);
    }
  }

  @Override
  public void gauge(String name, long value, Map<String, String> attributes) {
    Key k = new Key(name, attributes);
    AtomicLong g = gauges.get(k);
    if (g == null) {
      AtomicLong fresh = new AtomicLong(value);
      // the registry holds the number weakly: this map keeps it alive
      registry.gauge(name, tags(attributes), fresh);
      gauges.put(k, fresh);
      return;
    }
    g.set(value);
  }
}
