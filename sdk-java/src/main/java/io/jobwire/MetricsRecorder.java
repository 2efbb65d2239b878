package io.jobwire;

import java.util.Map;

/**
 * Receives every worker metric the SDK records, under the same instrument name and with the same
 * attributes it gives OpenTelemetry (docs/worker-semantics.md, Telemetry): a bridge to Micrometer
 * or any other registry without an OpenTelemetry SDK. Every method is a no-op by default.
 *
 * <p>The names: {@code jobwire.worker.jobs.activated} (attribute {@code activation}),
 * {@code jobwire.worker.jobs.handled} ({@code outcome}), {@code jobwire.worker.stream.reconnects}
 * ({@code reason}), {@code jobwire.worker.poll.requests} ({@code result}) — counters;
 * {@code jobwire.worker.job.duration} (unit {@code s}) — a histogram;
 * {@code jobwire.worker.capacity.used} — a gauge. Each also carries {@code jobwire.job.type} and
 * {@code jobwire.worker.name}.
 *
 * <p>Calls come from the worker's threads and must be quick and thread-safe. A recorder that throws
 * is logged (WARN, once per instrument) and otherwise ignored: it never reaches the handler, the
 * job's outcome or the worker's capacity. Set it with {@link JobwireClient.Builder#metricsRecorder}.
 */
public interface MetricsRecorder {
  /**
   * Adds to a monotonic counter.
   *
   * @param name the instrument name, e.g. {@code jobwire.worker.jobs.handled}
   * @param delta the increment (positive)
   * @param attributes the attributes (immutable)
   */
  default void counter(String name, long delta, Map<String, String> attributes) {}

  /**
   * Records a value into a histogram.
   *
   * @param name the instrument name, e.g. {@code jobwire.worker.job.duration}
   * @param value the value, in {@code unit}
   * @param unit the unit ({@code s} for durations)
   * @param attributes the attributes (immutable)
   */
  default void histogram(String name, double value, String unit, Map<String, String> attributes) {}

  /**
   * Sets a gauge's current value.
   *
   * @param name the instrument name, e.g. {@code jobwire.worker.capacity.used}
   * @param value the current value
   * @param attributes the attributes (immutable)
   */
  default void gauge(String name, long value, Map<String, String> attributes) {}
}
