package jobwire_test

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

	jobwire "github.com/jobwire/jobwire/sdk-go"
	"github.com/jobwire/jobwire/sdk-go/internal/testengine"
)

// Integration tests against the real reference engine (started per test).

func logger() *slog.Logger {
	if os.Getenv("JOBWIRE_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

func engineClient(t *testing.T, e *testengine.Engine, opts ...jobwire.ClientOption) *jobwire.Client {
	t.Helper()
	c, err := jobwire.NewClient(context.Background(), append([]jobwire.ClientOption{jobwire.WithAddress(e.Addr), jobwire.WithLogger(logger())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func deploy(t *testing.T, c *jobwire.Client, jobType string) string {
	t.Helper()
	d, err := c.DeployResource(context.Background(), "one-task-"+jobType+".bpmn", testengine.BPMN(jobType))
	if err != nil {
		t.Fatalf("deploy: %v", err)
	}
	if len(d.Processes) != 1 || d.Processes[0].BPMNProcessID != "one-task-"+jobType {
		t.Fatalf("deployment %+v", d)
	}
	return d.Processes[0].BPMNProcessID
}

// runInstances creates n instances with result, concurrently, and fails the
// test unless all of them complete.
func runInstances(t *testing.T, c *jobwire.Client, processID string, n int, vars any) []*jobwire.ProcessInstanceResult {
	t.Helper()
	results := make([]*jobwire.ProcessInstanceResult, n)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
			defer cancel()
			r, err := c.CreateProcessInstanceWithResult(ctx, jobwire.CreateInstance{BPMNProcessID: processID, Version: -1, Variables: vars}, 20*time.Second)
			if err != nil {
				errs <- err
				return
			}
			results[i] = r
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("instance did not complete: %v", err) // reports the first; the rest are alike
	}
	return results
}

func closeW(t *testing.T, w *jobwire.Worker) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := w.Close(ctx); err != nil {
		t.Errorf("close: %v", err)
	}
}

func TestEnginePollingWorker(t *testing.T) {
	e := testengine.Start(t)
	c := engineClient(t, e)
	pid := deploy(t, c, "poll-task")
	var handled atomic.Int32
	var wrong atomic.Value
	w, err := c.NewWorker("poll-task", func(ctx context.Context, job *jobwire.Job) (any, error) {
		handled.Add(1)
		if job.Activation != "poll" || job.BPMNProcessID != pid || job.ElementID != "task" || job.Retries != 3 {
			wrong.Store(fmt.Sprintf("%+v", job))
		}
		return map[string]any{"handled": true}, nil
	}, jobwire.WithStreamEnabled(false), jobwire.WithWorkerName("poller"))
	if err != nil {
		t.Fatal(err)
	}
	defer closeW(t, w)
	res := runInstances(t, c, pid, 30, map[string]any{"n": 1})
	if v := wrong.Load(); v != nil {
		t.Fatalf("unexpected job: %v", v)
	}
	var out map[string]any
	if err := res[0].Decode(&out); err != nil || out["handled"] != true {
		t.Fatalf("result variables %s", res[0].Variables)
	}
	if handled.Load() != 30 {
		t.Fatalf("handled %d", handled.Load())
	}
}

func TestEnginePushWorkerLossless(t *testing.T) {
	e := testengine.Start(t)
	c := engineClient(t, e)
	pid := deploy(t, c, "push-task")
	var pushed atomic.Int32
	streaming := make(chan struct{})
	var once sync.Once
	w, err := c.NewWorker("push-task", func(ctx context.Context, job *jobwire.Job) (any, error) {
		if job.Activation == "push" {
			pushed.Add(1)
		}
		return job.VariablesJSON(), nil // echo, lossless
	}, jobwire.WithStateListener(func(s jobwire.WorkerState) {
		if s == jobwire.StateStreaming {
			once.Do(func() { close(streaming) })
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer closeW(t, w)
	select {
	case <-streaming:
	case <-time.After(5 * time.Second):
		t.Fatal("worker never streaming")
	}
	time.Sleep(100 * time.Millisecond) // let the engine register the stream
	// One at a time, the idle stream takes every job.
	for i := 0; i < 10; i++ {
		runInstances(t, c, pid, 1, nil)
	}
	if pushed.Load() != 10 {
		t.Fatalf("%d of 10 jobs created one at a time were pushed", pushed.Load())
	}
	// A burst: the stream takes what it can, the long poll gets the rest.
	res := runInstances(t, c, pid, 20, json.RawMessage(`{"big":9223372036854775807,"small":-9007199254740993}`))
	for _, r := range res {
		var v struct {
			Big   int64 `json:"big"`
			Small int64 `json:"small"`
		}
		if err := r.Decode(&v); err != nil || v.Big != 9223372036854775807 || v.Small != -9007199254740993 {
			t.Fatalf("variables not lossless: %s (%v)", r.Variables, err)
		}
	}
	if pushed.Load() <= 10 {
		t.Fatalf("no job of the burst was pushed")
	}
}

func TestEngineBackpressureSlowAndFastWorker(t *testing.T) {
	e := testengine.Start(t)
	c := engineClient(t, e)
	pid := deploy(t, c, "bp-task")
	var slowRunning, slowPeak, slowDone, fastDone atomic.Int32
	slow, err := c.NewWorker("bp-task", func(ctx context.Context, job *jobwire.Job) (any, error) {
		n := slowRunning.Add(1)
		for p := slowPeak.Load(); n > p && !slowPeak.CompareAndSwap(p, n); p = slowPeak.Load() {
		}
		defer slowRunning.Add(-1)
		select {
		case <-time.After(300 * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		slowDone.Add(1)
		return map[string]any{"by": "slow"}, nil
	}, jobwire.WithMaxJobsActive(2), jobwire.WithWorkerName("slow"))
	if err != nil {
		t.Fatal(err)
	}
	defer closeW(t, slow)
	fast, err := c.NewWorker("bp-task", func(ctx context.Context, job *jobwire.Job) (any, error) {
		fastDone.Add(1)
		return map[string]any{"by": "fast"}, nil
	}, jobwire.WithWorkerName("fast"))
	if err != nil {
		t.Fatal(err)
	}
	defer closeW(t, fast)
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	res := runInstances(t, c, pid, 60, nil)
	elapsed := time.Since(start)
	if slowPeak.Load() > 2 {
		t.Fatalf("slow worker held %d jobs at once with maxJobsActive 2", slowPeak.Load())
	}
	if got := slowDone.Load() + fastDone.Load(); got != 60 {
		t.Fatalf("handled %d of 60 (slow %d, fast %d)", got, slowDone.Load(), fastDone.Load())
	}
	if fastDone.Load() == 0 {
		t.Fatalf("the fast worker got nothing (slow %d)", slowDone.Load())
	}
	by := map[string]int{}
	for _, r := range res {
		var v struct{ By string }
		_ = r.Decode(&v)
		by[v.By]++
	}
	t.Logf("slow %d, fast %d, took %v", by["slow"], by["fast"], elapsed)
}

func TestEngineGatewayRestart(t *testing.T) {
	e := testengine.Start(t)
	c := engineClient(t, e)
	pid := deploy(t, c, "restart-task")
	var states sync.Map
	var handled atomic.Int32
	w, err := c.NewWorker("restart-task", func(ctx context.Context, job *jobwire.Job) (any, error) {
		handled.Add(1)
		return nil, nil
	}, jobwire.WithStateListener(func(s jobwire.WorkerState) { states.Store(s, true) }))
	if err != nil {
		t.Fatal(err)
	}
	defer closeW(t, w)
	runInstances(t, c, pid, 5, nil)
	e.Restart()
	// The worker must come back on its own: instances created after the restart complete.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		if _, err := c.Topology(ctx); err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("gateway not reachable after restart")
		}
		time.Sleep(50 * time.Millisecond)
	}
	runInstances(t, c, pid, 10, nil)
	if handled.Load() < 15 {
		t.Fatalf("handled %d", handled.Load())
	}
	if _, ok := states.Load(jobwire.StateBackoff); !ok {
		t.Error("worker never reported backoff while the gateway was down")
	}
	deadline := time.Now().Add(10 * time.Second)
	for w.State() != jobwire.StateStreaming && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if w.State() != jobwire.StateStreaming {
		t.Fatalf("state after restart: %s", w.State())
	}
}

func TestEngineShutdownHandsBackJobs(t *testing.T) {
	e := testengine.Start(t)
	c := engineClient(t, e)
	pid := deploy(t, c, "stop-task")
	started := make(chan int64, 10)
	w1, err := c.NewWorker("stop-task", func(ctx context.Context, job *jobwire.Job) (any, error) {
		started <- job.Key
		<-ctx.Done() // a handler that only stops when cancelled
		return nil, ctx.Err()
	}, jobwire.WithMaxJobsActive(3), jobwire.WithConcurrency(1), jobwire.WithStreamEnabled(false))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if _, err := c.CreateProcessInstance(ctx, jobwire.CreateInstance{BPMNProcessID: pid, Version: -1}); err != nil {
			t.Fatal(err)
		}
	}
	<-started
	time.Sleep(300 * time.Millisecond) // the other two are received and queued
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	err = w1.Close(cctx)
	if !errors.Is(err, jobwire.ErrCloseTimeout) {
		t.Fatalf("close: %v", err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Fatalf("close took %v", d)
	}
	if w1.State() != jobwire.StateClosed {
		t.Fatalf("state %s", w1.State())
	}
	// All three jobs go back with retries unchanged and no back-off: a new
	// worker gets them at once (the job timeout is 5 min).
	retries := make(chan int32, 3)
	w2, err := c.NewWorker("stop-task", func(ctx context.Context, job *jobwire.Job) (any, error) {
		retries <- job.Retries
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer closeW(t, w2)
	for i := 0; i < 3; i++ {
		select {
		case r := <-retries:
			if r != 3 {
				t.Fatalf("job handed back with retries %d, want 3", r)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("only %d of 3 jobs came back", i)
		}
	}
}

func TestEngineFailureAndBPMNError(t *testing.T) {
	e := testengine.Start(t)
	c := engineClient(t, e)
	pid := deploy(t, c, "fail-task")
	var attempts sync.Map
	w, err := c.NewWorker("fail-task", func(ctx context.Context, job *jobwire.Job) (any, error) {
		n, _ := attempts.LoadOrStore(job.Key, new(atomic.Int32))
		if n.(*atomic.Int32).Add(1) == 1 {
			if job.Retries != 3 {
				return nil, fmt.Errorf("first attempt with retries %d", job.Retries)
			}
			panic("first attempt crashes") // recovered: FailJob with retries 2
		}
		if job.Retries != 2 {
			return nil, &jobwire.JobError{Code: "WRONG", Message: fmt.Sprint(job.Retries)}
		}
		return map[string]int{"attempt": 2}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer closeW(t, w)
	res := runInstances(t, c, pid, 5, nil)
	for _, r := range res {
		if string(r.Variables) != `{"attempt":2}` {
			t.Fatalf("result %s", r.Variables)
		}
	}
	// Typed errors from the engine.
	_, err = c.CreateProcessInstance(context.Background(), jobwire.CreateInstance{BPMNProcessID: "no-such-process", Version: -1})
	var nf *jobwire.NotFoundError
	if !errors.As(err, &nf) {
		t.Fatalf("unknown process: %v", err)
	}
	err = c.CompleteJob(context.Background(), 123456789, nil)
	if jobwire.Code(err).String() != "NotFound" {
		t.Fatalf("complete unknown job: %v", err)
	}
}

func TestEngineOAuth(t *testing.T) {
	e := testengine.Start(t, "--oauth", "--oauth-token-ttl", "2s")
	deadline := time.Now().Add(5 * time.Second)
	for e.OAuthURL() == "" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if e.OAuthURL() == "" {
		t.Fatal("engine printed no oauth token endpoint")
	}
	// Without credentials: UNAUTHENTICATED, typed.
	anon := engineClient(t, e)
	_, err := anon.Topology(context.Background())
	var ue *jobwire.UnauthenticatedError
	if !errors.As(err, &ue) {
		t.Fatalf("anonymous call: %v", err)
	}
	c := engineClient(t, e, jobwire.WithOAuth(jobwire.OAuthOptions{ClientID: "jobwire", ClientSecret: "secret", AuthorizationServerURL: e.OAuthURL()}))
	pid := deploy(t, c, "auth-task")
	w, err := c.NewWorker("auth-task", func(ctx context.Context, job *jobwire.Job) (any, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	defer closeW(t, w)
	runInstances(t, c, pid, 3, nil)
	time.Sleep(2500 * time.Millisecond) // the first token has expired by now
	runInstances(t, c, pid, 3, nil)
}

// Rule 5 against the engine: 120 workers on one client (a stream and a parked
// long poll each, 240 long-lived calls), and commands still get through.
func TestEngineManyWorkersOneClient(t *testing.T) {
	e := testengine.Start(t)
	c := engineClient(t, e)
	pid := deploy(t, c, "many")
	const n = 120
	var handled atomic.Int32
	workers := make([]*jobwire.Worker, n)
	for i := range workers {
		w, err := c.NewWorker("many", func(ctx context.Context, job *jobwire.Job) (any, error) {
			handled.Add(1)
			return map[string]any{"done": true}, nil
		}, jobwire.WithMaxJobsActive(1), jobwire.WithRequestTimeout(30*time.Second), jobwire.WithWorkerName(fmt.Sprintf("w%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		workers[i] = w
	}
	defer func() {
		for _, w := range workers {
			closeW(t, w)
		}
	}()
	time.Sleep(300 * time.Millisecond) // streams open, polls park
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if _, err := c.Topology(ctx); err != nil {
		t.Fatalf("topology behind %d long-lived calls: %v", 2*n, err)
	}
	runInstances(t, c, pid, 60, map[string]any{"n": 1}) // CompleteJob from every kind of worker gets through
	if handled.Load() != 60 {
		t.Fatalf("handled %d, want 60", handled.Load())
	}
}
