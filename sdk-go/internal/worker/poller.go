package worker

import (
	"context"
	"errors"
	"io"
	"sync/atomic"
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
		count, cancelled, err := w.activate(ctx, got)
		w.ledger.ReturnPoll()
		if ctx.Err() != nil {
			return
		}
		if cancelled {
			// The stream filled the worker past the threshold while the poll was
			// parked: poll again once held falls back to it (no backoff).
			w.log.Debug("parked poll cancelled: the stream filled the worker past the poll threshold")
			w.tel.Poll("cancelled")
			backfill = false
			continue
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
// pool meanwhile) is handed back at once. While the call is parked (no job
// received yet), a rise of held above the poll threshold cancels it
// (cancelled = true): the gateway then fails back what it activated for it.
func (w *Worker) activate(ctx context.Context, n int) (count int, cancelled bool, err error) {
	deadline := 10 * time.Second
	if w.cfg.RequestTimeout > 0 {
		deadline += w.cfg.RequestTimeout
	} else if w.cfg.RequestTimeout == 0 {
		deadline += 10 * time.Second // the gateway's default long poll
	}
	rctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	var received, cancelledByStream atomic.Bool
	stopWatch := make(chan struct{})
	watched := make(chan struct{})
	defer func() { close(stopWatch); <-watched }()
	go func() {
		defer close(watched)
		w.watchParkedPoll(stopWatch, &received, func() { cancelledByStream.Store(true); cancel() })
	}()
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
		return 0, cancelledByStream.Load() && ctx.Err() == nil, err
	}
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return count, false, nil
		}
		if err != nil {
			if count > 0 && status.Code(err) == codes.DeadlineExceeded {
				return count, false, nil
			}
			if cancelledByStream.Load() && ctx.Err() == nil {
				return count, true, nil
			}
			return count, false, err
		}
		if len(resp.GetJobs()) > 0 {
			received.Store(true)
		}
		for _, j := range resp.GetJobs() {
			count++
			if slot := w.ledger.TakePoll(); slot != nil {
				w.exec.submit(item{job: j, slot: slot, activation: "poll"})
			} else {
				// The stream filled the worker while this poll was parked.
				w.exec.giveBack(j, "poll")
			}
		}
	}
}

// parkedPollCancelDelay is how long held must stay above the poll threshold
// before a parked poll is cancelled (same in every SDK). A poll response that
// was already in flight when the stream filled the worker arrives meanwhile and
// is handed back losslessly (overflow); cancelling at once would drop it in the
// transport, and the job would wait for its activation timeout.
const parkedPollCancelDelay = 100 * time.Millisecond

// watchParkedPoll calls cancel when held (received jobs) has risen from at
// most the poll threshold to above it, and stayed there for
// parkedPollCancelDelay, while no job has arrived for this poll: the stream
// filled the worker, so the parked poll would only activate jobs that find no
// slot. It returns when stop is closed or after cancelling.
func (w *Worker) watchParkedPoll(stop <-chan struct{}, received *atomic.Bool, cancel func()) {
	max := w.ledger.Max()
	below := false
	var due <-chan time.Time
	for {
		changed := w.ledger.Changed()
		if jobs := w.ledger.Jobs(); jobs*10 <= max*3 {
			below, due = true, nil
		} else if below && !received.Load() && due == nil {
			due = time.After(parkedPollCancelDelay)
		}
		select {
		case <-changed:
		case <-due:
			if jobs := w.ledger.Jobs(); jobs*10 > max*3 && !received.Load() {
				cancel()
				return
			}
			due = nil
		case <-stop:
			return
		}
	}
}
