package io.jobwire.internal.worker;

import io.jobwire.MetricsRecorder;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's {@link MetricsRecorder} behind a guard: whatever a call throws is caught and logged
 * (WARN, once per instrument name for this client), so a failing registry never reaches the
 * handler, the ledger or the outcome. Only a {@link VirtualMachineError} passes through.
 */
public final class GuardedRecorder {
  private static final Logger LOG = LoggerFactory.getLogger(GuardedRecorder.class);
  /** No recorder: every call returns at once. */
  public static final GuardedRecorder NONE = new GuardedRecorder(null);

  private final MetricsRecorder recorder;
  private final Set<String> warned = ConcurrentHashMap.newKeySet();

  /** @param recorder the application's recorder, or null for none */
  public GuardedRecorder(MetricsRecorder recorder) {
    this.recorder = recorder;
  }

  boolean active() {
    return recorder != null;
  }

  void counter(String name, long delta, Map<String, String> attributes) {
    if (recorder == null) return;
    try {
      recorder.counter(name, delta, attributes);
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Throwable t) {
      failed(name, t);
    }
  }

  void histogram(String name, double value, String unit, Map<String, String> attributes) {
    if (recorder == null) return;
    try {
      recorder.histogram(name, value, unit, attributes);
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Throwable t) {
      failed(name, t);
    }
  }

  void gauge(String name, long value, Map<String, String> attributes) {
    if (recorder == null) return;
    try {
      recorder.gauge(name, value, attributes);
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Throwable t) {
      failed(name, t);
    }
  }

  private void failed(String name, Throwable t) {
    if (warned.add(name)) {
      LOG.warn("jobwire: the metrics recorder {} failed on {} (ignored; logged once per instrument)", recorder.getClass().getName(), name, t);
    }
  }
}
