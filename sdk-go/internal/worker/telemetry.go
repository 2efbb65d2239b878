package worker

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobwire/jobwire/sdk-go/internal/pb"
)

// InstrumentationName is the OpenTelemetry scope of the SDK.
const InstrumentationName = "github.com/jobwire/jobwire/sdk-go"

// Telemetry holds the worker's spans and metrics (OpenTelemetry API only: a
// no-op unless the application installs providers).
type Telemetry struct {
	tracer     trace.Tracer
	base       []attribute.KeyValue // job type + worker name, on every metric
	baseOpt    metric.MeasurementOption
	baseRec    []metric.RecordOption                    // {baseOpt}: passed as is, so a recording allocates no slice
	opts       map[string]map[string][]metric.AddOption // key -> value -> {base plus that attribute} (read-only)
	tp         trace.TracerProvider
	global     bool   // tp is OpenTelemetry's global provider (otel.GetTracerProvider() when no SDK was installed yet)
	spanName   string // "process job <type>"
	activated  metric.Int64Counter
	handled    metric.Int64Counter
	duration   metric.Float64Histogram
	capacity   metric.Int64Gauge
	reconnects metric.Int64Counter
	polls      metric.Int64Counter
}

// NewTelemetry creates the instruments.
func NewTelemetry(tp trace.TracerProvider, mp metric.MeterProvider, jobType, workerName string) *Telemetry {
	t := &Telemetry{
		tracer: tp.Tracer(InstrumentationName),
		base:   []attribute.KeyValue{attribute.String("jobwire.job.type", jobType), attribute.String("jobwire.worker.name", workerName)},
	}
	t.baseOpt = metric.WithAttributeSet(attribute.NewSet(t.base...))
	t.baseRec = []metric.RecordOption{t.baseOpt}
	t.tp = tp
	t.global = isGlobalDefault(tp)
	t.spanName = "process job " + jobType
	// the measurement options of every value the worker records, built once: building an attribute set
	// sorts and hashes it, which cost more than a no-op recording itself on every job (profile of bench/
	// go-jobwire, workload 1); the maps are never written after this, so reading them needs no lock
	t.opts = map[string]map[string][]metric.AddOption{}
	for key, values := range map[string][]string{
		"activation": {"push", "poll"},
		"outcome":    {"completed", "failed", "error", "expired", "not_found", "returned", "duplicate", "undelivered", "unsettled"},
		"reason":     {"error", "closed", "recycled", "stalled"},
		"result":     {"jobs", "empty", "error"},
	} {
		t.opts[key] = map[string][]metric.AddOption{}
		for _, v := range values {
			t.opts[key][v] = []metric.AddOption{t.build(attribute.String(key, v))}
		}
	}
	m := mp.Meter(InstrumentationName)
	// Instrument creation only fails on invalid names; ours are constants, and
	// the API returns a usable no-op instrument alongside any error.
	t.activated, _ = m.Int64Counter("jobwire.worker.jobs.activated", metric.WithDescription("jobs received by the worker"))
	t.handled, _ = m.Int64Counter("jobwire.worker.jobs.handled", metric.WithDescription("jobs finished, by outcome"))
	t.duration, _ = m.Float64Histogram("jobwire.worker.job.duration", metric.WithDescription("handler duration"), metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(DurationBuckets...))
	t.reconnects, _ = m.Int64Counter("jobwire.worker.stream.reconnects", metric.WithDescription("job stream reopenings"))
	t.polls, _ = m.Int64Counter("jobwire.worker.poll.requests", metric.WithDescription("ActivateJobs calls, by result"))
	t.capacity, _ = m.Int64Gauge("jobwire.worker.capacity.used", metric.WithDescription("jobs held by the worker"))
	t.Capacity(0)
	return t
}

// DurationBuckets are the bucket bounds, in seconds, the duration histogram
// advises (an SDK view may override them): OpenTelemetry's default bounds are
// meant for milliseconds and would put nearly every job in the first bucket.
var DurationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300}

// Capacity records the number of jobs held.
func (t *Telemetry) Capacity(jobs int) {
	t.capacity.Record(context.Background(), int64(jobs), t.baseRec...)
}

// with returns the add options for the base attributes plus key=value: the
// ones built in NewTelemetry for the values the worker records, else new ones.
// (A slice passed on with ... is not copied: a recording allocates nothing.)
func (t *Telemetry) with(key, value string) []metric.AddOption {
	if o, ok := t.opts[key][value]; ok {
		return o
	}
	return []metric.AddOption{t.build(attribute.String(key, value))}
}

func (t *Telemetry) build(kv attribute.KeyValue) metric.MeasurementOption {
	return metric.WithAttributeSet(attribute.NewSet(append(append([]attribute.KeyValue{}, t.base...), kv)...))
}

// Activated counts a received job ("push" or "poll").
func (t *Telemetry) Activated(activation string) {
	t.activated.Add(context.Background(), 1, t.with("activation", activation)...)
}

// Handled counts a finished job: completed, failed, error, expired, not_found,
// returned, duplicate, undelivered or unsettled.
func (t *Telemetry) Handled(outcome string) {
	t.handled.Add(context.Background(), 1, t.with("outcome", outcome)...)
}

// Duration records a handler's run time.
func (t *Telemetry) Duration(d time.Duration) {
	t.duration.Record(context.Background(), d.Seconds(), t.baseRec...)
}

// Reconnect counts a stream reopening, by reason: error, closed (ended
// cleanly by the gateway), recycled (streamTimeout) or stalled (the watchdog).
func (t *Telemetry) Reconnect(reason string) {
	t.reconnects.Add(context.Background(), 1, t.with("reason", reason)...)
}

// Poll counts an ActivateJobs call: result is "jobs", "empty" or "error".
func (t *Telemetry) Poll(result string) {
	t.polls.Add(context.Background(), 1, t.with("result", result)...)
}

var spanKindConsumer = trace.WithSpanKind(trace.SpanKindConsumer)

// isGlobalDefault reports whether tp is the provider OpenTelemetry's API
// returns before an SDK provider is installed: it delegates to the one
// installed later, and until then makes non-recording spans.
func isGlobalDefault(tp trace.TracerProvider) bool {
	t := reflect.TypeOf(tp)
	return t != nil && t.Kind() == reflect.Pointer && t.Elem().PkgPath() == "go.opentelemetry.io/otel/internal/global"
}

// StartJob opens the `process job <type>` span, a child of the W3C trace
// context found in the job's `traceparent` variable or header, if any.
func (t *Telemetry) StartJob(ctx context.Context, j *pb.ActivatedJob, workerName, activation string) (context.Context, trace.Span) {
	if carrier := traceCarrier(j); carrier != nil {
		ctx = propagation.TraceContext{}.Extract(ctx, carrier)
	}
	if t.global && otel.GetTracerProvider() == t.tp {
		// OpenTelemetry's global provider with no SDK installed (yet): its span
		// would be a non-recording one carrying the parent's span context, which
		// is what ctx already holds; starting it cost a span and a context per
		// job. Checked per job: a provider installed later is used at once.
		return ctx, trace.SpanFromContext(ctx)
	}
	ctx, span := t.tracer.Start(ctx, t.spanName, spanKindConsumer)
	if span.IsRecording() {
		// only a recording span gets the attributes (no tracer provider installed: nothing is built per job)
		span.SetAttributes(
			attribute.String("jobwire.job.key", strconv.FormatInt(j.GetKey(), 10)),
			attribute.String("jobwire.job.type", j.GetType()),
			attribute.Int("jobwire.job.retries", int(j.GetRetries())),
			attribute.String("jobwire.process_instance.key", strconv.FormatInt(j.GetProcessInstanceKey(), 10)),
			attribute.String("jobwire.bpmn_process_id", j.GetBpmnProcessId()),
			attribute.String("jobwire.element_id", j.GetElementId()),
			attribute.String("jobwire.worker.name", workerName),
			attribute.String("jobwire.activation", activation),
		)
	}
	return ctx, span
}

// EndJob records the outcome on the span and ends it.
func EndJob(span trace.Span, outcome string, err error) {
	if !span.IsRecording() {
		span.End()
		return
	}
	span.SetAttributes(attribute.String("jobwire.job.outcome", outcome))
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, truncate(err.Error(), 256))
	} else if outcome != "completed" {
		span.SetStatus(codes.Error, outcome)
	}
	span.End()
}

// traceCarrier reads traceparent (and tracestate) from the job's variables,
// else from its custom headers.
func traceCarrier(j *pb.ActivatedJob) propagation.MapCarrier {
	for _, src := range []string{j.GetVariables(), j.GetCustomHeaders()} {
		if src == "" || !containsTraceparent(src) {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(src), &m) != nil {
			continue
		}
		if tp, ok := m["traceparent"].(string); ok && tp != "" {
			c := propagation.MapCarrier{"traceparent": tp}
			if ts, ok := m["tracestate"].(string); ok {
				c["tracestate"] = ts
			}
			return c
		}
	}
	return nil
}

func containsTraceparent(s string) bool { return strings.Contains(s, "traceparent") }
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
