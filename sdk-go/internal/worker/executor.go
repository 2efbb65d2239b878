package worker

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/jobwire/jobwire/sdk-go/internal/pb"
)

// maxMessage bounds failure messages sent to the engine.
const maxMessage = 2000

// closeGrace is how long Close waits, after cancelling the handlers still
// running at its deadline, for them to return before it hands their jobs back
// and stops waiting (the same in every SDK).
const closeGrace = time.Second

// Messages sent with FailJob when the worker hands a job back untouched
// (retries unchanged, no back-off); the same in every SDK.
const (
	MsgClosing    = "jobwire: worker closing; job returned"
	MsgAtCapacity = "jobwire: worker at capacity; job returned"
)

// item is a received job and the slot it holds.
type item struct {
	job        *pb.ActivatedJob
	slot       *Slot
	activation string
}

// entry is a job key the worker holds: queued, running, or sending its outcome.
type entry struct {
	it      item
	d       *HeldJob // &held for a received job
	held    HeldJob
	running bool  // its handler runs now
	next    *item // a redelivery that arrived while the outcome was in flight
}

// executor runs handlers, at most Concurrency at a time, and sends outcomes.
// Received jobs beyond the concurrency wait in a queue bounded by the ledger.
type executor struct {
	w       *Worker
	h       Handler
	mu      sync.Mutex
	held    map[int64]*entry
	queue   []*entry
	running int
	closing bool
	wg      sync.WaitGroup // running handlers and fail-backs

	handlerCtx    context.Context // parent of every handler's ctx; cancelled at the close deadline
	cancelHandler context.CancelFunc
	sendCtx       context.Context // outcome sends; cancelled only if close gives up
	cancelSend    context.CancelFunc
	closedByStop  atomic.Bool

	// idle: a runner that finished its work waits here up to runnerLinger for
	// the next job (a new goroutine per job grew its stack anew every time: 4 %
	// of the worker's CPU in a closed loop); closed by beginClose.
	idle     chan *entry
	stopIdle chan struct{}

	runners  map[*runnerCtx]struct{} // running runners (the attempt watchdog checks their sends)
	watching bool                    // watchAttempts runs
}

// runnerCtx: a runner's own children of handlerCtx and sendCtx. Each job's
// handler context is registered with the first rather than with the parent
// all runners share (a lock and a map entry per job that every runner
// contended for); the runner's outcome attempts run in the second, bounded by
// the executor's attempt watchdog instead of a deadline context per attempt.
type runnerCtx struct {
	e             *executor
	handler       context.Context
	cancelHandler context.CancelFunc
	mu            sync.Mutex // send and cancelSend: renewed by the runner, cancelled by the watchdog
	send          context.Context
	cancelSend    context.CancelFunc
	// attemptStart: when the attempt in flight began (unix ns), 0 when none,
	// timedOut when the watchdog cancelled it
	attemptStart atomic.Int64
}

const timedOut = -1

func (e *executor) newRunnerCtx() *runnerCtx {
	rc := &runnerCtx{e: e}
	rc.handler, rc.cancelHandler = context.WithCancel(e.handlerCtx)
	rc.send, rc.cancelSend = context.WithCancel(e.sendCtx)
	e.mu.Lock()
	e.runners[rc] = struct{}{}
	if !e.watching {
		e.watching = true
		go e.watchAttempts()
	}
	e.mu.Unlock()
	return rc
}

func (rc *runnerCtx) end() {
	rc.e.mu.Lock()
	delete(rc.e.runners, rc)
	rc.e.mu.Unlock()
	rc.cancelHandler()
	rc.mu.Lock()
	rc.cancelSend()
	rc.mu.Unlock()
}

// attempt sends the outcome once. One the watchdog cancelled at the request
// budget fails with DEADLINE_EXCEEDED (retried like the gateway's own), and
// the runner's send context is renewed.
func (rc *runnerCtx) attempt(d *HeldJob, o Outcome) error {
	rc.attemptStart.Store(time.Now().UnixNano())
	err := d.rpc(rc.send, o)
	if rc.attemptStart.Swap(0) == timedOut {
		rc.mu.Lock()
		rc.cancelSend()
		rc.send, rc.cancelSend = context.WithCancel(rc.e.sendCtx)
		rc.mu.Unlock()
		if err != nil {
			err = status.Errorf(codes.DeadlineExceeded, "jobwire: outcome attempt timed out after %v", rc.e.w.requestBudget())
		}
	}
	return err
}

// watchAttempts cancels every runner's outcome attempt that has been in
// flight for the request budget (checked every tenth of it, at least every
// second and at most every 10 ms; so an attempt lasts at most 1.1 times the
// budget). It ends when no runner is left (runners end runnerLinger after
// their last job, and at close).
func (e *executor) watchAttempts() {
	budget := e.w.requestBudget()
	t := time.NewTicker(min(max(budget/10, 10*time.Millisecond), time.Second))
	defer t.Stop()
	for range t.C {
		e.mu.Lock()
		if len(e.runners) == 0 {
			e.watching = false
			e.mu.Unlock()
			return
		}
		now := time.Now().UnixNano()
		for rc := range e.runners {
			if start := rc.attemptStart.Load(); start > 0 && now-start >= budget.Nanoseconds() {
				rc.mu.Lock()
				if rc.attemptStart.CompareAndSwap(start, timedOut) {
					rc.cancelSend()
				}
				rc.mu.Unlock()
			}
		}
		e.mu.Unlock()
	}
}

// runnerLinger is how long a runner with nothing queued waits for a next job
// before its goroutine ends.
const runnerLinger = 2 * time.Second

func newExecutor(w *Worker, h Handler) *executor {
	e := &executor{w: w, h: h, held: map[int64]*entry{}, idle: make(chan *entry), stopIdle: make(chan struct{}),
		runners: map[*runnerCtx]struct{}{}}
	e.handlerCtx, e.cancelHandler = context.WithCancel(context.Background())
	e.sendCtx, e.cancelSend = context.WithCancel(context.Background())
	return e
}

// submit hands a received job, already holding a slot, to the executor.
func (e *executor) submit(it item) {
	e.w.tel.Activated(it.activation)
	e.enqueue(it)
}

func (e *executor) enqueue(it item) {
	w, key := e.w, it.job.GetKey()
	e.mu.Lock()
	if en, dup := e.held[key]; dup {
		if !en.d.settled.Load() {
			// Redelivery while the first attempt is queued or running: do not run it
			// twice; the newer deadline counts (auto-extend and the expiry check use it).
			en.d.raiseDeadline(it.job.GetDeadline())
			e.mu.Unlock()
			it.slot.Release()
			w.log.Debug("job delivered again while its handler runs; keeping the running attempt", "key", key)
			w.tel.Handled("duplicate")
			return
		}
		// The attempt finished and its outcome is in flight: the engine activated the
		// job again, a real new attempt; it runs once that outcome is acknowledged.
		old := en.next
		en.next = &it
		e.mu.Unlock()
		if old != nil {
			old.slot.Release()
			w.tel.Handled("duplicate")
		}
		w.log.Debug("job delivered again while its outcome is in flight; it runs after the acknowledgement", "key", key)
		return
	}
	en := &entry{it: it} // one allocation for the entry and its HeldJob
	en.d = e.initHeldJob(&en.held, it)
	e.held[key] = en
	switch {
	case e.closing:
		e.mu.Unlock()
		e.failBack(en)
	case e.running < e.w.cfg.Concurrency:
		e.running++
		en.running = true
		select {
		case e.idle <- en: // a waiting runner takes it
			e.mu.Unlock()
		default:
			e.wg.Add(1)
			e.mu.Unlock()
			go e.loop(en)
		}
	default:
		e.queue = append(e.queue, en)
		e.mu.Unlock()
	}
}

// loop runs en, then whatever is queued; with nothing queued it waits up to
// runnerLinger for a next job handed to it by enqueue (which counted it as
// running again), then ends.
func (e *executor) loop(en *entry) {
	defer e.wg.Done()
	rc := e.newRunnerCtx()
	defer rc.end()
	var linger *time.Timer
	for {
		if !e.execute(rc, en) {
			e.finish(en)
		}
		e.mu.Lock()
		if e.closing {
			e.running--
			e.mu.Unlock()
			return
		}
		if len(e.queue) > 0 {
			en = e.queue[0]
			e.queue = e.queue[1:]
			en.running = true
			e.mu.Unlock()
			continue
		}
		e.running--
		e.mu.Unlock()
		if linger == nil {
			linger = time.NewTimer(runnerLinger)
		} else {
			linger.Reset(runnerLinger)
		}
		select {
		case en = <-e.idle:
			linger.Stop()
		case <-linger.C:
			return
		case <-e.stopIdle:
			linger.Stop()
			return
		}
	}
}

// finish ends a held key: its slot is released exactly once, and a redelivery
// parked on it is submitted.
func (e *executor) finish(en *entry) {
	e.mu.Lock()
	en.running = false
	if e.held[en.it.job.GetKey()] == en {
		delete(e.held, en.it.job.GetKey())
	}
	next := en.next
	en.next = nil
	e.mu.Unlock()
	en.it.slot.Release()
	if next != nil {
		e.enqueue(*next)
	}
}

// beginClose: from now on every received job is handed back; queued jobs are
// failed back at once.
func (e *executor) beginClose() {
	e.mu.Lock()
	if !e.closing {
		close(e.stopIdle)
	}
	e.closing = true
	queued := e.queue
	e.queue = nil
	e.mu.Unlock()
	for _, en := range queued {
		e.failBack(en)
	}
}

// shutdown (after beginClose and after the activation loops and stream drains
// ended, so nothing adds work any more): wait for running handlers and
// fail-backs until ctx is done, then cancel them; handlers still running after
// closeGrace have their jobs handed back (retries unchanged) and are no longer
// waited for. It reports whether handlers had to be cancelled.
func (e *executor) shutdown(ctx context.Context) bool {
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
		return true
	case <-time.After(closeGrace):
	}
	// Handlers that ignore cancellation: hand their jobs back now; whatever they
	// return later finds the job settled and sends nothing.
	e.mu.Lock()
	var stuck []*entry
	for _, en := range e.held {
		if en.running {
			stuck = append(stuck, en)
		}
	}
	e.mu.Unlock()
	var sends sync.WaitGroup
	for _, en := range stuck {
		sends.Add(1)
		go func() {
			defer sends.Done()
			_ = en.d.send(context.Background(), Outcome{Kind: OutcomeReturn, Message: MsgClosing})
		}()
	}
	sent := make(chan struct{})
	go func() { sends.Wait(); close(sent) }()
	select {
	case <-sent:
	case <-time.After(5 * time.Second):
	}
	if len(stuck) > 0 {
		e.w.log.Warn("handlers ignored cancellation; their jobs were handed back and close returns without them", "count", len(stuck))
	}
	e.cancelSend()
	return true
}

// failBack returns a held job to the engine at once: retries unchanged, no
// back-off, counted as "returned"; then releases its slot.
func (e *executor) failBack(en *entry) {
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		_ = en.d.send(context.Background(), Outcome{Kind: OutcomeReturn, Message: MsgClosing})
		e.finish(en)
	}()
}

// giveBack returns a job the worker will not run — it found no free slot
// (rule: never hold more than maxJobsActive), or it was drained from a stream
// being closed or recycled: FailJob at once with retries unchanged and no
// back-off, counted as "returned". It never waits in memory.
func (e *executor) giveBack(job *pb.ActivatedJob, activation, msg string) {
	e.w.tel.Activated(activation)
	e.w.log.Debug("returning a received job to the engine", "key", job.GetKey(), "activation", activation, "reason", msg)
	d := e.newHeldJob(item{job: job, activation: activation})
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		_ = d.send(context.Background(), Outcome{Kind: OutcomeReturn, Message: msg})
	}()
}

func (e *executor) newHeldJob(it item) *HeldJob { return e.initHeldJob(new(HeldJob), it) }

// initHeldJob fills a zero HeldJob in place for it.
func (e *executor) initHeldJob(d *HeldJob, it item) *HeldJob {
	d.Job, d.Activation, d.e = it.job, it.activation, e
	d.deadline.Store(it.job.GetDeadline())
	return d
}

// execute runs en's handler (its ctx a child of the runner's handler context)
// and sends its outcome (its attempts children of the runner's send context). It reports true when the
// job stays held after the handler returned (manual mode, no outcome yet): it
// is finished when an outcome is acknowledged or its deadline passes.
func (e *executor) execute(rc *runnerCtx, en *entry) (pending bool) {
	w, it, d := e.w, en.it, en.d
	if time.Until(d.Deadline()) <= 0 {
		w.log.Debug("job expired before its handler started; dropped", "key", it.job.GetKey())
		w.tel.Handled("expired")
		return false
	}
	ctx, span := w.tel.StartJob(rc.handler, it.job, w.cfg.WorkerName, it.activation)
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
		o = Outcome{Kind: OutcomeReturn, Message: MsgClosing, Cause: o.Cause}
	}
	var err error
	switch {
	case d.settled.Load():
	case o.Kind != OutcomeNone:
		err = d.sendFrom(rc, context.Background(), o)
		if NotAccepted(err) {
			err = nil // benign in auto mode: logged and counted as not_found
		}
	default:
		// Manual mode: the slot stays held until the job is settled.
		if d.holdUntilSettled(func() {
			EndJob(span, d.outcome(), nil)
			e.finish(en)
		}) {
			return true
		}
	}
	outcome := d.outcome()
	if o.Cause != nil && err == nil {
		err = o.Cause
	}
	EndJob(span, outcome, err)
	return false
}

// call runs the handler, turning a panic into a failure.
func (e *executor) call(ctx context.Context, d *HeldJob) (o Outcome) {
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
