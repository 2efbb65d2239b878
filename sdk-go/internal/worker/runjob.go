package worker

import (
	"context"
	"time"

	"github.com/jobwire/jobwire/sdk-go/internal/pb"
)

// RunJob runs one job through the executor of a worker that activates nothing
// itself (no poll, no stream): the handler, the outcome it maps to, the
// auto-extender and the outcome sent over gw, as for a job the worker
// received. It is the test kit's path (jobwiretest.RunHandler). closeAfter > 0
// closes the worker that long after the job was handed to the executor, as
// Close with a deadline already passed does (the handler's ctx is cancelled,
// the job handed back). RunJob returns once the job's slot is free (outcome
// acknowledged, handed back, or manual job settled) or ctx ends; then the
// worker is closed.
func RunJob(ctx context.Context, cfg Config, gw pb.GatewayClient, h Handler, job *pb.ActivatedJob, closeAfter time.Duration) error {
	if cfg.MaxJobsActive < 1 {
		cfg.MaxJobsActive = 1
	}
	if cfg.Concurrency < 1 {
		cfg.Concurrency = 1
	}
	w := Start(cfg, Gateways{Unary: gw, Long: gw}, h)
	expired, cancel := context.WithCancel(context.Background())
	cancel() // a Close deadline already passed: running handlers are cancelled at once
	closeNow := func() { _ = w.Close(expired) }
	slot := w.ledger.TakePoll()
	w.exec.submit(item{job: job, slot: slot, activation: "push"})
	if closeAfter > 0 {
		t := time.AfterFunc(closeAfter, closeNow)
		defer t.Stop()
	}
	for {
		changed := w.ledger.Changed()
		if w.ledger.Jobs() == 0 {
			break
		}
		select {
		case <-changed:
		case <-ctx.Done():
			closeNow()
			return ctx.Err()
		}
	}
	_ = w.Close(context.Background()) // nothing runs any more: returns at once
	return nil
}
