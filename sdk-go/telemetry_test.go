package jobwire

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/jobwire/jobwire/sdk-go/internal/fakegw"
)

// recordingTracer captures span starts (API only: the SDK must not depend on
// the OpenTelemetry SDK, not even in tests).
type recordingProvider struct {
	embedded.TracerProvider
	t *recordingTracer
}

func (p recordingProvider) Tracer(string, ...trace.TracerOption) trace.Tracer { return p.t }

type recordingTracer struct {
	embedded.Tracer
	mu    sync.Mutex
	spans []startedSpan
}

type startedSpan struct {
	name   string
	parent trace.SpanContext
	cfg    trace.SpanConfig
	set    []attribute.KeyValue // SetAttributes after the start
}

// recordingSpan is a span that says it records (as a sampled span of an
// OpenTelemetry SDK does) and keeps what SetAttributes sets.
type recordingSpan struct {
	trace.Span
	r *recordingTracer
	i int
}

func (s recordingSpan) IsRecording() bool { return true }
func (s recordingSpan) SetAttributes(kv ...attribute.KeyValue) {
	s.r.mu.Lock()
	s.r.spans[s.i].set = append(s.r.spans[s.i].set, kv...)
	s.r.mu.Unlock()
}

func (r *recordingTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	r.mu.Lock()
	r.spans = append(r.spans, startedSpan{name: name, parent: trace.SpanContextFromContext(ctx), cfg: trace.NewSpanStartConfig(opts...)})
	i := len(r.spans) - 1
	r.mu.Unlock()
	ctx, sp := noop.NewTracerProvider().Tracer("").Start(ctx, name, opts...)
	rs := recordingSpan{Span: sp, r: r, i: i}
	return trace.ContextWithSpan(ctx, rs), rs
}

func TestSpanPerJobWithTraceparentParent(t *testing.T) {
	gw := fakegw.Start(t)
	rt := &recordingTracer{}
	c, err := NewClient(context.Background(), WithAddress(gw.Addr), WithLogger(testLogger()), WithTracerProvider(recordingProvider{t: rt}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	gw.AddJobs("traced", 1, `{"traceparent":"`+tp+`"}`, 3)
	gw.AddJobs("traced", 1, `{}`, 3)
	w, err := c.NewWorker("traced", func(ctx context.Context, job *Job) (any, error) { return nil, nil },
		WithStreamEnabled(false), WithWorkerName("tw"))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	waitFor(t, "two completions", 2*time.Second, func() bool { return len(gw.Outcomes()) == 2 })
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if len(rt.spans) != 2 {
		t.Fatalf("spans %d", len(rt.spans))
	}
	parented := 0
	for _, s := range rt.spans {
		if s.name != "process job traced" || s.cfg.SpanKind() != trace.SpanKindConsumer {
			t.Fatalf("span %q kind %v", s.name, s.cfg.SpanKind())
		}
		// the attributes at the start or set on the recording span (a span that does not record gets none)
		attrs := attribute.NewSet(append(s.cfg.Attributes(), s.set...)...)
		for _, k := range []attribute.Key{"jobwire.job.key", "jobwire.job.type", "jobwire.job.retries", "jobwire.process_instance.key",
			"jobwire.bpmn_process_id", "jobwire.element_id", "jobwire.worker.name", "jobwire.activation"} {
			if _, ok := attrs.Value(k); !ok {
				t.Fatalf("span lacks %s", k)
			}
		}
		if v, _ := attrs.Value("jobwire.activation"); v.AsString() != "poll" {
			t.Fatalf("activation %v", v)
		}
		if s.parent.IsValid() {
			parented++
			if s.parent.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || !s.parent.IsRemote() {
				t.Fatalf("parent %v", s.parent)
			}
		}
	}
	if parented != 1 {
		t.Fatalf("%d spans with a parent, want 1", parented)
	}
}
