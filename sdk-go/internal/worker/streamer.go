package worker

import (
	"context"
	"errors"
	"io"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/jobwire/jobwire/sdk-go/internal/pb"
)

var unimplementedOnce sync.Map // job type → logged

// streamLoop keeps a StreamActivatedJobs call open until the worker closes:
// reserve a slot, then Recv (so a busy worker stops reading and HTTP/2 flow
// control pushes back on the gateway), hand the job over, repeat. A stream that
// ends or fails is reopened with backoff, forever, each reopen followed by a
// backfill poll; a healthy stream is recycled after streamTimeout. UNIMPLEMENTED
// switches the worker to polling alone.
func (w *Worker) streamLoop(ctx context.Context) {
	opened := false
	for ctx.Err() == nil {
		sctx, cancel := context.WithTimeout(ctx, w.cfg.StreamTimeout)
		err := w.streamOnce(sctx, opened)
		cancel()
		opened = true
		if ctx.Err() != nil {
			return
		}
		code := status.Code(err)
		switch {
		case code == codes.Unimplemented:
			if _, seen := unimplementedOnce.LoadOrStore(w.cfg.JobType, true); !seen {
				w.log.Warn("gateway does not support job streaming; polling only", "err", err)
			}
			w.state.StreamUnsupported()
			return
		case errors.Is(err, context.DeadlineExceeded) || code == codes.DeadlineExceeded && sctx.Err() != nil:
			w.log.Debug("recycling job stream after streamTimeout")
			continue
		}
		w.state.StreamFailed()
		var wait = w.streamBackof.Next()
		if permanent(err) {
			wait = w.streamBackof.Max()
			w.log.Error("job stream failed; retrying at the maximum backoff", "err", err, "code", code.String())
			w.cfg.OnError(err)
		} else {
			w.log.Warn("job stream ended; reopening", "err", err, "code", code.String(), "wait", wait)
		}
		if !sleep(ctx, wait) {
			return
		}
	}
}

func (w *Worker) streamOnce(ctx context.Context, reopen bool) error {
	stream, err := w.gw.Long.StreamActivatedJobs(ctx, &pb.StreamActivatedJobsRequest{
		Type: w.cfg.JobType, Worker: w.cfg.WorkerName, Timeout: w.cfg.JobTimeout.Milliseconds(),
		FetchVariable: w.cfg.FetchVariables, TenantIds: w.cfg.TenantIDs,
	})
	if err != nil {
		return err
	}
	if reopen {
		w.tel.Reconnect()
		select { // jobs that became activatable while the stream was down
		case w.backfil <- struct{}{}:
		default:
		}
	}
	w.state.StreamUp()
	for {
		if err := w.ledger.Reserve(ctx); err != nil {
			return err
		}
		job, err := stream.Recv()
		if err != nil {
			w.ledger.DropStream()
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(err, io.EOF) {
				return status.Error(codes.Unavailable, "job stream closed by the gateway")
			}
			return err
		}
		w.streamBackof.Reset()
		if slot := w.ledger.ClaimStream(); slot != nil {
			w.exec.submit(item{job: job, slot: slot, activation: "push"})
		} else {
			// Rare: a poll used the slot reserved for this read.
			w.exec.giveBack(job, "push")
		}
	}
}
