package jobwire_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jobwire "github.com/jobwire/jobwire/sdk-go"
	"github.com/jobwire/jobwire/sdk-go/internal/testengine"
)

// BenchmarkWorker measures the jobs/s of a no-op worker against
// `jobwire-engine dev` (one engine per sub-benchmark; b.N = jobs). Run it with
// `go test -run '^$' -bench Worker -benchtime 20000x`. Sub-benchmarks:
// push-live (jobs created while the worker streams: push + long poll),
// poll-live (the same with streaming off) and poll-backlog (b.N jobs created
// first, then drained by polling).
func BenchmarkWorker(b *testing.B) {
	b.Run("push-live", func(b *testing.B) { benchWorker(b, true, false) })
	b.Run("poll-live", func(b *testing.B) { benchWorker(b, false, false) })
	b.Run("poll-backlog", func(b *testing.B) { benchWorker(b, false, true) })
}

func benchWorker(b *testing.B, stream, backlog bool) {
	e := testengine.Start(b)
	ctx := context.Background()
	c, err := jobwire.NewClient(ctx, jobwire.WithAddress(e.Addr), jobwire.WithLogger(logger()))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	d, err := c.DeployResource(ctx, "bench.bpmn", testengine.BPMN("bench"))
	if err != nil {
		b.Fatal(err)
	}
	pid := d.Processes[0].BPMNProcessID
	create := func(n int) {
		var wg sync.WaitGroup
		var next atomic.Int64
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for next.Add(1) <= int64(n) {
					if _, err := c.CreateProcessInstance(ctx, jobwire.CreateInstance{BPMNProcessID: pid, Version: -1}); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
	}
	if backlog {
		create(b.N)
	}
	var handled, pushed atomic.Int64
	done := make(chan struct{})
	b.ResetTimer()
	start := time.Now()
	w, err := c.NewWorker("bench", func(ctx context.Context, job *jobwire.Job) (any, error) {
		if job.Activation == "push" {
			pushed.Add(1)
		}
		if handled.Add(1) == int64(b.N) {
			close(done)
		}
		return nil, nil
	}, jobwire.WithStreamEnabled(stream))
	if err != nil {
		b.Fatal(err)
	}
	if !backlog {
		time.Sleep(50 * time.Millisecond) // stream registered
		start = time.Now()
		go create(b.N)
	}
	select {
	case <-done:
	case <-time.After(120 * time.Second):
		b.Fatalf("handled %d of %d", handled.Load(), b.N)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	_ = w.Close(ctx)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "jobs/s")
	b.ReportMetric(float64(pushed.Load())/float64(b.N)*100, "%pushed")
}

// BenchmarkFairness measures the activation wait under sustained push
// overload (issue 12 item 8; docs/worker-semantics.md, push and poll rule 8),
// like workload 9 of bench/ (bench/README.md): a closed loop keeps 256 instances in flight
// (each replaced when it completes), b.N in all, against one push worker of
// capacity 16 with a no-op handler. It reports the wait from creating an
// instance to its job's handler start (p50, p99, max in ms) and instances/s.
// Run it with `go test -run '^$' -bench Fairness -benchtime 5000x`.
// Env: BENCH_IN_FLIGHT (256), BENCH_CAPACITY (16), BENCH_HANDLER_MS (0),
// BENCH_PAD_BYTES (0: variables padded to this size).
func BenchmarkFairness(b *testing.B) {
	inFlight, capacity := envInt("BENCH_IN_FLIGHT", 256), envInt("BENCH_CAPACITY", 16)
	handlerMs, pad := envInt("BENCH_HANDLER_MS", 0), strings.Repeat("x", envInt("BENCH_PAD_BYTES", 0))
	e := testengine.Start(b)
	ctx := context.Background()
	c, err := jobwire.NewClient(ctx, jobwire.WithAddress(e.Addr), jobwire.WithLogger(logger()))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	d, err := c.DeployResource(ctx, "fair.bpmn", testengine.BPMN("fair"))
	if err != nil {
		b.Fatal(err)
	}
	pid := d.Processes[0].BPMNProcessID
	var mu sync.Mutex
	var waits []float64
	seen := map[int64]bool{}
	slow := map[string]int{} // jobs that waited over 250 ms, by activation
	w, err := c.NewWorker("fair", func(ctx context.Context, job *jobwire.Job) (any, error) {
		var v struct{ CreatedAt int64 }
		if err := job.DecodeVariables(&v); err != nil {
			return nil, err
		}
		wt := float64(time.Now().UnixMicro()-v.CreatedAt) / 1000
		mu.Lock()
		if !seen[job.Key] {
			seen[job.Key] = true
			waits = append(waits, wt)
			if wt > float64(envInt("BENCH_SLOW_MS", 250)) {
				slow[job.Activation]++
				if os.Getenv("BENCH_DEBUG") != "" {
					act := float64(job.Deadline.UnixMicro()-time.Minute.Microseconds()-v.CreatedAt) / 1000
					fmt.Fprintf(os.Stderr, "slow %s wait %.0f ms: activated after %.0f ms\n", job.Activation, wt, act)
				}
			}
		}
		mu.Unlock()
		time.Sleep(time.Duration(handlerMs) * time.Millisecond)
		return nil, nil
	}, jobwire.WithStreamEnabled(os.Getenv("BENCH_POLL") == ""), jobwire.WithMaxJobsActive(capacity), jobwire.WithJobTimeout(time.Minute))
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close(ctx)
	time.Sleep(300 * time.Millisecond) // stream registered
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	var next atomic.Int64
	for g := 0; g < inFlight; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				ci := jobwire.CreateInstance{BPMNProcessID: pid, Version: -1,
					Variables: map[string]any{"createdAt": time.Now().UnixMicro(), "pad": pad}}
				if _, err := c.CreateProcessInstanceWithResult(ctx, ci, 2*time.Minute); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	mu.Lock()
	defer mu.Unlock()
	sort.Float64s(waits)
	if len(waits) == 0 {
		b.Fatal("no job started")
	}
	pct := func(p float64) float64 { return waits[min(len(waits)-1, int(p*float64(len(waits))))] }
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "inst/s")
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(waits[len(waits)-1], "max-ms")
	b.ReportMetric(float64(slow["push"]), "push>250ms")
	b.ReportMetric(float64(slow["poll"]), "poll>250ms")
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n >= 0 {
		return n
	}
	return def
}
