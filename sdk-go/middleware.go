package jobwire

import (
	"context"
	"errors"
	"fmt"
)

// Middleware wraps a worker's handler: it gets the next handler and returns
// one that runs around it (before, after, or instead of it). It runs inside
// the job's span and its cancellation context, outside a typed handler's
// input decoding (so it sees a decoding failure as an *InvalidInputError from
// next). What it returns is the job's outcome, mapped as a handler's result;
// a middleware that returns an error or panics fails the job like a handler.
// The worker's slot and the outcome send stay with the worker: middleware
// cannot skip or repeat them.
//
// Order: a Mux's middleware (Mux.Use, then its NewMux options) first,
// outermost; then the worker's WithMiddleware; each in registration order.
//
//	logTime := func(next jobwire.HandlerFunc) jobwire.HandlerFunc {
//		return func(ctx context.Context, job *jobwire.Job) (any, error) {
//			start := time.Now()
//			out, err := next(ctx, job)
//			slog.Info("job handled", "type", job.Type, "took", time.Since(start), "err", err)
//			return out, err
//		}
//	}
type Middleware func(next HandlerFunc) HandlerFunc

// WithMiddleware adds middleware around the worker's handler, after (inside)
// any given before. Default: none.
func WithMiddleware(mw ...Middleware) WorkerOption {
	return func(c *workerConfig) { c.middleware = append(c.middleware, mw...) }
}

// chain wraps h in mws, mws[0] outermost.
func chain(h Handler, mws []Middleware) HandlerFunc {
	next := HandlerFunc(h.HandleJob)
	for i := len(mws) - 1; i >= 0; i-- {
		if mws[i] != nil {
			next = mws[i](next)
		}
	}
	return next
}

// Mux is a group of workers registered without a client: handlers by job
// type, with shared worker options and middleware. Start them all with
// Client.Start.
//
//	mux := jobwire.NewMux(jobwire.WithMaxJobsActive(16))
//	mux.Use(logTime)
//	mux.Register("payment", jobwire.Handle(pay))
//	workers, err := client.Start(mux)
type Mux struct {
	opts []WorkerOption
	use  []Middleware
	regs []registration
}

type registration struct {
	jobType string
	h       Handler
	opts    []WorkerOption
}

// NewMux returns an empty group; opts are the defaults of every worker in it
// (a worker's own options in Register come after them).
func NewMux(opts ...WorkerOption) *Mux {
	return &Mux{opts: append([]WorkerOption(nil), opts...)}
}

// Register adds a worker for jobType running h (a typed handler from Handle,
// or a HandlerFunc) with opts over the mux's defaults. It is checked by
// Client.Start (an empty job type, a nil handler or a job type registered
// twice fails the start).
func (m *Mux) Register(jobType string, h Handler, opts ...WorkerOption) {
	m.regs = append(m.regs, registration{jobType: jobType, h: h, opts: append([]WorkerOption(nil), opts...)})
}

// Use adds middleware around every worker of the mux (outermost, in order),
// including those registered before.
func (m *Mux) Use(mw ...Middleware) { m.use = append(m.use, mw...) }

// Start starts every worker registered on m, all or nothing: when one cannot
// be started, those already started are closed and the error returned. The
// workers are returned in registration order; close each (or the client).
func (c *Client) Start(m *Mux) ([]*Worker, error) {
	if m == nil || len(m.regs) == 0 {
		return nil, errors.New("jobwire: Start: no worker registered on the mux")
	}
	cfgs := make([]workerConfig, len(m.regs))
	seen := map[string]bool{}
	for i, r := range m.regs {
		if seen[r.jobType] {
			return nil, fmt.Errorf("jobwire: Start: job type %q registered twice", r.jobType)
		}
		seen[r.jobType] = true
		cfg, err := prepareWorker(r.jobType, r.h, m.use, append(append([]WorkerOption(nil), m.opts...), r.opts...))
		if err != nil {
			return nil, fmt.Errorf("jobwire: Start %q: %w", r.jobType, err)
		}
		cfgs[i] = cfg
	}
	var started []*Worker
	for i, r := range m.regs {
		w, err := c.startWorker(cfgs[i], r.h)
		if err != nil {
			now, cancel := context.WithCancel(context.Background())
			cancel()
			for _, s := range started {
				_ = s.Close(now)
			}
			return nil, fmt.Errorf("jobwire: Start %q: %w", r.jobType, err)
		}
		started = append(started, w)
	}
	return started, nil
}
