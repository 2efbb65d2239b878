package jobwire

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jobwire/jobwire/sdk-go/internal/pb"
	"github.com/jobwire/jobwire/sdk-go/internal/testhook"
	"github.com/jobwire/jobwire/sdk-go/internal/worker"
)

// The test kit (module sdk-go/jobwiretest) runs handlers through the worker's
// own adapter and executor; it reaches them through internal/testhook.
func init() { testhook.Run = runForTest }

func runForTest(ctx context.Context, handler any, job *pb.ActivatedJob, gw pb.GatewayClient, opts testhook.RunOptions) (error, error) {
	var h Handler
	switch f := handler.(type) {
	case HandlerFunc:
		h = f
	case func(context.Context, *Job) (any, error):
		h = HandlerFunc(f)
	case Handler:
		h = f
	default:
		return nil, fmt.Errorf("jobwire: handler is %T, not a jobwire.HandlerFunc or Handler", handler)
	}
	if f, ok := h.(HandlerFunc); (ok && f == nil) || h == nil {
		return nil, errors.New("jobwire: handler is required")
	}
	wopts, _ := opts.WorkerOptions.([]WorkerOption)
	cfg, err := prepareWorker(job.GetType(), h, nil, wopts)
	if err != nil {
		return nil, err
	}
	cfg.Concurrency, cfg.MaxJobsActive = 1, 1
	w := &Worker{cfg: cfg, handler: chain(h, cfg.middleware)}
	var mu sync.Mutex
	var cause error
	run := func(ctx context.Context, d *worker.HeldJob) (o worker.Outcome) {
		defer func() {
			if r := recover(); r != nil {
				mu.Lock()
				cause = fmt.Errorf("handler panic: %v", r)
				mu.Unlock()
				panic(r) // the executor turns it into a failure, as in a worker
			}
		}()
		o = w.run(ctx, d)
		mu.Lock()
		cause = o.Cause
		mu.Unlock()
		return o
	}
	err = worker.RunJob(ctx, cfg.Config, gw, run, job, opts.CloseAfter)
	mu.Lock()
	defer mu.Unlock()
	return cause, err
}
