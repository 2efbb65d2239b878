package main

// Bookkeeping for `make run`: counts handled jobs and measures the hand-off
// latency (time from the previous task's handler returning to this handler
// starting: completion, engine, job push). Not needed in your own worker.

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jobwire/jobwire/sdk-go"
)

// histogram: log buckets of 5 % width from 10 µs up.
type histogram struct{ counts [400]int64 }

func (h *histogram) add(ms float64) {
	i := 0
	if ms > 0.01 {
		i = int(math.Log(ms/0.01) / math.Log(1.05))
	}
	h.counts[min(max(i, 0), len(h.counts)-1)]++
}

func (h *histogram) quantile(q float64) float64 {
	var n int64
	for _, c := range h.counts {
		n += c
	}
	if n == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(n)))
	var seen int64
	for i, c := range h.counts {
		if seen += c; seen >= rank {
			return 0.01 * math.Pow(1.05, float64(i+1))
		}
	}
	return 0
}

type stats struct {
	sdk      string
	start    time.Time
	inflight atomic.Int64

	mu       sync.Mutex
	handled  map[string]int64 // by job type
	errors   int64            // BPMN errors thrown
	failed   int64            // handler failures
	total    histogram
	window   histogram
	lastN    int64
	lastTime time.Time
}

func newStats(sdk string) *stats {
	now := time.Now()
	return &stats{sdk: sdk, start: now, lastTime: now, handled: map[string]int64{}}
}

// middleware counts the jobs of a worker and passes the hand-off timestamp
// on. (A typed worker fetches only its input's variables, so the payment
// step, typed, records no latency sample of its own.)
func (s *stats) middleware(jobType string) jobwire.Middleware {
	return func(h jobwire.HandlerFunc) jobwire.HandlerFunc { return s.wrap(jobType, h) }
}

// wrap is the middleware around h.
func (s *stats) wrap(jobType string, h jobwire.HandlerFunc) jobwire.HandlerFunc {
	return func(ctx context.Context, job *jobwire.Job) (any, error) {
		started := time.Now()
		s.inflight.Add(1)
		defer s.inflight.Add(-1)
		var v struct {
			HandedOffAt float64 `json:"handedOffAt"` // ms since the epoch
		}
		_ = job.DecodeVariables(&v)
		out, err := h(ctx, job)
		s.mu.Lock()
		s.handled[jobType]++
		var je *jobwire.JobError
		switch {
		case errors.As(err, &je):
			s.errors++
		case err != nil:
			s.failed++
		}
		if v.HandedOffAt > 0 {
			ms := float64(started.UnixMicro())/1000 - v.HandedOffAt
			s.total.add(ms)
			s.window.add(ms)
		}
		s.mu.Unlock()
		if err == nil && out != nil {
			// A typed handler returns a struct: pass it on as a map with the stamp.
			m, ok := out.(map[string]any)
			if !ok {
				if b, jerr := json.Marshal(out); jerr == nil && json.Unmarshal(b, &m) != nil {
					m = nil
				}
			}
			if m != nil {
				m["handedOffAt"] = float64(time.Now().UnixMicro()) / 1000
				out = m
			}
		}
		return out, err
	}
}

func (s *stats) printEvery(ctx context.Context, d time.Duration) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.print(false)
		}
	}
}

// print writes one JSON line to stdout (read by examples/go/load).
func (s *stats) print(final bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for _, c := range s.handled {
		n += c
	}
	now := time.Now()
	rate := float64(n-s.lastN) / now.Sub(s.lastTime).Seconds()
	line, _ := json.Marshal(map[string]any{
		"stats": "order-worker", "sdk": s.sdk, "final": final, "uptime_s": now.Sub(s.start).Seconds(),
		"handled": n, "by_type": s.handled, "bpmn_errors": s.errors, "failed": s.failed,
		"inflight": s.inflight.Load(), "jobs_per_s": rate,
		"p50_ms": s.window.quantile(0.5), "p99_ms": s.window.quantile(0.99),
		"total_p50_ms": s.total.quantile(0.5), "total_p99_ms": s.total.quantile(0.99),
	})
	os.Stdout.Write(append(line, '\n'))
	s.window = histogram{}
	s.lastN, s.lastTime = n, now
}

// readiness calls f once, when every worker has reached the streaming state.
type readiness struct {
	mu        sync.Mutex
	remaining int
	f         func()
}

func newReadiness(n int, f func()) *readiness { return &readiness{remaining: n, f: f} }

// listener returns the state listener of one worker.
func (r *readiness) listener() func(jobwire.WorkerState) {
	var once sync.Once
	return func(s jobwire.WorkerState) {
		if s != jobwire.StateStreaming {
			return
		}
		once.Do(func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			if r.remaining--; r.remaining == 0 {
				r.f()
			}
		})
	}
}
