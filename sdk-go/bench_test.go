package jobwire_test

import (
	"context"
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
