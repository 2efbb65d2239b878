package worker

import (
	"context"
	"errors"
	"io"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/jobwire/jobwire/sdk-go/internal/pb"
)

// pollLoop: reserve → receive → run → release. It asks for max − held jobs,
// only when held ≤ 30 % of capacity or a backfill is due, with at most one
// ActivateJobs in flight. Errors back off (50 ms → 5 s); the pollInterval pause
// follows only an error-free empty poll with long polling off.
func (w *Worker) pollLoop(ctx context.Context) {
	backfill := true // the first poll collects any backlog
	for ctx.Err() == nil {
		changed := w.ledger.Changed()
		if !backfill {
			select {
			case <-w.backfil:
				backfill = true
			default:
			}
		}
		n := w.ledger.PollWanted(backfill)
		if n == 0 {
			select {
			case <-changed:
			case <-w.backfil:
				backfill = true
			case <-ctx.Done():
			}
			continue
		}
		got := w.ledger.ReservePoll(n)
		if got == 0 {
			continue
		}
		count, err := w.activate(ctx, got)
		w.ledger.ReturnPoll()
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			w.tel.Poll("error")
			w.state.PollFailed()
			var wait time.Duration
			if permanent(err) {
				wait = w.pollBackoff.Max()
				w.log.Error("activating jobs failed; retrying at the maximum backoff", "err", err, "code", status.Code(err).String())
				w.cfg.OnError(err)
			} else {
				wait = w.pollBackoff.Next()
				w.log.Warn("activating jobs failed; backing off", "err", err, "code", status.Code(err).String(), "wait", wait)
			}
			if !sleep(ctx, wait) {
				return
			}
			continue
		}
		w.pollBackoff.Reset()
		w.state.PollOK()
		backfill = false
		if count > 0 {
			w.tel.Poll("jobs")
			continue
		}
		w.tel.Poll("empty")
		if w.cfg.RequestTimeout < 0 && !sleep(ctx, w.cfg.PollInterval) {
			return
		}
	}
}

// activate runs one ActivateJobs call and hands every job to the executor as
// it arrives. A job beyond the capacity left (the stream took slots from the
// pool meanwhile) waits for a slot.
func (w *Worker) activate(ctx context.Context, n int) (int, error) {
	deadline := 10 * time.Second
	if w.cfg.RequestTimeout > 0 {
		deadline += w.cfg.RequestTimeout
	} else if w.cfg.RequestTimeout == 0 {
		deadline += 10 * time.Second // the gateway's default long poll
	}
	rctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	req := &pb.ActivateJobsRequest{
		Type: w.cfg.JobType, Worker: w.cfg.WorkerName, Timeout: w.cfg.JobTimeout.Milliseconds(),
		MaxJobsToActivate: int32(n), FetchVariable: w.cfg.FetchVariables,
		RequestTimeout: w.cfg.RequestTimeout.Milliseconds(), TenantIds: w.cfg.TenantIDs,
	}
	if w.cfg.RequestTimeout < 0 {
		req.RequestTimeout = -1
	}
	stream, err := w.gw.Long.ActivateJobs(rctx, req)
	if err != nil {
		return 0, err
	}
	count := 0
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return count, nil
		}
		if err != nil {
			if count > 0 && status.Code(err) == codes.DeadlineExceeded {
				return count, nil
			}
			return count, err
		}
		for _, j := range resp.GetJobs() {
			count++
			slot := w.ledger.TakePoll()
			if slot == nil {
				if slot, err = w.ledger.Acquire(ctx); err != nil {
					w.exec.failBack(item{job: j, slot: w.ledger.noSlot(), activation: "poll"}, "worker closing")
					continue
				}
			}
			w.exec.submit(item{job: j, slot: slot, activation: "poll"})
		}
	}
}
