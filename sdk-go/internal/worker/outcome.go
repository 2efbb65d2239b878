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

// HeldJob is a job this worker holds, handed to the handler, with the means to
// settle it (its one outcome, sent with retries) and its deadline.
type HeldJob struct {
	Job        *pb.ActivatedJob
	Activation string // "push" or "poll"
	e          *executor
	deadline   atomic.Int64 // epoch ms, moved by ExtendTimeout
	mu         sync.Mutex
	settled    atomic.Bool // an outcome was sent (or is being sent)
	result     string

	// Manual mode: the handler returned without settling; the slot stays held
	// until an outcome is acknowledged (or NOT_FOUND) or the deadline passes.
	pending bool
	onDone  func() // set with pending; called once
	done    sync.Once
}

// ErrAlreadySettled is returned when a second outcome is sent for one job.
var ErrAlreadySettled = errors.New("job outcome already sent")

// Deadline returns the job's current deadline.
func (d *HeldJob) Deadline() time.Time { return time.UnixMilli(d.deadline.Load()) }

func (d *HeldJob) outcome() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.result
}

// Settle sends an outcome (manual mode): only the first call sends; ctx bounds
// the whole send, retries included. It returns nil only when the engine
// acknowledged the outcome, else the error (NOT_FOUND and FAILED_PRECONDITION
// included: the job timed out, was cancelled or completed elsewhere).
func (d *HeldJob) Settle(ctx context.Context, o Outcome) error {
	if err := ctx.Err(); err != nil {
		return err // nothing sent: the job is still open
	}
	return d.send(ctx, o)
}

// errNotAccepted marks a NOT_FOUND / FAILED_PRECONDITION answer: benign in
// auto mode (logged and counted), returned to manual callers.
var errNotAccepted = errors.New("job outcome not accepted")

// NotAccepted reports whether err is a NOT_FOUND / FAILED_PRECONDITION answer
// to an outcome.
func NotAccepted(err error) bool { return errors.Is(err, errNotAccepted) }

type notAcceptedError struct{ err error }

func (e *notAcceptedError) Error() string              { return e.err.Error() }
func (e *notAcceptedError) Unwrap() []error            { return []error{errNotAccepted, e.err} }
func (e *notAcceptedError) GRPCStatus() *status.Status { return status.Convert(e.err) }

// send delivers the outcome, retrying UNAVAILABLE, RESOURCE_EXHAUSTED,
// DEADLINE_EXCEEDED and ABORTED (see classifyOutcome) with backoff until the
// job's deadline (or ctx ends).
// Counted as completed / failed / error / returned only when acknowledged;
// NOT_FOUND and FAILED_PRECONDITION count as not_found; anything else given up
// counts as undelivered.
func (d *HeldJob) send(ctx context.Context, o Outcome) (err error) {
	return d.sendFrom(nil, ctx, o)
}

// sendFrom is send; from a runner (rc not nil) each attempt runs in the
// runner's own send context, with no deadline of its own: the executor's
// attempt watchdog cancels an attempt older than the request budget (see
// runnerCtx). A deadline context per attempt — a timer, the context, and the
// registration of gRPC's call context with it — was 8 of the 117 allocations
// per job in a closed loop, and 7 % of the worker's CPU.
func (d *HeldJob) sendFrom(rc *runnerCtx, ctx context.Context, o Outcome) (err error) {
	d.mu.Lock()
	if d.settled.Load() {
		d.mu.Unlock()
		return ErrAlreadySettled
	}
	d.settled.Store(true)
	var finished bool // the job is settled for good: a pending manual job ends
	defer func() {
		pending := d.pending
		d.mu.Unlock()
		if finished && pending {
			d.finish()
		}
	}()
	w := d.e.w
	if len(o.Message) > maxMessage {
		o.Message = o.Message[:maxMessage] + "…"
	}
	if o.Kind == OutcomeReturn {
		o.Retries, o.RetryBackOff = d.Job.GetRetries(), 0
	}
	name := outcomeName(o.Kind)
	giveUp := func(err error) error {
		d.result = "undelivered"
		w.tel.Handled("undelivered")
		w.log.Warn("job outcome not delivered", "key", d.Job.GetKey(), "outcome", name, "err", err)
		w.cfg.OnError(err)
		return err
	}
	var b *Backoff // made at the first retry
	for attempt := 1; ; attempt++ {
		var err error
		if rc != nil {
			err = rc.attempt(d, o)
		} else {
			actx, cancel := context.WithTimeout(d.e.sendCtx, w.requestBudget())
			stop := func() bool { return false }
			if ctx.Done() != nil { // a ctx that can end (not Background): it ends the attempt too
				stop = context.AfterFunc(ctx, cancel)
			}
			err = d.rpc(actx, o)
			stop()
			cancel()
		}
		code, decision := codes.OK, outcomeDecision("")
		if err != nil { // (status.Convert of a nil error allocates an OK status: not on every outcome)
			st := status.Convert(err)
			code, decision = st.Code(), classifyOutcome(st.Code(), st.Message())
		}
		switch {
		case err == nil:
			d.result = name
			w.tel.Handled(name)
			finished = true
			return nil
		case decision == outcomeBenign:
			d.result = "not_found"
			w.tel.Handled("not_found")
			w.log.Info("job outcome not accepted: job timed out, was cancelled or completed elsewhere",
				"key", d.Job.GetKey(), "outcome", name, "code", code.String())
			finished = true
			return &notAcceptedError{fmt.Errorf("send %s outcome for job %d: %w", name, d.Job.GetKey(), err)}
		case ctx.Err() != nil:
			return giveUp(fmt.Errorf("send %s outcome for job %d: %w", name, d.Job.GetKey(), ctx.Err()))
		case d.e.sendCtx.Err() != nil:
			return giveUp(fmt.Errorf("send %s outcome for job %d: worker closed: %w", name, d.Job.GetKey(), err))
		case decision == outcomeRetry:
			if b == nil {
				b = NewBackoffWith(w.cfg.Backoff)
			}
			wait := b.Next()
			if time.Now().Add(wait).After(d.Deadline()) {
				return giveUp(fmt.Errorf("send %s outcome for job %d: gave up at the job deadline after %d attempts: %w", name, d.Job.GetKey(), attempt, err))
			}
			w.log.Debug("retrying job outcome", "key", d.Job.GetKey(), "code", code.String(), "wait", wait)
			sctx, scancel := context.WithCancel(d.e.sendCtx)
			stop := context.AfterFunc(ctx, scancel)
			sleep(sctx, wait)
			stop()
			scancel()
		case outcomeTooLarge(err):
			return giveUp(fmt.Errorf("send %s outcome for job %d: refused for its size (not retried): %w", name, d.Job.GetKey(), err))
		default:
			return giveUp(fmt.Errorf("send %s outcome for job %d: %w", name, d.Job.GetKey(), err))
		}
	}
}

// outcomeName is the outcome's name in metrics, logs and errors.
func outcomeName(k OutcomeKind) string {
	switch k {
	case OutcomeComplete:
		return "completed"
	case OutcomeFail:
		return "failed"
	case OutcomeError:
		return "error"
	case OutcomeReturn:
		return "returned"
	}
	return ""
}

// finish ends a pending manual-mode job once (its slot released, its span ended).
func (d *HeldJob) finish() {
	d.done.Do(func() {
		if d.onDone != nil {
			d.onDone()
		}
	})
}

// holdUntilSettled is called when a manual-mode handler returned without an
// outcome: unless an outcome is already being sent, the job stays held until
// one is acknowledged (onDone then runs) or its deadline passes (counted
// unsettled). It reports false when an outcome was sent meanwhile.
func (d *HeldJob) holdUntilSettled(onDone func()) bool {
	d.mu.Lock()
	if d.settled.Load() {
		d.mu.Unlock()
		return false
	}
	d.pending, d.onDone = true, onDone
	d.mu.Unlock()
	var arm func()
	arm = func() {
		time.AfterFunc(time.Until(d.Deadline())+time.Millisecond, func() {
			if time.Until(d.Deadline()) > 0 { // extended meanwhile
				arm()
				return
			}
			d.mu.Lock()
			unsettled := !d.settled.Load()
			if unsettled {
				d.result = "unsettled"
			}
			d.mu.Unlock()
			if unsettled {
				d.e.w.tel.Handled("unsettled")
				d.e.w.log.Warn("manual-mode job reached its deadline without an outcome", "key", d.Job.GetKey())
			}
			d.finish()
		})
	}
	arm()
	return true
}

func (d *HeldJob) rpc(ctx context.Context, o Outcome) error {
	gw, key := d.e.w.gw.Unary, d.Job.GetKey()
	if o.Kind == OutcomeReturn && (o.Message == MsgClosing || o.Message == MsgRecycled) {
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
func (d *HeldJob) raiseDeadline(ms int64) {
	for {
		cur := d.deadline.Load()
		if ms <= cur || d.deadline.CompareAndSwap(cur, ms) {
			return
		}
	}
}

// ExtendTimeout sets the job's activation timeout to d from now.
func (d *HeldJob) ExtendTimeout(ctx context.Context, timeout time.Duration) error {
	_, err := d.e.w.gw.Unary.UpdateJobTimeout(ctx, &pb.UpdateJobTimeoutRequest{JobKey: d.Job.GetKey(), Timeout: timeout.Milliseconds()})
	if err == nil {
		d.deadline.Store(time.Now().Add(timeout).UnixMilli())
	}
	return err
}
