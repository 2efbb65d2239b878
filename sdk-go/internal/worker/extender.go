package worker

import (
	"context"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// startExtender keeps a running job's activation alive (autoExtend): when two
// thirds of the remaining time have passed, it calls UpdateJobTimeout with the
// worker's job timeout again. It stops when the returned func is called, when
// ctx ends, or when the engine no longer knows the job.
func startExtender(ctx context.Context, d *Delivery, timeout time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		retry := false
		for {
			// After a failed attempt the next one follows its back-off alone:
			// waiting two thirds of the remaining time again as well left two
			// transient failures in a row too little time before the deadline
			// (the job timed out under load in auto-extend-survives-failed-update).
			if !retry {
				wait := time.Until(d.Deadline()) * 2 / 3
				if wait < 10*time.Millisecond {
					wait = 10 * time.Millisecond
				}
				if !sleep(ctx, wait) {
					return
				}
			}
			retry = false
			rctx, rcancel := context.WithTimeout(ctx, d.e.w.requestBudget())
			err := d.ExtendTimeout(rctx, timeout)
			rcancel()
			switch status.Code(err) {
			case codes.OK:
				d.e.w.log.Debug("job timeout extended", "key", d.Job.GetKey(), "deadline", d.Deadline())
			case codes.NotFound, codes.FailedPrecondition:
				d.e.w.log.Info("job gone while extending its timeout", "key", d.Job.GetKey(), "err", err)
				return
			default:
				if ctx.Err() != nil {
					return
				}
				d.e.w.log.Warn("extending job timeout failed; will retry", "key", d.Job.GetKey(), "err", err)
				if !sleep(ctx, NewBackoff().Next()) {
					return
				}
				retry = true
			}
		}
	}()
	return func() { cancel(); <-done }
}
