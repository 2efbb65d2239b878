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
}

func (r *recordingTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	r.mu.Lock()
	r.spans = append(r.spans, startedSpan{name, trace.SpanContextFromContext(ctx), trace.NewSpanStartConfig(opts...)})
	r.mu.Unlock()
	return noop.NewTracerProvider().Tracer("").Start(ctx, name, opts...)
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
		attrs := attribute.NewSet(s.cfg.Attributes()...)
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
