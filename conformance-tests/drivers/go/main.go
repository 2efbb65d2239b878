// Command driver is the Go SDK's conformance driver (DRIVER-CONTRACT.md): it
// reads JSON-line commands on stdin, runs workers with the public jobwire API
// only, and writes JSON-line events on stdout. Logs go to stderr.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	jobwire "github.com/jobwire/jobwire/sdk-go"
)

// out serializes events: one JSON object per line, flushed.
type out struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func (o *out) emit(event string, fields map[string]any) {
	m := map[string]any{"t": float64(time.Now().UnixNano()) / 1e6, "event": event}
	for k, v := range fields {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		slog.Error("encode event", "err", err)
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	_, _ = o.w.Write(append(b, '\n'))
	_ = o.w.Flush()
}

type command struct {
	Cmd       string            `json:"cmd"`
	ID        string            `json:"id"`
	JobType   string            `json:"jobType"`
	Options   options           `json:"options"`
	Behavior  []json.RawMessage `json:"behavior"`
	TimeoutMs *float64          `json:"timeoutMs"`
	Count     *int              `json:"count"`
	Method    string            `json:"method"`
	Request   json.RawMessage   `json:"request"`
}

type options struct {
	WorkerName       *string  `json:"workerName"`
	MaxJobsActive    *int     `json:"maxJobsActive"`
	Concurrency      *int     `json:"concurrency"`
	JobTimeoutMs     *float64 `json:"jobTimeoutMs"`
	RequestTimeoutMs *float64 `json:"requestTimeoutMs"`
	PollIntervalMs   *float64 `json:"pollIntervalMs"`
	StreamEnabled    *bool    `json:"streamEnabled"`
	StreamTimeoutMs  *float64 `json:"streamTimeoutMs"`
	FetchVariables   []string `json:"fetchVariables"`
	AutoExtend       *bool    `json:"autoExtend"`
	RetryBackOffMs   *float64 `json:"retryBackOffMs"`
	Typed            string   `json:"typed"`
	RetryPolicy      *struct {
		InitialMs  *float64 `json:"initialMs"`
		MaxMs      *float64 `json:"maxMs"`
		Multiplier *float64 `json:"multiplier"`
		Jitter     *float64 `json:"jitter"`
		MaxRetries *int     `json:"maxRetries"`
	} `json:"retryPolicy"`
	Middleware []struct {
		Name  string  `json:"name"`
		Raise *string `json:"raise"`
	} `json:"middleware"`
}

func ms(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }

func (o options) worker() []jobwire.WorkerOption {
	var w []jobwire.WorkerOption
	if o.WorkerName != nil {
		w = append(w, jobwire.WithWorkerName(*o.WorkerName))
	}
	if o.MaxJobsActive != nil {
		w = append(w, jobwire.WithMaxJobsActive(*o.MaxJobsActive))
	}
	if o.Concurrency != nil {
		w = append(w, jobwire.WithConcurrency(*o.Concurrency))
	}
	if o.JobTimeoutMs != nil {
		w = append(w, jobwire.WithJobTimeout(ms(*o.JobTimeoutMs)))
	}
	if o.RequestTimeoutMs != nil {
		w = append(w, jobwire.WithRequestTimeout(ms(*o.RequestTimeoutMs)))
	}
	if o.PollIntervalMs != nil {
		w = append(w, jobwire.WithPollInterval(ms(*o.PollIntervalMs)))
	}
	if o.StreamEnabled != nil {
		w = append(w, jobwire.WithStreamEnabled(*o.StreamEnabled))
	}
	if o.StreamTimeoutMs != nil {
		w = append(w, jobwire.WithStreamTimeout(ms(*o.StreamTimeoutMs)))
	}
	if o.FetchVariables != nil {
		w = append(w, jobwire.WithFetchVariables(o.FetchVariables...))
	}
	if o.AutoExtend != nil {
		w = append(w, jobwire.WithAutoExtend(*o.AutoExtend))
	}
	if o.RetryBackOffMs != nil {
		w = append(w, jobwire.WithRetryBackOff(ms(*o.RetryBackOffMs)))
	}
	if p := o.RetryPolicy; p != nil {
		// Absent fields keep the defaults (zero values); an explicit 0 jitter
		// or max retries is the SDK's negative "off" value.
		var e jobwire.ExponentialBackoffOptions
		if p.InitialMs != nil {
			e.Initial = ms(*p.InitialMs)
		}
		if p.MaxMs != nil {
			e.Max = ms(*p.MaxMs)
		}
		if p.Multiplier != nil {
			e.Multiplier = *p.Multiplier
		}
		if p.Jitter != nil {
			e.Jitter = *p.Jitter
			if e.Jitter == 0 {
				e.Jitter = -1
			}
		}
		if p.MaxRetries != nil {
			e.MaxRetries = *p.MaxRetries
			if e.MaxRetries == 0 {
				e.MaxRetries = -1
			}
		}
		w = append(w, jobwire.WithRetryPolicy(jobwire.ExponentialBackoff(e)))
	}
	return w
}

// order is the driver contract's typed input: orderId and amount required.
type order struct {
	OrderID *string  `json:"orderId"`
	Amount  *float64 `json:"amount"`
}

// Validate reports the first required field that is missing.
func (o order) Validate() error {
	switch {
	case o.OrderID == nil:
		return &jobwire.InvalidInputError{Field: "orderId", Problem: "missing"}
	case o.Amount == nil:
		return &jobwire.InvalidInputError{Field: "amount", Problem: "missing"}
	}
	return nil
}

type orderHeaders struct {
	Channel string `json:"channel"`
}

type receipt struct {
	OrderID string  `json:"orderId"`
	Total   float64 `json:"total"`
	Channel string  `json:"channel"`
}

// middleware builds the worker-level middleware of the options: events
// before and after next, or an error without calling next.
func (d *driver) middleware(id string, o options) []jobwire.Middleware {
	var mws []jobwire.Middleware
	for _, m := range o.Middleware {
		name, raise := m.Name, m.Raise
		mws = append(mws, func(next jobwire.HandlerFunc) jobwire.HandlerFunc {
			return func(ctx context.Context, job *jobwire.Job) (out any, err error) {
				key := strconv.FormatInt(job.Key, 10)
				d.out.emit("middleware", map[string]any{"worker": id, "name": name, "phase": "before", "key": key})
				if raise != nil {
					return nil, errors.New(*raise)
				}
				panicked := true
				defer func() {
					d.out.emit("middleware", map[string]any{"worker": id, "name": name, "phase": "after", "key": key, "error": err != nil || panicked})
				}()
				out, err = next(ctx, job)
				panicked = false
				return out, err
			}
		})
	}
	return mws
}

// gate implements block/release: blocked handlers wait in FIFO order;
// releases beyond the blocked ones are kept as permits for later blocks.
type gate struct {
	mu      sync.Mutex
	waiting []chan struct{}
	permits int
}

func (g *gate) wait(ctx context.Context) error {
	g.mu.Lock()
	if g.permits > 0 {
		g.permits--
		g.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	g.waiting = append(g.waiting, ch)
	g.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		g.mu.Lock()
		for i, c := range g.waiting {
			if c == ch {
				g.waiting = append(g.waiting[:i], g.waiting[i+1:]...)
				break
			}
		}
		g.mu.Unlock()
		return ctx.Err()
	}
}

func (g *gate) release(count *int) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := len(g.waiting)
	if count != nil {
		if *count < n {
			n = *count
		} else {
			g.permits += *count - n
		}
	}
	for _, ch := range g.waiting[:n] {
		close(ch)
	}
	g.waiting = g.waiting[n:]
	if count != nil {
		return *count
	}
	return n
}

type driver struct {
	out     *out
	client  *jobwire.Client
	mu      sync.Mutex
	workers map[string]*runningWorker
	reader  *sdkmetric.ManualReader // nil without OTel
}

type runningWorker struct {
	id   string
	w    *jobwire.Worker
	gate *gate
}

// errCancelled marks a handler stopped by close's cancellation.
var errCancelled = errors.New("handler cancelled by close")

func (d *driver) start(c command) {
	rw := &runningWorker{id: c.ID, gate: &gate{}}
	behavior := c.Behavior
	opts := append(c.Options.worker(),
		jobwire.WithStateListener(func(s jobwire.WorkerState) {
			d.out.emit("state", map[string]any{"worker": c.ID, "state": string(s)})
		}),
		jobwire.WithErrorListener(func(err error) {
			d.out.emit("error", map[string]any{"worker": c.ID, "message": err.Error(), "code": codeName(err)})
		}))
	if mws := d.middleware(c.ID, c.Options); len(mws) > 0 {
		opts = append(opts, jobwire.WithMiddleware(mws...))
	}
	var w *jobwire.Worker
	var err error
	switch c.Options.Typed {
	case "":
		w, err = d.client.NewWorker(c.JobType, func(ctx context.Context, job *jobwire.Job) (any, error) {
			return d.handle(ctx, rw, behavior, job, nil)
		}, opts...)
	case "order":
		// The documented declarative style: a Mux, a typed handler, Client.Start.
		mux := jobwire.NewMux()
		mux.Register(c.JobType, jobwire.HandleWithHeaders(func(ctx context.Context, job *jobwire.Job, in order, h orderHeaders) (any, error) {
			return d.handle(ctx, rw, behavior, job, receipt{OrderID: *in.OrderID, Total: *in.Amount * 2, Channel: h.Channel})
		}), opts...)
		var ws []*jobwire.Worker
		if ws, err = d.client.Start(mux); err == nil {
			w = ws[0]
		}
	default:
		err = fmt.Errorf("unknown typed input %q", c.Options.Typed)
	}
	if err != nil {
		d.out.emit("error", map[string]any{"worker": c.ID, "message": err.Error(), "code": codeName(err)})
		return
	}
	rw.w = w
	d.mu.Lock()
	d.workers[c.ID] = rw
	d.mu.Unlock()
	d.out.emit("worker_started", map[string]any{"worker": c.ID})
}

func codeName(err error) string {
	var je *jobwire.Error
	if errors.As(err, &je) {
		return grpcCodeName(je.Code.String())
	}
	return ""
}

// grpcCodeName turns grpc-go's CamelCase code names into the canonical ones.
func grpcCodeName(s string) string {
	names := map[string]string{"OK": "OK", "Canceled": "CANCELLED", "Unknown": "UNKNOWN", "InvalidArgument": "INVALID_ARGUMENT",
		"DeadlineExceeded": "DEADLINE_EXCEEDED", "NotFound": "NOT_FOUND", "AlreadyExists": "ALREADY_EXISTS",
		"PermissionDenied": "PERMISSION_DENIED", "ResourceExhausted": "RESOURCE_EXHAUSTED", "FailedPrecondition": "FAILED_PRECONDITION",
		"Aborted": "ABORTED", "OutOfRange": "OUT_OF_RANGE", "Unimplemented": "UNIMPLEMENTED", "Internal": "INTERNAL",
		"Unavailable": "UNAVAILABLE", "DataLoss": "DATA_LOSS", "Unauthenticated": "UNAUTHENTICATED"}
	if n, ok := names[s]; ok {
		return n
	}
	return s
}

// handle runs the behavior steps; without an outcome step the job completes
// with result (nil: no variables).
func (d *driver) handle(ctx context.Context, rw *runningWorker, behavior []json.RawMessage, job *jobwire.Job, result any) (any, error) {
	start := time.Now()
	key := strconv.FormatInt(job.Key, 10)
	d.out.emit("job_start", map[string]any{"worker": rw.id, "key": key, "processInstanceKey": strconv.FormatInt(job.ProcessInstanceKey, 10), "type": job.Type, "retries": job.Retries,
		"activation": job.Activation, "variables": string(job.VariablesJSON()), "deadline": job.Deadline.UnixMilli()})
	outcome := "completed"
	defer func() {
		if r := recover(); r != nil {
			outcome = "crashed"
			d.end(rw, key, outcome, start)
			panic(r) // the SDK recovers it and fails the job
		}
		d.end(rw, key, outcome, start)
	}()
	steps := behavior
	var vars struct {
		JW []json.RawMessage `json:"jwBehavior"`
	}
	if json.Unmarshal(job.VariablesJSON(), &vars) == nil && vars.JW != nil {
		steps = vars.JW
	}
	for _, raw := range steps {
		var step map[string]json.RawMessage
		if err := json.Unmarshal(raw, &step); err != nil {
			outcome = "failed"
			return nil, fmt.Errorf("bad step %s: %w", raw, err)
		}
		for name, arg := range step {
			switch name {
			case "sleep":
				var n float64
				_ = json.Unmarshal(arg, &n)
				select {
				case <-time.After(ms(n)):
				case <-ctx.Done():
					outcome = "cancelled"
					return nil, errCancelled
				}
			case "block":
				if rw.gate.wait(ctx) != nil {
					outcome = "cancelled"
					return nil, errCancelled
				}
			case "extendTimeout":
				var n float64
				_ = json.Unmarshal(arg, &n)
				if err := job.ExtendTimeout(ctx, ms(n)); err != nil {
					fmt.Fprintf(os.Stderr, "extendTimeout %s: %v\n", key, err)
				}
			case "complete":
				return arg, nil
			case "completeEcho":
				return job.VariablesJSON(), nil
			case "completePad":
				var n int
				_ = json.Unmarshal(arg, &n)
				return map[string]string{"out": strings.Repeat("y", n)}, nil
			case "fail":
				var msg string
				_ = json.Unmarshal(arg, &msg)
				outcome = "failed"
				return nil, errors.New(msg)
			case "throwError":
				var te struct {
					Code      string          `json:"code"`
					Message   string          `json:"message"`
					Variables json.RawMessage `json:"variables"`
				}
				_ = json.Unmarshal(arg, &te)
				outcome = "error"
				je := &jobwire.JobError{Code: te.Code, Message: te.Message}
				if len(te.Variables) > 0 {
					je.Variables = te.Variables
				}
				return nil, je
			case "failNonRetryable":
				var msg string
				_ = json.Unmarshal(arg, &msg)
				outcome = "failed"
				return nil, jobwire.NonRetryable(errors.New(msg))
			case "crash":
				var msg string
				_ = json.Unmarshal(arg, &msg)
				panic(msg)
			default:
				fmt.Fprintf(os.Stderr, "unknown step %q ignored\n", name)
			}
		}
	}
	return result, nil
}

func (d *driver) end(rw *runningWorker, key, outcome string, start time.Time) {
	d.out.emit("job_end", map[string]any{"worker": rw.id, "key": key, "outcome": outcome,
		"durationMs": float64(time.Since(start).Microseconds()) / 1000})
}

func (d *driver) stop(id string, timeout time.Duration) {
	d.mu.Lock()
	rw := d.workers[id]
	delete(d.workers, id)
	d.mu.Unlock()
	if rw == nil {
		d.out.emit("error", map[string]any{"worker": id, "message": "no such worker"})
		return
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	err := rw.w.Close(ctx)
	cancel()
	if err != nil && !errors.Is(err, jobwire.ErrCloseTimeout) {
		fmt.Fprintf(os.Stderr, "close %s: %v\n", id, err)
	}
	d.out.emit("worker_closed", map[string]any{"worker": id, "durationMs": float64(time.Since(start).Microseconds()) / 1000})
	d.emitMetrics()
}

func (d *driver) stopAll() {
	d.mu.Lock()
	var ids []string
	for id := range d.workers {
		ids = append(ids, id)
	}
	d.mu.Unlock()
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() { defer wg.Done(); d.stop(id, 5*time.Second) }()
	}
	wg.Wait()
}

func (d *driver) release(c command) {
	d.mu.Lock()
	rw := d.workers[c.ID]
	d.mu.Unlock()
	if rw == nil {
		d.out.emit("error", map[string]any{"worker": c.ID, "message": "no such worker"})
		return
	}
	n := rw.gate.release(c.Count)
	d.out.emit("released", map[string]any{"worker": c.ID, "count": n})
}

func main() {
	o := &out{w: bufio.NewWriter(os.Stdout)}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	d := &driver{out: o, workers: map[string]*runningWorker{}}
	opts := []jobwire.ClientOption{jobwire.WithLogger(logger)}
	if os.Getenv("JOBWIRE_DRIVER_OTEL") == "1" {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(&spanEmitter{out: o}))
		d.reader = sdkmetric.NewManualReader()
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(d.reader))
		opts = append(opts, jobwire.WithTracerProvider(tp), jobwire.WithMeterProvider(mp))
	}
	client, err := jobwire.NewClient(context.Background(), opts...) // connection settings from the environment
	if err != nil {
		fmt.Fprintf(os.Stderr, "client: %v\n", err)
		os.Exit(2)
	}
	d.client = client
	o.emit("ready", map[string]any{"sdk": "go", "version": jobwire.Version})

	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var c command
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			o.emit("error", map[string]any{"message": "bad command: " + err.Error()})
			continue
		}
		switch c.Cmd {
		case "start_worker":
			d.start(c)
		case "stop_worker":
			timeout := 5 * time.Second
			if c.TimeoutMs != nil {
				timeout = ms(*c.TimeoutMs)
			}
			go d.stop(c.ID, timeout) // keep reading commands (e.g. release) while closing
		case "release":
			d.release(c)
		case "call":
			go d.call(c.ID, c.Method, c.Request) // keep reading commands while the call (and its resends) runs
		case "exit":
			d.stopAll()
			_ = client.Close()
			os.Exit(0)
		default:
			o.emit("error", map[string]any{"message": "unknown command " + c.Cmd})
		}
	}
	d.stopAll()
	_ = client.Close()
}

// spanEmitter reports every ended span as a `span` event.
type spanEmitter struct{ out *out }

func (s *spanEmitter) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (s *spanEmitter) OnEnd(sp sdktrace.ReadOnlySpan) {
	attrs := map[string]any{}
	for _, kv := range sp.Attributes() {
		attrs[string(kv.Key)] = kv.Value.AsInterface()
	}
	// The kind the SDK set (upper case, e.g. CONSUMER), never a constant.
	s.out.emit("span", map[string]any{"name": sp.Name(), "kind": strings.ToUpper(sp.SpanKind().String()), "kindRaw": sp.SpanKind().String(),
		"attributes": attrs, "status": statusName(sp.Status().Code.String()),
		"traceId": sp.SpanContext().TraceID().String(), "parentSpanId": sp.Parent().SpanID().String()})
}
func (s *spanEmitter) Shutdown(context.Context) error   { return nil }
func (s *spanEmitter) ForceFlush(context.Context) error { return nil }

func statusName(s string) string {
	switch s {
	case "Ok":
		return "OK"
	case "Error":
		return "ERROR"
	}
	return "UNSET"
}

func (d *driver) emitMetrics() {
	if d.reader == nil {
		return
	}
	var rm metricdata.ResourceMetrics
	if err := d.reader.Collect(context.Background(), &rm); err != nil {
		fmt.Fprintf(os.Stderr, "collect metrics: %v\n", err)
		return
	}
	var list []map[string]any
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			var typ string
			var points []map[string]any
			switch data := m.Data.(type) {
			case metricdata.Sum[int64]:
				typ = "counter"
				for _, p := range data.DataPoints {
					points = append(points, map[string]any{"attributes": attrMap(p.Attributes), "value": p.Value})
				}
			case metricdata.Sum[float64]:
				typ = "counter"
				for _, p := range data.DataPoints {
					points = append(points, map[string]any{"attributes": attrMap(p.Attributes), "value": p.Value})
				}
			case metricdata.Gauge[int64]:
				typ = "gauge"
				for _, p := range data.DataPoints {
					points = append(points, map[string]any{"attributes": attrMap(p.Attributes), "value": p.Value})
				}
			case metricdata.Gauge[float64]:
				typ = "gauge"
				for _, p := range data.DataPoints {
					points = append(points, map[string]any{"attributes": attrMap(p.Attributes), "value": p.Value})
				}
			case metricdata.Histogram[float64]:
				typ = "histogram"
				for _, p := range data.DataPoints {
					points = append(points, map[string]any{"attributes": attrMap(p.Attributes),
						"value": map[string]any{"count": p.Count, "sum": p.Sum}})
				}
			case metricdata.Histogram[int64]:
				typ = "histogram"
				for _, p := range data.DataPoints {
					points = append(points, map[string]any{"attributes": attrMap(p.Attributes),
						"value": map[string]any{"count": p.Count, "sum": p.Sum}})
				}
			default:
				fmt.Fprintf(os.Stderr, "metric %s: data type %T not reported\n", m.Name, m.Data)
				continue
			}
			if points == nil {
				points = []map[string]any{}
			}
			list = append(list, map[string]any{"name": m.Name, "type": typ, "points": points})
		}
	}
	d.out.emit("metrics", map[string]any{"metrics": list})
}

func attrMap(s attribute.Set) map[string]any {
	m := map[string]any{}
	for _, kv := range s.ToSlice() {
		m[string(kv.Key)] = kv.Value.AsInterface()
	}
	return m
}
