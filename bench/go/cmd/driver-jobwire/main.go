// Command driver-jobwire is the benchmark driver (../../../DRIVERS.md) for the jobwire Go SDK.
package main

import (
	"context"
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
	r := &drv.Recorder{}
	var workers []*jobwire.Worker
	for _, s := range cfg.Workers {
		delay := time.Duration(s.DelayMs) * time.Millisecond
		h := func(ctx context.Context, job *jobwire.Job) (any, error) {
			r.Start(drv.T0(job.VariablesJSON()))
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
		opts := []jobwire.WorkerOption{jobwire.WithMaxJobsActive(s.Capacity), jobwire.WithStreamEnabled(s.Mode == "push")}
		if s.PollIntervalMs > 0 {
			opts = append(opts, jobwire.WithPollInterval(time.Duration(s.PollIntervalMs)*time.Millisecond))
		}
		if s.Mode == "shortpoll" {
			opts = append(opts, jobwire.WithRequestTimeout(-1))
		}
		for i := 0; i < s.Count; i++ {
			w, err := c.NewWorker(s.JobType, h, opts...)
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
