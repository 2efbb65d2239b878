package jobwire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/jobwire/jobwire/sdk-go/internal/fakegw"
	"github.com/jobwire/jobwire/sdk-go/internal/pb"
)

func testLogger() *slog.Logger {
	if os.Getenv("JOBWIRE_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

func fakeClient(t *testing.T, gw *fakegw.Server) *Client {
	t.Helper()
	c, err := NewClient(context.Background(), WithAddress(gw.Addr), WithLogger(testLogger()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func closeWorker(t *testing.T, w *Worker) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := w.Close(ctx); err != nil {
		t.Errorf("close: %v", err)
	}
}

func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if cond() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

func outcomesOf(gw *fakegw.Server, kind string) []fakegw.Outcome {
	var out []fakegw.Outcome
	for _, o := range gw.Outcomes() {
		if kind == "" || o.Kind == kind {
			out = append(out, o)
		}
	}
	return out
}

func TestFakePollCompletesWithLosslessVariables(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	gw.AddJobs("echo", 3, `{"big":9007199254740993,"s":"x"}`, 3)
	var activations sync.Map
	w, err := c.NewWorker("echo", func(ctx context.Context, job *Job) (any, error) {
		activations.Store(job.Key, job.Activation)
		var in struct {
			Big int64 `json:"big"`
		}
		if err := job.DecodeVariables(&in); err != nil {
			return nil, err
		}
		if in.Big != 9007199254740993 {
			return nil, errors.New("lost precision")
		}
		m, _ := job.Variables()
		if m["big"].(json.Number).String() != "9007199254740993" {
			return nil, errors.New("map lost precision")
		}
		return job.VariablesJSON(), nil
	}, WithStreamEnabled(false))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	waitFor(t, "3 completions", 3*time.Second, func() bool { return len(outcomesOf(gw, "complete")) == 3 })
	for _, o := range outcomesOf(gw, "") {
		if o.Kind != "complete" || o.Variables != `{"big":9007199254740993,"s":"x"}` {
			t.Fatalf("outcome %+v", o)
		}
	}
	activations.Range(func(_, v any) bool {
		if v != "poll" {
			t.Errorf("activation %v, want poll", v)
		}
		return true
	})
	if w.State() != StatePolling {
		t.Fatalf("state %s", w.State())
	}
}

func TestFakePushAndState(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	var states []WorkerState
	var smu sync.Mutex
	var pushed atomic.Int32
	w, err := c.NewWorker("push", func(ctx context.Context, job *Job) (any, error) {
		if job.Activation == "push" {
			pushed.Add(1)
		}
		return map[string]any{"ok": true}, nil
	}, WithStateListener(func(s WorkerState) { smu.Lock(); states = append(states, s); smu.Unlock() }))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "stream open", 2*time.Second, func() bool { return gw.OpenStreams() == 1 })
	gw.AddJobs("push", 5, "", 3)
	waitFor(t, "5 completions", 3*time.Second, func() bool { return len(outcomesOf(gw, "complete")) == 5 })
	if pushed.Load() != 5 {
		t.Fatalf("pushed %d of 5", pushed.Load())
	}
	closeWorker(t, w)
	smu.Lock()
	defer smu.Unlock()
	if len(states) < 3 || states[len(states)-2] != StateClosing || states[len(states)-1] != StateClosed {
		t.Fatalf("states %v", states)
	}
	found := false
	for _, s := range states {
		found = found || s == StateStreaming
	}
	if !found {
		t.Fatalf("never streaming: %v", states)
	}
}

func TestFakeBackpressureBacksOffExponentially(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	gw.Set(func(s *fakegw.Server) {
		s.ActivateErr = func(n int) error {
			if n <= 6 {
				return status.Error(codes.ResourceExhausted, "backpressure")
			}
			return nil
		}
	})
	var sawBackoff atomic.Bool
	w, err := c.NewWorker("bp", func(ctx context.Context, job *Job) (any, error) { return nil, nil },
		WithStreamEnabled(false), WithStateListener(func(s WorkerState) {
			if s == StateBackoff {
				sawBackoff.Store(true)
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	gw.AddJobs("bp", 1, "", 3)
	waitFor(t, "completion after backpressure", 5*time.Second, func() bool { return len(gw.Outcomes()) == 1 })
	_, times := gw.Polls()
	if len(times) < 7 {
		t.Fatalf("polls %d", len(times))
	}
	want := []float64{50, 80, 128, 204.8, 327.7, 524.3}
	for i := 0; i < 6; i++ {
		gap := float64(times[i+1].Sub(times[i]).Milliseconds())
		if gap < want[i]*0.85 || gap > want[i]*1.1+150 {
			t.Errorf("gap %d = %.0f ms, want ≈ %.0f ms", i, gap, want[i])
		}
	}
	if !sawBackoff.Load() {
		t.Fatal("state never reported backoff")
	}
	waitFor(t, "state back to polling", time.Second, func() bool { return w.State() == StatePolling })
}

func TestFakeStreamUnimplementedFallsBackToPolling(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	gw.Set(func(s *fakegw.Server) {
		s.StreamErr = func() error { return status.Error(codes.Unimplemented, "no streams") }
	})
	w, err := c.NewWorker("nostream", func(ctx context.Context, job *Job) (any, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	waitFor(t, "polling state", 2*time.Second, func() bool { return w.State() == StatePolling })
	gw.AddJobs("nostream", 4, "", 3)
	waitFor(t, "4 completions", 3*time.Second, func() bool { return len(gw.Outcomes()) == 4 })
	time.Sleep(100 * time.Millisecond)
	if n := gw.StreamsOpened; n != 1 {
		t.Fatalf("stream opened %d times after UNIMPLEMENTED, want 1", n)
	}
}

func TestFakeCloseIsImmediateWithParkedLongPoll(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	w, err := c.NewWorker("idle", func(ctx context.Context, job *Job) (any, error) { return nil, nil },
		WithRequestTimeout(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a parked poll", 2*time.Second, func() bool { p, _ := gw.Polls(); return len(p) >= 1 })
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	closeWorker(t, w)
	if d := time.Since(start); d > time.Second {
		t.Fatalf("close took %v with a parked long poll", d)
	}
	if w.State() != StateClosed {
		t.Fatalf("state %s", w.State())
	}
}

func TestFakeCloseFailsBackQueuedAndCancelsRunning(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	started := make(chan struct{}, 10)
	w, err := c.NewWorker("slow", func(ctx context.Context, job *Job) (any, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}, WithStreamEnabled(false), WithMaxJobsActive(3), WithConcurrency(1), WithRetryBackOff(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	gw.AddJobs("slow", 3, "", 5)
	<-started
	waitFor(t, "3 jobs held", time.Second, func() bool { return w.inner.Held() == 3 })
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := w.Close(ctx); !errors.Is(err, ErrCloseTimeout) {
		t.Fatalf("close: %v", err)
	}
	if d := time.Since(start); d < 190*time.Millisecond || d > 2*time.Second {
		t.Fatalf("close took %v", d)
	}
	fails := outcomesOf(gw, "fail")
	if len(fails) != 3 {
		t.Fatalf("fails %+v", fails)
	}
	for _, f := range fails {
		if f.Retries != 5 || f.BackOff != 0 {
			t.Fatalf("job not handed back untouched: %+v", f)
		}
	}
	if len(started) != 0 {
		t.Fatal("a queued job was started during close")
	}
}

func TestFakeExpiredJobIsDropped(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	var ran atomic.Int32
	w, err := c.NewWorker("exp", func(ctx context.Context, job *Job) (any, error) {
		ran.Add(1)
		time.Sleep(150 * time.Millisecond)
		return nil, nil
	}, WithStreamEnabled(false), WithMaxJobsActive(2), WithConcurrency(1), WithJobTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	gw.AddJobs("exp", 2, "", 3)
	waitFor(t, "first handled", 2*time.Second, func() bool { return len(gw.Outcomes()) >= 1 })
	time.Sleep(100 * time.Millisecond)
	if ran.Load() != 1 {
		t.Fatalf("handler ran %d times; the expired job must be dropped", ran.Load())
	}
	if w.inner.Held() != 0 {
		t.Fatalf("held %d after drop", w.inner.Held())
	}
}

func TestFakeSecondDeliveryOfHeldKey(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	release := make(chan struct{})
	var running, maxRunning, calls atomic.Int32
	w, err := c.NewWorker("dup", func(ctx context.Context, job *Job) (any, error) {
		calls.Add(1)
		n := running.Add(1)
		if n > maxRunning.Load() {
			maxRunning.Store(n)
		}
		<-release
		running.Add(-1)
		return nil, nil
	}, WithStreamEnabled(false), WithMaxJobsActive(4))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	keys := gw.AddJobs("dup", 1, "", 3)
	waitFor(t, "first run", time.Second, func() bool { return calls.Load() == 1 })
	gw.AddJob(&pb.ActivatedJob{Key: keys[0], Type: "dup", Retries: 3, Variables: "{}"}) // redelivery
	waitFor(t, "redelivery polled", 2*time.Second, func() bool { p, _ := gw.Polls(); return len(p) >= 2 })
	time.Sleep(100 * time.Millisecond)
	if calls.Load() != 1 || w.inner.Held() != 1 {
		t.Fatalf("calls %d held %d: the copy must not run while the key is held", calls.Load(), w.inner.Held())
	}
	close(release)
	// The running attempt stands for both deliveries: the copy never runs.
	waitFor(t, "released", time.Second, func() bool { return w.inner.Held() == 0 })
	time.Sleep(50 * time.Millisecond)
	if calls.Load() != 1 || maxRunning.Load() != 1 {
		t.Fatalf("calls %d, max running %d", calls.Load(), maxRunning.Load())
	}
}

func TestFakeCapacityNeverExceeded(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	var running, peak atomic.Int32
	var peakHeld atomic.Int32
	w, err := c.NewWorker("cap", func(ctx context.Context, job *Job) (any, error) {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		running.Add(-1)
		return nil, nil
	}, WithMaxJobsActive(2))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if h := int32(w.inner.Held()); h > peakHeld.Load() {
				peakHeld.Store(h)
			}
			time.Sleep(time.Millisecond)
		}
	}()
	waitFor(t, "stream", time.Second, func() bool { return gw.OpenStreams() == 1 })
	gw.AddJobs("cap", 10, "", 3) // pushed and polled
	time.Sleep(20 * time.Millisecond)
	gw.AddJobs("cap", 10, "", 3)
	waitFor(t, "20 completions", 5*time.Second, func() bool { return len(outcomesOf(gw, "complete")) == 20 })
	close(stop)
	if peak.Load() > 2 || peakHeld.Load() > 2 {
		t.Fatalf("peak running %d, peak held %d, capacity 2", peak.Load(), peakHeld.Load())
	}
	for _, p := range func() []*pb.ActivateJobsRequest { p, _ := gw.Polls(); return p }() {
		if p.GetMaxJobsToActivate() > 2 || p.GetMaxJobsToActivate() < 1 {
			t.Fatalf("poll asked for %d", p.GetMaxJobsToActivate())
		}
	}
}

func TestFakeAutoExtend(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	w, err := c.NewWorker("long", func(ctx context.Context, job *Job) (any, error) {
		time.Sleep(700 * time.Millisecond)
		return nil, nil
	}, WithStreamEnabled(false), WithJobTimeout(300*time.Millisecond), WithAutoExtend(true))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	gw.AddJobs("long", 1, "", 3)
	waitFor(t, "completion", 3*time.Second, func() bool { return len(gw.Outcomes()) == 1 })
	if n := len(gw.Timeouts()); n < 2 {
		t.Fatalf("UpdateJobTimeout called %d times, want ≥ 2", n)
	}
	for _, r := range gw.Timeouts() {
		if r.GetTimeout() != 300 {
			t.Fatalf("extended by %d ms", r.GetTimeout())
		}
	}
}

func TestFakeOneShotActivateAndTopology(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	gw.AddJobs("once", 2, `{"a":1}`, 3)
	ctx := context.Background()
	jobs, err := c.ActivateJobs(ctx, ActivateJobsRequest{Type: "once", MaxJobs: 5, RequestTimeout: -1})
	if err != nil || len(jobs) != 2 {
		t.Fatalf("jobs %d err %v", len(jobs), err)
	}
	if err := jobs[0].Complete(ctx, map[string]int{"b": 2}); err != nil {
		t.Fatal(err)
	}
	if err := jobs[1].Fail(ctx, "nope", FailRetries(0)); err != nil {
		t.Fatal(err)
	}
	err = jobs[1].Fail(ctx, "again")
	var nf *NotFoundError
	if !errors.As(err, &nf) {
		t.Fatalf("one-shot job outcome after settle: %v", err)
	}
	top, err := c.Topology(ctx)
	if err != nil || top.GatewayVersion != "fake" {
		t.Fatalf("topology %+v %v", top, err)
	}
	if _, err := c.NewWorker("", nil); err == nil {
		t.Fatal("NewWorker accepted an empty job type")
	}
}

func TestFakeRoundRobinOverAddresses(t *testing.T) {
	a, b := fakegw.Start(t), fakegw.Start(t)
	c, err := NewClient(context.Background(), WithAddress(a.Addr, b.Addr), WithLogger(testLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The two fakes do not share state (real gateways do), so only check that
	// calls are spread over both addresses.
	w, err := c.NewWorker("rr", func(ctx context.Context, job *Job) (any, error) { return nil, nil },
		WithStreamEnabled(false), WithRequestTimeout(-1), WithPollInterval(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	waitFor(t, "polls on both gateways", 5*time.Second, func() bool {
		pa, _ := a.Polls()
		pb, _ := b.Polls()
		return len(pa) >= 3 && len(pb) >= 3
	})
}

func TestFakeEmptyPollsPauseOnlyWithoutLongPolling(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	w, err := c.NewWorker("quiet", func(ctx context.Context, job *Job) (any, error) { return nil, nil },
		WithStreamEnabled(false), WithRequestTimeout(-1), WithPollInterval(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(550 * time.Millisecond)
	closeWorker(t, w)
	reqs, _ := gw.Polls()
	if n := len(reqs); n < 3 || n > 7 { // one every 100 ms, not a busy loop
		t.Fatalf("%d polls in 550 ms with pollInterval 100 ms", n)
	}
	for _, r := range reqs {
		if r.GetRequestTimeout() != -1 || r.GetMaxJobsToActivate() != 32 || r.GetTimeout() != 300000 || r.GetWorker() == "" {
			t.Fatalf("request %+v", r)
		}
	}
}

func TestFakeClientCloseClosesWorkers(t *testing.T) {
	gw := fakegw.Start(t)
	c, err := NewClient(context.Background(), WithAddress(gw.Addr), WithLogger(testLogger()))
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.NewWorker("cc", func(ctx context.Context, job *Job) (any, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if w.State() != StateClosed || time.Since(start) > time.Second {
		t.Fatalf("state %s after %v", w.State(), time.Since(start))
	}
	if _, err := c.NewWorker("cc", func(ctx context.Context, job *Job) (any, error) { return nil, nil }); err == nil {
		t.Fatal("NewWorker on a closed client")
	}
}

// Rule 5: more workers than the gateway's MAX_CONCURRENT_STREAMS on one
// client: every worker's stream and long poll open, and commands still get through.
func TestFakeManyWorkersDoNotStarveCommands(t *testing.T) {
	gw := fakegw.Start(t, grpc.MaxConcurrentStreams(100))
	c := fakeClient(t, gw)
	const n = 120
	workers := make([]*Worker, n)
	for i := range workers {
		w, err := c.NewWorker(fmt.Sprintf("many-%d", i), func(ctx context.Context, job *Job) (any, error) {
			return map[string]any{"ok": true}, nil
		}, WithRequestTimeout(30*time.Second), WithMaxJobsActive(2))
		if err != nil {
			t.Fatal(err)
		}
		workers[i] = w
	}
	defer func() {
		for _, w := range workers {
			closeWorker(t, w)
		}
	}()
	waitFor(t, "120 streams and 120 parked polls", 10*time.Second, func() bool {
		p, _ := gw.Polls()
		return gw.OpenStreams() == n && len(p) >= n
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := c.Topology(ctx); err != nil {
		t.Fatalf("a command behind %d long-lived calls: %v", 2*n, err)
	}
	gw.AddJobs("many-119", 3, "", 3)
	gw.AddJobs("many-0", 3, "", 3)
	waitFor(t, "6 completions", 5*time.Second, func() bool { return len(outcomesOf(gw, "complete")) == 6 })
}
