package jobwire

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/jobwire/jobwire/sdk-go/internal/worker"
)

// HandlerFunc handles one job. Its return value decides the outcome (with
// auto-complete on, the default):
//   - (variables, nil): CompleteJob with the variables: a map, a struct,
//     json.RawMessage, or nil for none;
//   - an error that is (or wraps) a *JobError: ThrowError (a BPMN error);
//   - any other error, or a panic: the worker's RetryPolicy decides (by
//     default FailJob with retries − 1, the error's message and an
//     exponential back-off; a *NonRetryableError raises an incident).
//
// ctx is cancelled when Worker.Close runs out of time.
type HandlerFunc func(ctx context.Context, job *Job) (any, error)

// WorkerState is the lifecycle state of a worker.
type WorkerState string

// Worker states (same names in every jobwire SDK).
const (
	StateIdle      WorkerState = "idle"      // created, not started
	StatePolling   WorkerState = "polling"   // activating jobs with ActivateJobs
	StateStreaming WorkerState = "streaming" // a job stream is open (polls only backfill)
	StateBackoff   WorkerState = "backoff"   // waiting after an activation error
	StateClosing   WorkerState = "closing"   // Close in progress
	StateClosed    WorkerState = "closed"
)

// WorkerOption configures NewWorker.
type WorkerOption func(*workerConfig)

type workerConfig struct {
	worker.Config
	autoComplete    bool
	listeners       []func(WorkerState)
	onError         []func(error)
	fetchSet        bool // WithFetchVariables given (even empty: all variables)
	retryBackOffSet bool // WithRetryBackOff given (even 0)
	retryPolicy     RetryPolicy
	middleware      []Middleware
}

// WithMaxJobsActive sets the capacity: jobs held at once, push and poll together. Default: 32.
func WithMaxJobsActive(n int) WorkerOption { return func(c *workerConfig) { c.MaxJobsActive = n } }

// WithConcurrency sets how many handlers run in parallel. Default: the max jobs active.
func WithConcurrency(n int) WorkerOption { return func(c *workerConfig) { c.Concurrency = n } }

// WithJobTimeout sets the activation timeout sent to the engine. Default: 5 min.
func WithJobTimeout(d time.Duration) WorkerOption { return func(c *workerConfig) { c.JobTimeout = d } }

// WithRequestTimeout sets the long-poll time of ActivateJobs; the RPC deadline is
// this plus 10 s (20 s with 0, the gateway's default long poll; 10 s with long
// polling off). A negative value turns long polling off. Default: 10 s.
func WithRequestTimeout(d time.Duration) WorkerOption {
	return func(c *workerConfig) { c.RequestTimeout = d }
}

// WithPollInterval sets the pause after an error-free poll that found nothing,
// unless the gateway parked that poll for at least half its long-poll time (a
// gateway that answers at once, with long polling disabled, never gets a tight
// loop). Default: 100 ms.
func WithPollInterval(d time.Duration) WorkerOption {
	return func(c *workerConfig) { c.PollInterval = d }
}

// WithStreamEnabled turns job push (StreamActivatedJobs) on or off. Default: true.
func WithStreamEnabled(on bool) WorkerOption { return func(c *workerConfig) { c.StreamEnabled = on } }

// WithStreamTimeout sets how long a healthy stream lives before it is recycled. Default: 1 h.
func WithStreamTimeout(d time.Duration) WorkerOption {
	return func(c *workerConfig) { c.StreamTimeout = d }
}

// WithFetchVariables limits the variables fetched with each job; with no
// names, all. It wins over the names a typed handler derives from its input
// type. Default: the typed handler's names, else all.
func WithFetchVariables(names ...string) WorkerOption {
	return func(c *workerConfig) { c.FetchVariables, c.fetchSet = append([]string(nil), names...), true }
}

// WithTenantIDs sets the tenants whose jobs are activated. Default: none (the default tenant).
func WithTenantIDs(ids ...string) WorkerOption {
	return func(c *workerConfig) { c.TenantIDs = append([]string(nil), ids...) }
}

// WithAutoComplete makes the handler's return value the job's outcome (true),
// or leaves the outcome to job.Complete / Fail / ThrowError (false). Errors and
// panics fail the job in both modes, unless the handler already settled it. Default: true.
func WithAutoComplete(on bool) WorkerOption { return func(c *workerConfig) { c.autoComplete = on } }

// WithAutoExtend extends a running job's timeout before its deadline (UpdateJobTimeout), as a heartbeat. Default: false.
func WithAutoExtend(on bool) WorkerOption { return func(c *workerConfig) { c.AutoExtend = on } }

// WithRetryBackOff sets a fixed retry back-off for automatic failures (a
// *NonRetryableError still raises an incident); 0 counts as set. WithRetryPolicy
// wins over it. Default: DefaultRetryPolicy's exponential back-off.
func WithRetryBackOff(d time.Duration) WorkerOption {
	return func(c *workerConfig) { c.RetryBackOff, c.retryBackOffSet = d, true }
}

// WithWorkerName sets the worker name recorded on activated jobs. Default: the host name.
func WithWorkerName(name string) WorkerOption { return func(c *workerConfig) { c.WorkerName = name } }

// WithStateListener calls f on every state transition, from the first one on
// (in order, from one goroutine; f must not block for long). Default: none.
func WithStateListener(f func(WorkerState)) WorkerOption {
	return func(c *workerConfig) { c.listeners = append(c.listeners, f) }
}

// WithErrorListener calls f with errors the application should know about:
// activation rejected (e.g. UNAUTHENTICATED), outcomes that could not be
// delivered. The worker keeps running. Default: they are only logged.
func WithErrorListener(f func(error)) WorkerOption {
	return func(c *workerConfig) { c.onError = append(c.onError, f) }
}

// Worker activates jobs of one type and runs a handler for each. Created and
// started by Client.NewWorker; stop it with Close.
type Worker struct {
	c       *Client
	cfg     workerConfig
	handler HandlerFunc
	inner   *worker.Worker
	long    *longConn
	release sync.Once
}

// NewWorker creates and starts a worker for jobType.
//
//	w, err := client.NewWorker("payment", func(ctx context.Context, job *jobwire.Job) (any, error) {
//		return map[string]any{"paid": true}, nil
//	}, jobwire.WithMaxJobsActive(16))
//	defer w.Close(context.Background())
//
// NewWorker is the low-level form; Mux with typed handlers (Handle) and
// Client.Start is the documented way to write workers.
func (c *Client) NewWorker(jobType string, handler HandlerFunc, opts ...WorkerOption) (*Worker, error) {
	if handler == nil {
		return nil, errors.New("jobwire: NewWorker: handler is required")
	}
	cfg, err := prepareWorker(jobType, handler, nil, opts)
	if err != nil {
		return nil, err
	}
	return c.startWorker(cfg, handler)
}

// prepareWorker checks jobType and handler and resolves the configuration:
// options over the defaults, fetchVariables derived from a typed handler's
// input unless given, and the group's middleware (outermost) before the
// worker's.
func prepareWorker(jobType string, h Handler, group []Middleware, opts []WorkerOption) (workerConfig, error) {
	if jobType == "" {
		return workerConfig{}, errors.New("jobwire: NewWorker: jobType is required")
	}
	if h == nil {
		return workerConfig{}, errors.New("jobwire: NewWorker: handler is required")
	}
	if f, ok := h.(HandlerFunc); ok && f == nil {
		return workerConfig{}, errors.New("jobwire: NewWorker: handler is required")
	}
	cfg, err := newWorkerConfig(jobType, opts)
	if err != nil {
		return cfg, err
	}
	if !cfg.fetchSet {
		cfg.FetchVariables = fetchVariablesOf(h)
	}
	cfg.middleware = append(append([]Middleware(nil), group...), cfg.middleware...)
	return cfg, nil
}

// startWorker starts a worker with a prepared configuration.
func (c *Client) startWorker(cfg workerConfig, h Handler) (*Worker, error) {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return nil, errors.New("jobwire: NewWorker: client is closed")
	}
	cfg.Logger, cfg.Tracer, cfg.Meter, cfg.Backoff = c.log, c.cfg.tracerProvider, c.cfg.meterProvider, c.cfg.backoff
	handlers := cfg.onError
	cfg.OnError = func(err error) {
		err = wrapError("worker", err)
		for _, f := range handlers {
			f(err)
		}
	}
	lc, err := c.leaseLong()
	if err != nil {
		return nil, err
	}
	w := &Worker{c: c, cfg: cfg, handler: chain(h, cfg.middleware), long: lc}
	// Commands go over the client's command channel; the long poll and the
	// stream over a long-call connection, so they never hold commands up.
	w.inner = worker.Start(cfg.Config, worker.Gateways{Unary: c.gw, Long: lc.gw, Control: lc.control}, w.run)
	for _, f := range cfg.listeners {
		w.inner.Subscribe(func(s worker.State) { f(WorkerState(s)) })
	}
	c.mu.Lock()
	c.workers[w] = struct{}{}
	c.mu.Unlock()
	w.inner.Run()
	return w, nil
}

// newWorkerConfig applies opts over the defaults and checks the result (NewWorker
// and the test kit's RunHandler).
func newWorkerConfig(jobType string, opts []WorkerOption) (workerConfig, error) {
	cfg := workerConfig{
		Config: worker.Config{JobType: jobType, WorkerName: defaultWorkerName(), MaxJobsActive: 32,
			JobTimeout: 5 * time.Minute, RequestTimeout: 10 * time.Second, PollInterval: 100 * time.Millisecond,
			StreamEnabled: true, StreamTimeout: time.Hour},
		autoComplete: true,
	}
	for _, o := range opts {
		o(&cfg)
	}
	switch {
	case cfg.MaxJobsActive < 1:
		return cfg, fmt.Errorf("jobwire: NewWorker: maxJobsActive must be ≥ 1, got %d", cfg.MaxJobsActive)
	case cfg.Concurrency < 0:
		return cfg, fmt.Errorf("jobwire: NewWorker: concurrency must be ≥ 1, got %d", cfg.Concurrency)
	case cfg.JobTimeout <= 0:
		return cfg, fmt.Errorf("jobwire: NewWorker: jobTimeout must be > 0, got %s", cfg.JobTimeout)
	case cfg.StreamTimeout <= 0:
		return cfg, fmt.Errorf("jobwire: NewWorker: streamTimeout must be > 0, got %s", cfg.StreamTimeout)
	}
	if cfg.Concurrency == 0 || cfg.Concurrency > cfg.MaxJobsActive {
		cfg.Concurrency = cfg.MaxJobsActive
	}
	return cfg, nil
}

// run adapts the public handler to the internal executor: the middleware
// chain and the handler (typed input decoded innermost) run inside the job's
// span and slot, which the executor owns; their result maps to the outcome,
// failures through the retry policy.
func (w *Worker) run(ctx context.Context, d *worker.HeldJob) (o worker.Outcome) {
	job := newJob(d.Job, d.Activation, d, w.c)
	defer func() {
		if r := recover(); r != nil {
			w.logger().Error("job handler panicked", "key", job.Key, "panic", r, "stack", string(debug.Stack()))
			o = w.failure(job, fmt.Errorf("handler panic: %v", r))
			o.Crashed = true
		}
	}()
	vars, err := w.handler(ctx, job)
	if err != nil {
		var je *JobError
		if errors.As(err, &je) {
			v, verr := marshalVariables(je.Variables)
			if verr != nil {
				return w.failure(job, verr)
			}
			return worker.Outcome{Kind: worker.OutcomeError, ErrorCode: je.Code, Message: je.Message, Variables: v, Cause: err}
		}
		return w.failure(job, err)
	}
	if !w.cfg.autoComplete {
		return worker.Outcome{Kind: worker.OutcomeNone}
	}
	v, err := marshalVariables(vars)
	if err != nil {
		return w.failure(job, fmt.Errorf("handler returned invalid variables: %w", err))
	}
	return worker.Outcome{Kind: worker.OutcomeComplete, Variables: v}
}

// failure maps an automatic failure to the outcome the retry policy decides.
func (w *Worker) failure(job *Job, err error) worker.Outcome {
	d := w.decide(job, err)
	switch d.kind {
	case decisionBPMNError:
		v, verr := marshalVariables(d.variables)
		if verr != nil {
			w.logger().Warn("retry policy's BPMN error variables are not a JSON object; sent without them", "key", job.Key, "err", verr)
			v = ""
		}
		return worker.Outcome{Kind: worker.OutcomeError, ErrorCode: d.code, Message: d.message, Variables: v, Cause: err}
	case decisionIncident:
		return worker.Outcome{Kind: worker.OutcomeFail, Retries: 0, Message: d.message, Cause: err}
	default:
		return worker.Outcome{Kind: worker.OutcomeFail, Retries: max(job.Retries-1, 0), Message: err.Error(),
			RetryBackOff: d.backoff, Cause: err}
	}
}

// logger is the worker's logger (the client's).
func (w *Worker) logger() *slog.Logger {
	if w.cfg.Logger != nil {
		return w.cfg.Logger
	}
	if w.c != nil {
		return w.c.log
	}
	return slog.New(warnOnly{slog.Default().Handler()})
}

// Close stops the worker gracefully: it stops taking jobs at once (the parked
// long poll is cancelled; the stream is drained — read without running until
// it is quiet for 50 ms or 500 ms passed, then cancelled — and every job read
// from it handed back), hands back jobs received but not started (retries
// unchanged, no back-off), and lets running handlers finish until ctx is done;
// then it cancels their contexts, and returns ErrCloseTimeout. Closing twice
// is safe.
//
//	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
//	defer cancel()
//	err := w.Close(ctx)
func (w *Worker) Close(ctx context.Context) error {
	err := w.inner.Close(ctx)
	w.c.mu.Lock()
	delete(w.c.workers, w)
	w.c.mu.Unlock()
	w.release.Do(func() { w.c.releaseLong(w.long) })
	if errors.Is(err, worker.ErrCloseTimeout) {
		return ErrCloseTimeout
	}
	return err
}

// State returns the worker's current state.
func (w *Worker) State() WorkerState { return WorkerState(w.inner.State()) }
