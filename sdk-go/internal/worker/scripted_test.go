package worker

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/jobwire/jobwire/sdk-go/internal/pb"
)

// A scripted in-memory gateway: each ActivateJobs / StreamActivatedJobs call
// is handed to the test, which decides what the call receives and when.

type fakeCall[T any] struct {
	grpc.ClientStream
	ctx  context.Context
	ch   chan *T
	gate chan struct{} // when set, Recv waits for it, then returns a queued response even after cancel (it was in flight)
}

// Header: the fake gateway sends no jobwire-stream-id (like Zeebe), so the
// worker never calls ReleaseUnread on it.
func (s *fakeCall[T]) Header() (metadata.MD, error) { return metadata.MD{}, nil }

func (s *fakeCall[T]) Recv() (*T, error) {
	if s.gate != nil {
		<-s.gate
		select {
		case m, ok := <-s.ch:
			if !ok {
				return nil, io.EOF
			}
			return m, nil
		default:
		}
	}
	select {
	case m, ok := <-s.ch:
		if !ok {
			return nil, io.EOF
		}
		return m, nil
	case <-s.ctx.Done():
		return nil, status.FromContextError(s.ctx.Err()).Err()
	}
}

type scriptedGW struct {
	pb.GatewayClient
	firstPollGate chan struct{}
	polls         chan *fakeCall[pb.ActivateJobsResponse]
	streams       chan *fakeCall[pb.ActivatedJob]
	failGate      chan struct{} // when set, FailJob waits for it (an outcome in flight)
	mu            sync.Mutex
	quickPolls    int // non-parking polls, answered empty at once
	fails         []*pb.FailJobRequest
	completes     []int64
}

func newScriptedGW(gateFirstPoll bool) *scriptedGW {
	var gate chan struct{}
	if gateFirstPoll {
		gate = make(chan struct{})
	}
	return &scriptedGW{firstPollGate: gate,
		polls: make(chan *fakeCall[pb.ActivateJobsResponse], 16), streams: make(chan *fakeCall[pb.ActivatedJob], 16)}
}

func (g *scriptedGW) ActivateJobs(ctx context.Context, r *pb.ActivateJobsRequest, _ ...grpc.CallOption) (grpc.ServerStreamingClient[pb.ActivateJobsResponse], error) {
	c := &fakeCall[pb.ActivateJobsResponse]{ctx: ctx, ch: make(chan *pb.ActivateJobsResponse, 4)}
	if r.GetRequestTimeout() < 0 {
		// A poll that does not park (the backfill after the stream opened, a
		// fairness poll): answered at once, empty; only parked polls are scripted.
		close(c.ch)
		g.mu.Lock()
		g.quickPolls++
		g.mu.Unlock()
		return c, nil
	}
	g.mu.Lock()
	c.gate, g.firstPollGate = g.firstPollGate, nil
	g.mu.Unlock()
	g.polls <- c
	return c, nil
}

func (g *scriptedGW) StreamActivatedJobs(ctx context.Context, _ *pb.StreamActivatedJobsRequest, _ ...grpc.CallOption) (grpc.ServerStreamingClient[pb.ActivatedJob], error) {
	c := &fakeCall[pb.ActivatedJob]{ctx: ctx, ch: make(chan *pb.ActivatedJob, 16)}
	g.streams <- c
	return c, nil
}

func (g *scriptedGW) FailJob(_ context.Context, r *pb.FailJobRequest, _ ...grpc.CallOption) (*pb.FailJobResponse, error) {
	if g.failGate != nil {
		<-g.failGate
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.fails = append(g.fails, r)
	return &pb.FailJobResponse{}, nil
}

func (g *scriptedGW) CompleteJob(_ context.Context, r *pb.CompleteJobRequest, _ ...grpc.CallOption) (*pb.CompleteJobResponse, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.completes = append(g.completes, r.GetJobKey())
	return &pb.CompleteJobResponse{}, nil
}

func (g *scriptedGW) failed() []*pb.FailJobRequest {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]*pb.FailJobRequest(nil), g.fails...)
}

func job(key int64) *pb.ActivatedJob {
	return &pb.ActivatedJob{Key: key, Type: "t", Retries: 3, Variables: "{}", Deadline: time.Now().Add(time.Minute).UnixMilli()}
}

func startScripted(t *testing.T, gw *scriptedGW, max int, h Handler, meter ...*countingMeter) *Worker {
	t.Helper()
	cfg := Config{JobType: "t", WorkerName: "w", MaxJobsActive: max, Concurrency: max, JobTimeout: time.Minute,
		RequestTimeout: 30 * time.Second, StreamEnabled: true, StreamTimeout: time.Hour, RetryBackOff: time.Minute}
	if len(meter) > 0 {
		cfg.Meter = countingProvider{m: meter[0]}
	}
	w := Start(cfg, Gateways{Unary: gw, Long: gw}, h)
	w.Run()
	return w
}

func recv[T any](t *testing.T, ch chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(2 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(2 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// countingMeter records counter increments by name and the "outcome" /
// "result" attribute (OpenTelemetry API only, no SDK).
type countingMeter struct {
	metricnoop.Meter
	mu     sync.Mutex
	counts map[string]int64
}

type countingProvider struct {
	metricnoop.MeterProvider
	m *countingMeter
}

func (p countingProvider) Meter(string, ...metric.MeterOption) metric.Meter { return p.m }

func (m *countingMeter) Int64Counter(name string, _ ...metric.Int64CounterOption) (metric.Int64Counter, error) {
	return countingCounter{m: m, name: name}, nil
}

func (m *countingMeter) get(key string) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.counts[key]
}

type countingCounter struct {
	metricnoop.Int64Counter
	m    *countingMeter
	name string
}

func (c countingCounter) Add(_ context.Context, v int64, opts ...metric.AddOption) {
	attrs := metric.NewAddConfig(opts).Attributes()
	key := c.name
	for _, a := range []attribute.Key{"outcome", "result", "activation"} {
		if val, ok := attrs.Value(a); ok {
			key += "{" + string(a) + "=" + val.AsString() + "}"
		}
	}
	c.m.mu.Lock()
	if c.m.counts == nil {
		c.m.counts = map[string]int64{}
	}
	c.m.counts[key] += v
	c.m.mu.Unlock()
}

func jobDue(key int64, in time.Duration) *pb.ActivatedJob {
	j := job(key)
	j.Deadline = time.Now().Add(in).UnixMilli()
	return j
}

func closeNow(t *testing.T, w *Worker) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// Rule 4a: a redelivery of a key whose handler runs is not run again; the
