package worker

import (
	"context"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Auto-extend timing (docs/worker-semantics.md, "Running handlers"; the same
// in every SDK).
const (
	extendMinWait  = 50 * time.Millisecond // floor of the wait before an extension
	extendMinRetry = 20 * time.Millisecond // floor of the wait before a retry
	extendFraction = 2                     // extend when 1/extendFraction of the time left has passed
)

// extendWait is how long the extender waits before its next UpdateJobTimeout:
// half of the time left until the deadline (at least 50 ms); after a failed
// attempt, the back-off's next delay alone, capped at half of the time still
// left (at least 20 ms) so the retries fall before the deadline.
func extendWait(left time.Duration, retry bool, bo *Backoff) time.Duration {
	if retry {
		return min(bo.Next(), max(left/extendFraction, extendMinRetry))
	}
	return max(left/extendFraction, extendMinWait)
}

// extendClock is what the extender needs of time and of the engine; a fake
// replaces it in unit tests.
type extendClock struct {
	until  func(time.Time) time.Duration
	sleep  func(ctx context.Context, d time.Duration) bool
	extend func(ctx context.Context) error // one UpdateJobTimeout
}

// startExtender keeps a running job's activation alive (autoExtend): when half
// of the remaining time has passed, it calls UpdateJobTimeout with the
// worker's job timeout again; a failed call is retried after the back-off
// (capped at half the time still left). It stops when the returned func is
// called, when ctx ends, or when the engine no longer knows the job.
func startExtender(ctx context.Context, d *HeldJob, timeout time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	clk := extendClock{until: time.Until, sleep: sleep, extend: func(ctx context.Context) error {
		rctx, rcancel := context.WithTimeout(ctx, d.e.w.requestBudget())
		defer rcancel()
		return d.ExtendTimeout(rctx, timeout)
	}}
	go func() {
		defer close(done)
		runExtender(ctx, clk, d.Deadline, NewBackoffWith(d.e.w.cfg.Backoff), func(err error) {
			switch status.Code(err) {
			case codes.OK:
				d.e.w.log.Debug("job timeout extended", "key", d.Job.GetKey(), "deadline", d.Deadline())
			case codes.NotFound, codes.FailedPrecondition:
				d.e.w.log.Info("job gone while extending its timeout", "key", d.Job.GetKey(), "err", err)
			default:
				d.e.w.log.Warn("extending job timeout failed; will retry", "key", d.Job.GetKey(), "err", err)
			}
		})
	}()
	return func() { cancel(); <-done }
}

// runExtender is the extender's loop: wait (extendWait), UpdateJobTimeout,
// repeat; it returns when ctx ends or the job is gone (NOT_FOUND,
// FAILED_PRECONDITION). After a failed attempt the next one follows its
// back-off alone: waiting two thirds of the remaining time again as well left
// two transient failures in a row too little time before the deadline (the
// job timed out under load in auto-extend-survives-failed-update).
func runExtender(ctx context.Context, clk extendClock, deadline func() time.Time, bo *Backoff, report func(error)) {
	retry := false
	for {
		if !clk.sleep(ctx, extendWait(clk.until(deadline()), retry, bo)) {
			return
		}
		err := clk.extend(ctx)
		if ctx.Err() != nil {
			return
		}
		report(err)
		switch status.Code(err) {
		case codes.OK:
			bo.Reset()
			retry = false
		case codes.NotFound, codes.FailedPrecondition:
			return
		default:
			retry = true
		}
	}
}
