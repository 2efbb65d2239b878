// Command driver-jobwire is the benchmark driver (../../../DRIVERS.md) for the jobwire Go SDK.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/jobwire/jobwire/bench/go/internal/drv"
	jobwire "github.com/jobwire/jobwire/sdk-go"
)

func main() {
	cfg := drv.Parse()
	ctx := context.Background()
	// the SDK's log is off (it would cost CPU in the measurement) unless BENCH_LOG=1: then on stderr, debug level
	var logOut io.Writer = io.Discard
	if os.Getenv("BENCH_LOG") == "1" {
		logOut = os.Stderr
	}
	c, err := jobwire.NewClient(ctx, jobwire.WithAddress(strings.Split(cfg.Address, ",")...), jobwire.WithInsecure(true),
		jobwire.WithLogger(slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	typed := typedFlags()
	r := &drv.Recorder{}
	var workers []*jobwire.Worker
	for wi, s := range cfg.Workers {
		delay := time.Duration(s.DelayMs) * time.Millisecond
		// the no-op handler: records the activation latency, sleeps delayMs
		run := func(ctx context.Context, t0 float64) (any, error) {
			r.Start(t0)
			if delay > 0 {
				select {
				case <-time.After(delay):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			r.Done()
			return nil, nil
		}
		h := func(ctx context.Context, job *jobwire.Job) (any, error) { return run(ctx, drv.T0(job.VariablesJSON())) }
		opts := []jobwire.WorkerOption{jobwire.WithMaxJobsActive(s.Capacity), jobwire.WithStreamEnabled(s.Mode == "push")}
		if s.PollIntervalMs > 0 {
			opts = append(opts, jobwire.WithPollInterval(time.Duration(s.PollIntervalMs)*time.Millisecond))
		}
		if s.Mode == "shortpoll" {
			opts = append(opts, jobwire.WithRequestTimeout(-1))
		}
		// "typed": the same no-op worker as a typed handler whose input is
		// {t0: number}: fetchVariables is then derived (t0 and traceparent).
		th := jobwire.Handle(func(ctx context.Context, job *jobwire.Job, in benchInput) (any, error) { return run(ctx, in.T0) })
		for i := 0; i < s.Count; i++ {
			var w *jobwire.Worker
			var err error
			if wi < len(typed) && typed[wi] {
				mux := jobwire.NewMux(opts...) // one per worker: a Mux holds a job type once
				mux.Register(s.JobType, th)
				var ws []*jobwire.Worker
				if ws, err = c.Start(mux); err == nil {
					w = ws[0]
				}
			} else {
				w, err = c.NewWorker(s.JobType, h, opts...)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			workers = append(workers, w)
		}
	}
	drv.Run("go-jobwire", "dev", r, func() {
		var wg sync.WaitGroup
		for _, w := range workers {
			wg.Add(1)
			go func(w *jobwire.Worker) {
				defer wg.Done()
				cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				defer cancel()
				_ = w.Close(cctx)
			}(w)
		}
		wg.Wait()
		_ = c.Close()
	})
}

// benchInput is the typed worker's input: only what the handler reads.
type benchInput struct {
	T0 float64 `json:"t0"`
}

// typedFlags reads the workers' optional "typed" field (DRIVERS.md) from the
// config argument.
func typedFlags() []bool {
	var c struct {
		Workers []struct {
			Typed bool `json:"typed"`
		} `json:"workers"`
	}
	_ = json.Unmarshal([]byte(os.Args[len(os.Args)-1]), &c) // drv.Parse has already checked it
	out := make([]bool, len(c.Workers))
	for i, w := range c.Workers {
		out[i] = w.Typed
	}
	return out
}
