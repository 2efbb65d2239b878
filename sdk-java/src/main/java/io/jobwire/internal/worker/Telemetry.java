package io.jobwire.internal.worker;

import io.jobwire.internal.Version;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.LongGauge;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.context.Context;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** OpenTelemetry instruments of one worker (API only: no-ops until the application installs an SDK). */
final class Telemetry {
  static final String SCOPE = "jobwire";
  /** Bucket bounds, in seconds, the duration histogram advises (OpenTelemetry's default bounds are meant for milliseconds). */
  static final java.util.List<Double> DURATION_BUCKETS =
      java.util.List.of(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0);
  static final AttributeKey<String> TYPE = AttributeKey.stringKey("jobwire.job.type");
  static final AttributeKey<String> WORKER = AttributeKey.stringKey("jobwire.worker.name");
  static final AttributeKey<String> ACTIVATION = AttributeKey.stringKey("activation");
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("outcome");
  static final AttributeKey<String> REASON = AttributeKey.stringKey("reason");
  static final AttributeKey<String> RESULT = AttributeKey.stringKey("result");
  private static final Pattern TRACEPARENT = Pattern.compile("^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$");

  private final Tracer tracer;
  private final LongCounter activated;
  private final LongCounter handled;
  private final DoubleHistogram duration;
  private final LongCounter reconnects;
  private final LongCounter polls;
  private final LongGauge capacity;
  private long lastCapacity = -1;
  private final Attributes base;
  private final String workerName;
  private final String jobType;
  private final GuardedRecorder recorder;
  private final Map<String, String> baseMap;
  /**
   * No OpenTelemetry SDK and no recorder: the instruments are the API's no-op singletons, which stay
   * no-ops for good, so a job's metrics are skipped (no attributes built per job).
   */
  private final boolean metricsOff;
  /** The tracer is the API's no-op singleton: a job's span is the propagated parent, nothing else. */
  private final boolean tracingOff;
  /** The base attributes plus one, per instrument, by value (the values are few: activation, outcome, reason, result). */
  private final Map<String, Attributes> activatedAttrs = new ConcurrentHashMap<>();
  private final Map<String, Attributes> handledAttrs = new ConcurrentHashMap<>();

  static final String ACTIVATED = "jobwire.worker.jobs.activated";
  static final String HANDLED = "jobwire.worker.jobs.handled";
  static final String DURATION = "jobwire.worker.job.duration";
  static final String RECONNECTS = "jobwire.worker.stream.reconnects";
  static final String POLLS = "jobwire.worker.poll.requests";
  static final String CAPACITY = "jobwire.worker.capacity.used";

  Telemetry(String jobType, String workerName, IntSupplier capacityUsed) {
    this(jobType, workerName, capacityUsed, GuardedRecorder.NONE, null);
  }

  /** Also reports every instrument to {@code recorder}, with the same names and attributes. */
  Telemetry(String jobType, String workerName, IntSupplier capacityUsed, GuardedRecorder recorder,
      OpenTelemetry openTelemetry) {
    OpenTelemetry otel = openTelemetry != null ? openTelemetry : GlobalOpenTelemetry.get();
    this.workerName = workerName;
    this.jobType = jobType;
    this.recorder = recorder == null ? GuardedRecorder.NONE : recorder;
    this.baseMap = Map.of(TYPE.getKey(), jobType, WORKER.getKey(), workerName);
    tracer = otel.tracerBuilder(SCOPE).setInstrumentationVersion(Version.VERSION).build();
    Meter meter = otel.meterBuilder(SCOPE).setInstrumentationVersion(Version.VERSION).build();
    base = Attributes.of(TYPE, jobType, WORKER, workerName);
    activated = meter.counterBuilder(ACTIVATED).setDescription("jobs received by the worker").build();
    handled = meter.counterBuilder(HANDLED).setDescription("jobs finished, by outcome").build();
    duration = meter.histogramBuilder(DURATION).setUnit("s").setDescription("handler duration")
        .setExplicitBucketBoundariesAdvice(DURATION_BUCKETS).build();
    reconnects = meter.counterBuilder(RECONNECTS).setDescription("stream reopens, by reason").build();
    polls = meter.counterBuilder(POLLS).setDescription("ActivateJobs calls, by result").build();
    // a synchronous gauge: recorded on every change, so no callback stays registered after the
    // worker closed (dynamic workers do not leak) and the last value (0) stays visible
    capacity = meter.gaugeBuilder(CAPACITY).ofLongs().setDescription("jobs held by the worker").build();
    metricsOff = meter == MeterProvider.noop().get(SCOPE) && !this.recorder.active();
    tracingOff = tracer == TracerProvider.noop().get(SCOPE);
    capacityUsed(capacityUsed.getAsInt());
  }

  /** Records the jobs held (only when it changed). */
  void capacityUsed(long held) {
    if (metricsOff) return;
    if (held != lastCapacity) {
      lastCapacity = held;
      capacity.set(held, base);
      recorder.gauge(CAPACITY, held, baseMap);
    }
  }

  void jobActivated(String activation) {
    if (metricsOff) return;
    activated.add(1, activation == null ? base : activatedAttrs.computeIfAbsent(activation, a -> base.toBuilder().put(ACTIVATION, a).build()));
    recorder.counter(ACTIVATED, 1, with(ACTIVATION, activation));
  }

  void jobHandled(String outcome, Double durationS) {
    if (metricsOff) return;
    handled.add(1, outcome == null ? base : handledAttrs.computeIfAbsent(outcome, o -> base.toBuilder().put(OUTCOME, o).build()));
    recorder.counter(HANDLED, 1, with(OUTCOME, outcome));
    if (durationS != null) {
      duration.record(durationS, base);
      recorder.histogram(DURATION, durationS, "s", baseMap);
    }
  }

  void streamReconnect(String reason) {
    reconnects.add(1, base.toBuilder().put(REASON, reason).build());
    recorder.counter(RECONNECTS, 1, with(REASON, reason));
  }

  void pollRequest(String result) {
    polls.add(1, base.toBuilder().put(RESULT, result).build());
    recorder.counter(POLLS, 1, with(RESULT, result));
  }

  /** The recorder's attributes: the base pair plus one (only built when a recorder is set). */
  private Map<String, String> with(AttributeKey<String> key, String value) {
    if (!recorder.active() || value == null) return baseMap;
    return Map.of(TYPE.getKey(), jobType, WORKER.getKey(), workerName, key.getKey(), value);
  }

  /** Starts {@code process job <type>} (CONSUMER) under the job's W3C traceparent when present. */
  Span startJobSpan(JobImpl job, String activation, String traceparent) {
    Context parent = parentFrom(traceparent);
    // what the no-op tracer's span builder returns, without building the name and attributes
    if (tracingOff) return Span.wrap(Span.fromContext(parent).getSpanContext());
    return tracer.spanBuilder("process job " + job.type())
        .setSpanKind(SpanKind.CONSUMER)
        .setParent(parent)
        .setAttribute("jobwire.job.key", Long.toString(job.key()))
        .setAttribute("jobwire.job.type", job.type())
        .setAttribute("jobwire.job.retries", (long) job.retries())
        .setAttribute("jobwire.process_instance.key", Long.toString(job.processInstanceKey()))
        .setAttribute("jobwire.bpmn_process_id", job.bpmnProcessId())
        .setAttribute("jobwire.element_id", job.elementId())
        .setAttribute("jobwire.worker.name", workerName)
        .setAttribute("jobwire.activation", activation)
        .startSpan();
  }

  static void endJobSpan(Span span, String outcome, Throwable err) {
    if (!span.isRecording()) return; // a span that records nothing ignores all of it (the no-op and the propagated parent)
    span.setAttribute("jobwire.job.outcome", outcome);
    if ("completed".equals(outcome)) {
      span.setStatus(StatusCode.OK);
    } else {
      if (err != null) span.recordException(err);
      span.setStatus(StatusCode.ERROR, err != null && err.getMessage() != null ? err.getMessage() : outcome);
    }
    span.end();
  }

  static Context parentFrom(String traceparent) {
    Context root = Context.current();
    if (traceparent == null) return root;
    Matcher m = TRACEPARENT.matcher(traceparent.trim().toLowerCase(Locale.ROOT));
    if (!m.matches() || m.group(1).equals("ff")) return root;
    SpanContext sc = SpanContext.createFromRemoteParent(m.group(2), m.group(3),
        (Integer.parseInt(m.group(4), 16) & 1) == 1 ? TraceFlags.getSampled() : TraceFlags.getDefault(), TraceState.getDefault());
    if (!sc.isValid()) return root;
    return root.with(Span.wrap(sc));
  }

}
