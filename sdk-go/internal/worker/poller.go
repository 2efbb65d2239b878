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

// fairnessInterval: while the stream keeps held above the poll threshold, a
// fairness poll is due this long after the last poll ended (push and poll,
// rule 8), so jobs the engine yielded (never pushed again) are collected.
const fairnessInterval = time.Second

// pollLoop: reserve → receive → run → release. It asks for max − held −
// reserved jobs when held ≤ 30 % of capacity, or when a backfill or fairness
// poll is due, with at most one ActivateJobs in flight. Errors back off
// (50 ms → 5 s); an empty poll pauses pollInterval unless the gateway parked it
// for at least half its long-poll time.
func (w *Worker) pollLoop(ctx context.Context) {
	backfill := true // the first poll collects any backlog
	due := false     // the last poll got all it asked for: more is waiting
	lastEnd := time.Now()
	for ctx.Err() == nil {
		if !backfill {
			select {
			case <-w.backfil:
				backfill = true
			default:
			}
		}
		free, below, changed := w.ledger.PollState()
		pushing := w.streamOpen.Load()
		plan := planPoll(pollInput{
			free: free, below: below, pushing: pushing, backfill: backfill, due: due,
			sinceLastEnd: time.Since(lastEnd), streamEnabled: w.cfg.StreamEnabled, requestTimeout: w.cfg.RequestTimeout,
		})
		if plan.markDue {
			w.ledger.SetPollDue(true) // the stream reader leaves the next free slot to this poll
		}
		if !plan.send {
			var fairIn <-chan time.Time
			var fairTimer *time.Timer
			if plan.fairnessIn > 0 {
				fairTimer = time.NewTimer(plan.fairnessIn)
				fairIn = fairTimer.C
			}
			select {
			case <-changed:
			case <-w.backfil:
				backfill = true
			case <-fairIn:
			case <-ctx.Done():
			}
			if fairTimer != nil {
				fairTimer.Stop()
			}
			continue
		}
		reqTimeout := plan.requestTimeout
		got := w.ledger.ReservePoll(plan.ask, plan.parks)
		if got == 0 {
			continue
		}
		start := time.Now()
		count, err := w.activate(ctx, got, reqTimeout)
		firstJob := w.lastFirstJob
		w.ledger.ReturnPoll()
		lastEnd = time.Now()
		if ctx.Err() != nil {
			return
		}
		after := afterPoll(pushing, err != nil, got, count, backfill, plan.parks, firstJob)
		backfill = false
		due = after.due
		if err != nil {
			w.tel.Poll("error")
			w.state.PollFailed()
			var wait time.Duration
			if classifyActivation(callPoll, status.Code(err)) == activationMaxBackoffReport {
				wait = w.pollBackoff.Max()
				w.log.Error("activating jobs failed; retrying at the maximum backoff", "err", err, "code", status.Code(err).String())
				w.cfg.OnError(err)
			} else {
				wait = w.pollBackoff.Next()
				w.log.Warn("activating jobs failed; backing off", "err", err, "code", status.Code(err).String(), "wait", wait)
			}
			if !w.rest(ctx, wait) {
				return
			}
			continue
		}
		w.pollBackoff.Reset()
		w.state.PollOK()
		if count > 0 {
			w.tel.Poll("jobs")
			if after.stall {
				// The stall watchdog: jobs became activatable while this poll was
				// parked (not a backlog answered at once): did the stream deliver?
				w.pollFoundJobs()
			}
			continue
		}
		w.tel.Poll("empty")
		if emptyPollPause(reqTimeout, time.Since(start)) && !w.rest(ctx, w.cfg.PollInterval) {
			return
		}
	}
}

// rest pauses the poller for d (pollInterval after an empty answer, back-off
// after an error). No poll is due meanwhile (Ledger.RestPoll): the stream
// reader is not held back, even by a stream that reopens and marks its
// backfill poll due during a long back-off. False when ctx ended.
func (w *Worker) rest(ctx context.Context, d time.Duration) bool {
	w.ledger.RestPoll(true)
	defer w.ledger.RestPoll(false)
	return sleep(ctx, d)
}

// emptyPollPause reports whether an empty poll is followed by a pause of
// pollInterval: unless the gateway parked it for at least half its long-poll
// time (requestTimeout, or the gateway's default 10 s when it is 0). Without
// long polling (negative), every empty poll pauses.
func emptyPollPause(requestTimeout, elapsed time.Duration) bool {
	switch {
	case requestTimeout < 0:
		return true
	case requestTimeout == 0:
		return elapsed < 5*time.Second
	}
	return elapsed < requestTimeout/2
}

// pollDeadline is the RPC deadline of ActivateJobs: requestTimeout + 10 s; 20 s
// with requestTimeout 0 (the gateway's default long poll, 10 s); 10 s without
// long polling. The same in every SDK.
func pollDeadline(requestTimeout time.Duration) time.Duration {
	switch {
	case requestTimeout > 0:
		return requestTimeout + 10*time.Second
	case requestTimeout == 0:
		return 20 * time.Second
	}
	return 10 * time.Second
}

// activate runs one ActivateJobs call and hands every job to the executor as
// it arrives. A job beyond the capacity left (the stream took slots from the
// pool meanwhile) is handed back at once (overflow). A parked poll is never
// cancelled because the stream filled the worker (push and poll, rule 3): a
// cancel drops whatever the gateway had already sent for the poll, and those
// jobs would wait out their activation timeout.
// stallParkedMin: a poll whose first job came at least this long after the
// call was parked by the gateway, so its jobs became activatable while the
// stream should have been pushing them (a backlog is answered at once).
const stallParkedMin = 500 * time.Millisecond

func (w *Worker) activate(ctx context.Context, n int, requestTimeout time.Duration) (count int, err error) {
	w.lastFirstJob = 0
	sent := time.Now()
	rctx, cancel := context.WithTimeout(ctx, pollDeadline(requestTimeout))
	defer cancel()
	received := false
	req := &pb.ActivateJobsRequest{
		Type: w.cfg.JobType, Worker: w.cfg.WorkerName, Timeout: w.cfg.JobTimeout.Milliseconds(),
		MaxJobsToActivate: int32(n), FetchVariable: w.cfg.FetchVariables,
		RequestTimeout: requestTimeout.Milliseconds(), TenantIds: w.cfg.TenantIDs,
	}
	if requestTimeout < 0 {
		req.RequestTimeout = -1
	}
	stream, err := w.gw.Long.ActivateJobs(rctx, req)
	if err != nil {
		return 0, err
	}
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return count, nil
		}
		if err != nil {
			if status.Code(err) == codes.DeadlineExceeded && rctx.Err() != nil && ctx.Err() == nil {
				// The RPC deadline passed: with jobs it is a result, without an
				// empty poll (logged at debug, no backoff).
				if count == 0 {
					w.log.Debug("long poll ended at its deadline without jobs")
				}
				return count, nil
			}
			return count, err
		}
		if len(resp.GetJobs()) > 0 {
			if !received {
				w.lastFirstJob = time.Since(sent)
			}
			received = true
		}
		for _, j := range resp.GetJobs() {
			count++
			if slot := w.ledger.TakePoll(); slot != nil {
				w.exec.submit(item{job: j, slot: slot, activation: "poll"})
			} else {
				// The stream filled the worker while this poll was parked.
				w.exec.giveBack(j, "poll", MsgAtCapacity)
			}
		}
	}
}
