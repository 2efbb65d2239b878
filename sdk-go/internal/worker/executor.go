package worker

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jobwire/jobwire/sdk-go/internal/pb"
)

// maxMessage bounds failure messages sent to the engine.
const maxMessage = 2000

// item is a received job waiting for, or holding, a handler slot.
type item struct {
	job        *pb.ActivatedJob
	slot       *Slot
	activation string
}

// executor runs handlers, at most Concurrency at a time, and sends outcomes.
// Received jobs beyond the concurrency wait in a queue bounded by the ledger.
type executor struct {
	w       *Worker
	h       Handler
	mu      sync.Mutex
	queue   []item
	running int
	closing bool
	wg      sync.WaitGroup // running handlers and fail-backs

	handlerCtx    context.Context // parent of every handler's ctx; cancelled at the close deadline
	cancelHandler context.CancelFunc
	sendCtx       context.Context // outcome sends; cancelled only if close gives up
	cancelSend    context.CancelFunc
	closedByStop  atomic.Bool
}

func newExecutor(w *Worker, h Handler) *executor {
	e := &executor{w: w, h: h}
	e.handlerCtx, e.cancelHandler = context.WithCancel(context.Background())
	e.sendCtx, e.cancelSend = context.WithCancel(context.Background())
	return e
}

// submit hands a received job, already holding a slot, to the executor.
func (e *executor) submit(it item) {
	if !it.slot.Bind(it.job.GetKey(), it) {
		// Second delivery of a job we still hold: it runs after the first copy.
		e.w.log.Debug("job delivered again while held; it runs after the current attempt", "key", it.job.GetKey())
		it.slot.Release()
		return
	}
	e.w.tel.Activated(it.activation)
	e.mu.Lock()
	if e.closing {
		e.mu.Unlock()
		e.failBack(it, "worker closing")
		return
	}
	if e.running < e.w.cfg.Concurrency {
		e.running++
		e.wg.Add(1)
		e.mu.Unlock()
		go e.loop(it)
		return
	}
	e.queue = append(e.queue, it)
	e.mu.Unlock()
}

// loop runs it, then whatever is queued, until the queue is empty.
func (e *executor) loop(it item) {
	defer e.wg.Done()
	for {
		e.execute(it)
		if next := it.slot.ReleaseOrNext(); next != nil {
			n := next.(item)
			n.slot = it.slot
			e.mu.Lock()
			closing := e.closing
			e.mu.Unlock()
			if closing {
				e.failBack(n, "worker closing")
			} else {
				it = n
				continue
			}
		}
		e.mu.Lock()
		if len(e.queue) == 0 || e.closing {
			e.running--
			e.mu.Unlock()
			return
		}
		it = e.queue[0]
		e.queue = e.queue[1:]
		e.mu.Unlock()
	}
}

// shutdown: fail back queued jobs, wait for running handlers until ctx is done,
// then cancel them and wait for them to return (bounded by a short grace).
// It reports whether handlers had to be cancelled.
func (e *executor) shutdown(ctx context.Context) bool {
	e.mu.Lock()
	e.closing = true
	queued := e.queue
	e.queue = nil
	e.mu.Unlock()
	for _, it := range queued {
		e.failBack(it, "worker closing")
	}
	done := make(chan struct{})
	go func() { e.wg.Wait(); close(done) }()
	select {
	case <-done:
		return false
	default:
	}
	select {
	case <-done:
		return false
	case <-ctx.Done():
	}
	e.closedByStop.Store(true)
	e.cancelHandler()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		e.w.log.Warn("handlers ignored cancellation; close returns without them")
		e.cancelSend()
	}
	return true
}

// failBack returns a job to the engine at once: retries unchanged, no backoff.
func (e *executor) failBack(it item, why string) {
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		for {
			d := e.delivery(it)
			_ = d.send(Outcome{Kind: OutcomeFail, Retries: it.job.GetRetries(), Message: "jobwire: " + why + "; job handed back"})
			next := it.slot.ReleaseOrNext()
			if next == nil {
				return
			}
			n := next.(item)
			n.slot, it = it.slot, n
		}
	}()
}

func (e *executor) delivery(it item) *Delivery {
	d := &Delivery{Job: it.job, Activation: it.activation, e: e}
	d.deadline.Store(it.job.GetDeadline())
	return d
}

func (e *executor) execute(it item) {
	w := e.w
	if time.Until(time.UnixMilli(it.job.GetDeadline())) <= 0 {
		w.log.Debug("job expired before its handler started; dropped", "key", it.job.GetKey())
		w.tel.Handled("expired")
		return
	}
	d := e.delivery(it)
	ctx, span := w.tel.StartJob(e.handlerCtx, it.job, w.cfg.WorkerName, it.activation)
	ctx, cancel := context.WithCancel(ctx)
	if w.cfg.AutoExtend {
		stop := startExtender(ctx, d, w.cfg.JobTimeout)
		defer stop()
	}
	start := time.Now()
	o := e.call(ctx, d)
	cancel()
	w.tel.Duration(time.Since(start))
	if o.Kind == OutcomeFail && e.closedByStop.Load() && e.handlerCtx.Err() != nil {
		// Cancelled by close: not the job's fault, hand it back untouched.
		o.Retries, o.RetryBackOff = it.job.GetRetries(), 0
	}
	outcome := "completed"
	var err error
	if d.settled.Load() {
		outcome = d.outcome()
	} else if o.Kind != OutcomeNone {
		err = d.send(o)
		outcome = d.outcome()
	} else {
		outcome = "none"
	}
	if o.Cause != nil && err == nil {
		err = o.Cause
	}
	EndJob(span, outcome, err)
}

// call runs the handler, turning a panic into a failure.
func (e *executor) call(ctx context.Context, d *Delivery) (o Outcome) {
	defer func() {
		if r := recover(); r != nil {
			e.w.log.Error("job handler panicked", "key", d.Job.GetKey(), "panic", r, "stack", string(debug.Stack()))
			cause := fmt.Errorf("handler panic: %v", r)
			o = Outcome{Kind: OutcomeFail, Retries: max(d.Job.GetRetries()-1, 0), RetryBackOff: e.w.cfg.RetryBackOff,
				Message: cause.Error(), Cause: cause, Crashed: true}
		}
	}()
	return e.h(ctx, d)
}
