package jobwire_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jobwire "github.com/jobwire/jobwire/sdk-go"
	"github.com/jobwire/jobwire/sdk-go/internal/testengine"
)

// strandedAfterClose runs a capacity-2 push worker with blocking handlers
// while n jobs of padBytes each are created, closes it, and returns how many
// jobs are still activated for it right after close (stranded: they would wait
// for their 5-minute activation timeout), and how many the worker had received.
func strandedAfterClose(t *testing.T, jobType string, n, padBytes int, streamTimeout time.Duration, settle time.Duration) (stranded int, received int64) {
	e := testengine.Start(t)
	c := engineClient(t, e)
	pid := deploy(t, c, jobType)
	var got atomic.Int64
	w, err := c.NewWorker(jobType, func(ctx context.Context, job *jobwire.Job) (any, error) {
		got.Add(1)
		<-ctx.Done()
		return nil, ctx.Err()
	}, jobwire.WithMaxJobsActive(2), jobwire.WithStreamEnabled(true), jobwire.WithStreamTimeout(streamTimeout))
	if err != nil {
		t.Fatal(err)
	}
	waitStreaming(t, w)
	vars := map[string]any{"pad": strings.Repeat("x", padBytes)}
	ctx := context.Background()
	for i := 0; i < n; i++ {
		if _, err := c.CreateProcessInstance(ctx, jobwire.CreateInstance{BPMNProcessID: pid, Version: -1, Variables: vars}); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(settle) // the gateway pushes until the stream's buffers are full, then yields (and streams recycle)
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_ = w.Close(cctx) // the two blocked handlers are cancelled and handed back
	time.Sleep(200 * time.Millisecond)
	// Every job not stranded is activatable now.
	free := 0
	for free < n {
		jobs, err := c.ActivateJobs(ctx, jobwire.ActivateJobsRequest{Type: jobType, MaxJobs: int32(n), RequestTimeout: 500 * time.Millisecond, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) == 0 {
			break
		}
		free += len(jobs)
	}
	return n - free, got.Load()
}

func waitStreaming(t *testing.T, w *jobwire.Worker) {
	t.Helper()
	end := time.Now().Add(5 * time.Second)
	for w.State() != jobwire.StateStreaming {
		if time.Now().After(end) {
			t.Fatalf("worker state %s, want streaming", w.State())
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // the backfill poll has run
}

// TestEngineCloseStrandsNoJob: a graceful close drains the stream and hands
// back every job that reached the process, then releases what is still in
// transport (docs/worker-semantics.md, push and poll rule 7). The numbers are
// logged (sdk-go/README.md quotes them).
func TestEngineCloseStrandsNoJob(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n, size int
		recycle time.Duration // streamTimeout: recycles happen while the worker is full
		settle  time.Duration
	}{
		// 30 KiB jobs (40 of them) gave the same result (README); every SDK's
		// close and recycle with jobs still in transport is checked by the
		// conformance scenario lifecycle/close-releases-jobs-in-transport.
		{"1KiB", 150, 1 << 10, time.Hour, time.Second},
		{"1KiB-after-recycles", 150, 1 << 10, 600 * time.Millisecond, 2500 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stranded, received := strandedAfterClose(t, "drain-"+strings.ToLower(tc.name), tc.n, tc.size, tc.recycle, tc.settle)
			t.Logf("%s jobs: %d created, %d handlers started, %d stranded after close", tc.name, tc.n, received, stranded)
			if stranded != 0 {
				t.Fatalf("%d of %d jobs stranded after close", stranded, tc.n)
			}
			if received != 2 {
				t.Fatalf("%d handlers started, want 2 (jobs set aside by a drain never run)", received)
			}
		})
	}
}

var _ = fmt.Sprint
