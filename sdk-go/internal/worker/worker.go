// Package worker implements the job worker behind jobwire.Worker: a capacity
// ledger, a poller, a streamer, an executor and a state machine, each in its
// own file. The public package wraps it; nothing here is exported to users.
package worker

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/jobwire/jobwire/sdk-go/internal/pb"
	"github.com/jobwire/jobwire/sdk-go/internal/pb/streampb"
)

// Config is the resolved worker configuration (defaults applied by the caller).
type Config struct {
	JobType        string
	WorkerName     string
	MaxJobsActive  int
	Concurrency    int
	JobTimeout     time.Duration
	RequestTimeout time.Duration // < 0: no long polling
	PollInterval   time.Duration
	StreamEnabled  bool
	StreamTimeout  time.Duration
	FetchVariables []string
	TenantIDs      []string
	AutoExtend     bool
	RetryBackOff   time.Duration // sent with failures from panics
	Backoff        BackoffConfig // transport back-off: polls, stream reopen, outcome resends, timeout extensions
	Logger         *slog.Logger
	Tracer         trace.TracerProvider
	Meter          metric.MeterProvider
	// OnError receives errors worth the application's attention (activation
	// failures, outcomes that could not be delivered).
	OnError func(error)
}

// OutcomeKind says what the handler asked for.
type OutcomeKind int

// Outcome kinds.
const (
	OutcomeNone     OutcomeKind = iota // nothing to send (manual mode)
	OutcomeComplete                    // CompleteJob
	OutcomeFail                        // FailJob
	OutcomeError                       // ThrowError (BPMN error)
	OutcomeReturn                      // FailJob with retries unchanged, no back-off: handed back, not the job's fault
)

// Outcome is a job result to send to the gateway.
type Outcome struct {
	Kind         OutcomeKind
	Variables    string // JSON object or ""
	Retries      int32  // FailJob
	RetryBackOff time.Duration
	ErrorCode    string // ThrowError
	Message      string // FailJob / ThrowError
	Cause        error  // recorded on the span
	Crashed      bool   // the handler panicked
}

// Handler runs one job and returns what to send (unless it settled the job
// itself through the HeldJob).
type Handler func(ctx context.Context, d *HeldJob) Outcome

// Gateways are the two stubs a worker uses. Long carries the long-lived calls
// (ActivateJobs long polls and StreamActivatedJobs) on a long-call connection
// with a small receive window, plus the jobs Close hands back (ordered after the
// poll's cancellation); Unary, the client's command channel, carries outcomes
// and timeout extensions, so that parked calls never hold up short commands.
type Gateways struct {
	Unary pb.GatewayClient
	Long  pb.GatewayClient
	// Control (optional) is jobwire's StreamControlService on the long-call
	// connection: a stream the worker ends is released there (ReleaseUnread).
	Control streampb.StreamControlServiceClient
}

// Worker is one running job worker.
type Worker struct {
	cfg     Config
	gw      Gateways
	log     *slog.Logger
	ledger  *Ledger
	state   *stateMachine
	tel     *Telemetry
	exec    *executor
	backfil chan struct{} // capacity 1: a backfill poll is due

	activeCtx    context.Context // polls and streams; cancelled at close
	stopActive   context.CancelFunc
	loops        sync.WaitGroup
	closeOnce    sync.Once
	closeErr     error
	pollBackoff  *Backoff
	streamBackof *Backoff

	streamOpen atomic.Bool   // a job stream is open (fairness polls apply)
	pollFound  chan struct{} // capacity 1: a parked poll (not a backfill) returned jobs
	// lastFirstJob: how long after the call the last poll's first job came
	// (poll loop only).
	lastFirstJob time.Duration
	drains       sync.WaitGroup // streams being drained after a recycle
	closeMu      sync.Mutex
	closeCtx     context.Context // Close's ctx
}

// Start creates the worker and starts it.
func Start(cfg Config, gw Gateways, h Handler) *Worker {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.OnError == nil {
		cfg.OnError = func(error) {}
	}
	if cfg.Tracer == nil {
		cfg.Tracer = tracenoop.NewTracerProvider()
	}
	if cfg.Meter == nil {
		cfg.Meter = metricnoop.NewMeterProvider()
	}
	w := &Worker{cfg: cfg, gw: gw, backfil: make(chan struct{}, 1), pollFound: make(chan struct{}, 1),
		pollBackoff: NewBackoffWith(cfg.Backoff), streamBackof: NewBackoffWith(cfg.Backoff)}
	w.log = cfg.Logger.With("jobType", cfg.JobType, "worker", cfg.WorkerName)
	w.tel = NewTelemetry(cfg.Tracer, cfg.Meter, cfg.JobType, cfg.WorkerName)
	w.ledger = NewLedger(cfg.MaxJobsActive, w.tel.Capacity)
	w.state = newStateMachine(cfg.StreamEnabled)
	w.exec = newExecutor(w, h)
	w.activeCtx, w.stopActive = context.WithCancel(context.Background())
	return w
}

// Run starts the loops; separate from Start so that listeners can subscribe
// before the first transition.
func (w *Worker) Run() {
	w.state.Start()
	if w.cfg.StreamEnabled {
		w.ledger.SetPollDue(true) // the first (backfill) poll goes before the first stream read
		w.loops.Add(1)
		go func() { defer w.loops.Done(); w.streamLoop(w.activeCtx) }()
	}
	w.loops.Add(1)
	go func() { defer w.loops.Done(); w.pollLoop(w.activeCtx) }()
}

// Subscribe registers a state listener.
func (w *Worker) Subscribe(f func(State)) { w.state.Subscribe(f) }

// State returns the current state.
func (w *Worker) State() State { return w.state.Current() }

// Held returns the number of received jobs held (for tests).
func (w *Worker) Held() int { return w.ledger.Jobs() }

// ErrCloseTimeout is returned by Close when handlers were still running at the
// deadline and had to be cancelled.
var ErrCloseTimeout = errors.New("handlers still running at the close deadline were cancelled")

// Close stops taking jobs at once, fails back received-but-unstarted jobs,
// drains the stream (jobs in transport buffers are handed back, not stranded),
// lets running handlers finish until ctx is done, then cancels them.
func (w *Worker) Close(ctx context.Context) error {
	w.closeOnce.Do(func() {
		w.state.Closing()
		w.exec.beginClose() // from now on every received job is handed back
		w.closeMu.Lock()
		w.closeCtx = ctx
		w.closeMu.Unlock()
		w.stopActive() // cancels the parked long poll; the stream drains
		w.loops.Wait()
		w.drains.Wait()
		if w.exec.shutdown(ctx) {
			w.closeErr = ErrCloseTimeout
		}
		w.state.Closed()
		w.state.Wait()
	})
	return w.closeErr
}

// requestBudget bounds one unary call.
func (w *Worker) requestBudget() time.Duration {
	if w.cfg.RequestTimeout > 0 {
		return w.cfg.RequestTimeout
	}
	return 10 * time.Second
}

// sleep waits d or until ctx is done; false when ctx is done.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
