package worker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/jobwire/jobwire/sdk-go/internal/pb"
)

// Delivery is a job handed to the handler, with the means to settle it.
type Delivery struct {
	Job        *pb.ActivatedJob
	Activation string // "push" or "poll"
	e          *executor
	deadline   atomic.Int64 // epoch ms, moved by ExtendTimeout
	mu         sync.Mutex
	settled    atomic.Bool
	result     string
}

// ErrAlreadySettled is returned when a second outcome is sent for one job.
var ErrAlreadySettled = errors.New("job outcome already sent")

// Deadline returns the job's current deadline.
func (d *Delivery) Deadline() time.Time { return time.UnixMilli(d.deadline.Load()) }

func (d *Delivery) outcome() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.result
}

// Settle sends an outcome (manual mode). Only the first call sends.
func (d *Delivery) Settle(o Outcome) error {
	if d.settled.Load() {
		return ErrAlreadySettled
	}
	return d.send(o)
}

// send delivers the outcome, retrying UNAVAILABLE, RESOURCE_EXHAUSTED and
// DEADLINE_EXCEEDED with backoff until the job's deadline. NOT_FOUND and
// FAILED_PRECONDITION (timed out, cancelled, completed elsewhere) are benign:
// logged and counted, not returned.
func (d *Delivery) send(o Outcome) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.settled.Load() {
		return ErrAlreadySettled
	}
	d.settled.Store(true)
	w := d.e.w
	if len(o.Message) > maxMessage {
		o.Message = o.Message[:maxMessage] + "…"
	}
	if o.Kind == OutcomeReturn {
		o.Retries, o.RetryBackOff = d.Job.GetRetries(), 0
	}
	name := map[OutcomeKind]string{OutcomeComplete: "completed", OutcomeFail: "failed", OutcomeError: "error", OutcomeReturn: "returned"}[o.Kind]
	b := NewBackoff()
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeout(d.e.sendCtx, w.requestBudget())
		err := d.rpc(ctx, o)
		cancel()
		switch code := status.Code(err); {
		case err == nil:
			d.result = name
			w.tel.Handled(name)
			return nil
		case code == codes.NotFound || code == codes.FailedPrecondition:
			d.result = "not_found"
			w.tel.Handled("not_found")
			w.log.Info("job outcome not accepted: job timed out, was cancelled or completed elsewhere",
				"key", d.Job.GetKey(), "outcome", name, "code", code.String())
			return nil
		case code == codes.Unavailable || code == codes.ResourceExhausted || code == codes.DeadlineExceeded:
			wait := b.Next()
			if time.Now().Add(wait).After(d.Deadline()) || d.e.sendCtx.Err() != nil {
				d.result = "undelivered"
				err = fmt.Errorf("send %s outcome for job %d: gave up at the job deadline after %d attempts: %w", name, d.Job.GetKey(), attempt, err)
				w.log.Warn("job outcome not delivered", "key", d.Job.GetKey(), "err", err)
				w.cfg.OnError(err)
				return err
			}
			w.log.Debug("retrying job outcome", "key", d.Job.GetKey(), "code", code.String(), "wait", wait)
			sleep(d.e.sendCtx, wait)
		default:
			d.result = "undelivered"
			err = fmt.Errorf("send %s outcome for job %d: %w", name, d.Job.GetKey(), err)
			w.log.Error("job outcome rejected", "key", d.Job.GetKey(), "err", err)
			w.cfg.OnError(err)
			return err
		}
	}
}

func (d *Delivery) rpc(ctx context.Context, o Outcome) error {
	gw, key := d.e.w.gw.Unary, d.Job.GetKey()
	if o.Kind == OutcomeReturn && o.Message == MsgClosing {
		// Close hands jobs back over the connection that carried the worker's
		// long poll and stream: HTTP/2 keeps the order of one connection, so the
		// gateway sees the poll cancelled before the job is activatable again and
		// cannot hand it to that (dead) poll.
		gw = d.e.w.gw.Long
	}
	var err error
	switch o.Kind {
	case OutcomeComplete:
		_, err = gw.CompleteJob(ctx, &pb.CompleteJobRequest{JobKey: key, Variables: o.Variables})
	case OutcomeFail, OutcomeReturn:
		_, err = gw.FailJob(ctx, &pb.FailJobRequest{JobKey: key, Retries: o.Retries, ErrorMessage: o.Message,
			RetryBackOff: o.RetryBackOff.Milliseconds(), Variables: o.Variables})
	case OutcomeError:
		_, err = gw.ThrowError(ctx, &pb.ThrowErrorRequest{JobKey: key, ErrorCode: o.ErrorCode, ErrorMessage: o.Message, Variables: o.Variables})
	default:
		return nil
	}
	return err
}

// raiseDeadline moves the deadline to ms if that is later (a redelivery).
func (d *Delivery) raiseDeadline(ms int64) {
	for {
		cur := d.deadline.Load()
		if ms <= cur || d.deadline.CompareAndSwap(cur, ms) {
			return
		}
	}
}

// ExtendTimeout sets the job's activation timeout to d from now.
func (d *Delivery) ExtendTimeout(ctx context.Context, timeout time.Duration) error {
	_, err := d.e.w.gw.Unary.UpdateJobTimeout(ctx, &pb.UpdateJobTimeoutRequest{JobKey: d.Job.GetKey(), Timeout: timeout.Milliseconds()})
	if err == nil {
		d.deadline.Store(time.Now().Add(timeout).UnixMilli())
	}
	return err
}
