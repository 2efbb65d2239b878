package jobwire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/jobwire/jobwire/sdk-go/internal/fakegw"
	"github.com/jobwire/jobwire/sdk-go/internal/pb"
)

type testAddress struct {
	City string `json:"city"`
}

type testBase struct {
	TenantRef string `json:"tenantRef"`
}

type testOrder struct {
	testBase
	*testAudit
	OrderID  string          `json:"orderId"`
	Amount   float64         `json:"amount"`
	Quantity int             `json:"quantity,omitempty"`
	Address  testAddress     `json:"address"`
	Note     string          `json:"-"`
	Plain    bool            // no tag: the field name
	Raw      json.RawMessage `json:"raw"`
	internal string
}

type testAudit struct {
	Actor string `json:"actor"`
}

func (o testOrder) Validate() error {
	if o.OrderID == "" {
		return errors.New("orderId is required")
	}
	return nil
}

func TestDeriveFetchVariables(t *testing.T) {
	got := deriveFetchVariables(reflect.TypeFor[testOrder]())
	want := []string{"tenantRef", "actor", "orderId", "amount", "quantity", "address", "Plain", "raw", "traceparent"}
	if !slices.Equal(got, want) {
		t.Errorf("derived %v, want %v", got, want)
	}
	if got := deriveFetchVariables(reflect.TypeFor[*testOrder]()); !slices.Equal(got, want) {
		t.Errorf("pointer: derived %v, want %v", got, want)
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[map[string]any](), reflect.TypeFor[any](), reflect.TypeFor[json.RawMessage](), reflect.TypeFor[[]int]()} {
		if got := deriveFetchVariables(typ); got != nil {
			t.Errorf("%v: derived %v, want nil (all variables)", typ, got)
		}
	}
	// The typed handler carries the names; a HandlerFunc none.
	h := Handle(func(ctx context.Context, job *Job, in struct {
		A int `json:"a"`
		B int `json:"b"`
	}) (any, error) {
		return nil, nil
	})
	if got := fetchVariablesOf(h); !slices.Equal(got, []string{"a", "b", "traceparent"}) {
		t.Errorf("handler: %v", got)
	}
	if got := fetchVariablesOf(HandlerFunc(func(context.Context, *Job) (any, error) { return nil, nil })); got != nil {
		t.Errorf("HandlerFunc: %v", got)
	}
}

// A derived list also names traceparent (once, at the end), so a typed
// worker's job span keeps its parent; an explicit list stays as written, and
// a type that takes all variables stays all. The decoded input ignores it.
func TestDerivedFetchVariablesKeepTraceparent(t *testing.T) {
	type traced struct {
		OrderID     string `json:"orderId"`
		Traceparent string `json:"traceparent"`
		Amount      int    `json:"amount"`
	}
	if got, want := deriveFetchVariables(reflect.TypeFor[traced]()), []string{"orderId", "traceparent", "amount"}; !slices.Equal(got, want) {
		t.Errorf("a type that declares traceparent: %v, want %v", got, want)
	}
	if got := deriveFetchVariables(reflect.TypeFor[struct{}]()); got != nil {
		t.Errorf("a struct without fields: %v, want nil (all variables)", got)
	}
	h := Handle(func(ctx context.Context, job *Job, in testAddress) (any, error) { return nil, nil })
	for _, tc := range []struct {
		name string
		opts []WorkerOption
		want []string
	}{
		{"derived", nil, []string{"city", "traceparent"}},
		{"explicit", []WorkerOption{WithFetchVariables("city")}, []string{"city"}},
	} {
		cfg, err := prepareWorker("t", h, nil, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(cfg.FetchVariables, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, cfg.FetchVariables, tc.want)
		}
	}
	var o testOrder
	if err := decodeInput([]byte(`{"orderId":"o1","amount":2,"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}`), &o, ""); err != nil || o.OrderID != "o1" {
		t.Errorf("decoding with traceparent: %+v, %v", o, err)
	}
}

func TestPrepareWorkerFetchVariablesPrecedence(t *testing.T) {
	h := Handle(func(ctx context.Context, job *Job, in testAddress) (any, error) { return nil, nil })
	for _, tc := range []struct {
		name string
		opts []WorkerOption
		want []string
	}{
		{"derived", nil, []string{"city", "traceparent"}},
		{"explicit wins", []WorkerOption{WithFetchVariables("x", "y")}, []string{"x", "y"}},
		{"explicit empty = all", []WorkerOption{WithFetchVariables()}, nil},
	} {
		cfg, err := prepareWorker("t", h, nil, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(cfg.FetchVariables, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, cfg.FetchVariables, tc.want)
		}
	}
}

func TestInvalidInputMessages(t *testing.T) {
	type nested struct {
		Order struct {
			Amount float64 `json:"amount"`
		} `json:"order"`
		Items []struct {
			SKU int `json:"sku"`
		} `json:"items"`
	}
	for _, tc := range []struct {
		vars   string
		decode func(data []byte) error
		want   string
		field  string
	}{
		{`{"orderId":"o1","amount":"12"}`, func(d []byte) error { var o testOrder; return decodeInput(d, &o, "") },
			"jobwire: invalid input: amount: expected number, got string", "amount"},
		{`{"orderId":"o1","quantity":1.5}`, func(d []byte) error { var o testOrder; return decodeInput(d, &o, "") },
			"jobwire: invalid input: quantity: expected integer, got number 1.5", "quantity"},
		{`{"orderId":"o1","address":"Main St"}`, func(d []byte) error { var o testOrder; return decodeInput(d, &o, "") },
			"jobwire: invalid input: address: expected object, got string", "address"},
		{`{"order":{"amount":true}}`, func(d []byte) error { var o nested; return decodeInput(d, &o, "") },
			"jobwire: invalid input: order.amount: expected number, got bool", "order.amount"},
		{`{"items":[{"sku":1},{"sku":"x"}]}`, func(d []byte) error { var o nested; return decodeInput(d, &o, "") },
			"jobwire: invalid input: items.sku: expected integer, got string", "items.sku"},
		{`{"amount":3}`, func(d []byte) error { var o testOrder; return decodeInput(d, &o, "") },
			"jobwire: invalid input: orderId is required", ""},
		{`{"channel":5}`, func(d []byte) error {
			var h struct {
				Channel string `json:"channel"`
			}
			return decodeInput(d, &h, "headers")
		}, "jobwire: invalid input: headers.channel: expected string, got number", "headers.channel"},
	} {
		err := tc.decode([]byte(tc.vars))
		var ie *InvalidInputError
		if !errors.As(err, &ie) {
			t.Errorf("%s: error %v is not an *InvalidInputError", tc.vars, err)
			continue
		}
		if err.Error() != tc.want || ie.Field != tc.field {
			t.Errorf("%s: got %q (field %q), want %q (field %q)", tc.vars, err, ie.Field, tc.want, tc.field)
		}
	}
	var o testOrder
	if err := decodeInput([]byte(`{"orderId":"o1","amount":12.5}`), &o, ""); err != nil || o.Amount != 12.5 {
		t.Errorf("valid input: %v %+v", err, o)
	}
}

// fixedJitter makes the jitter draw u = 2r − 1 deterministic.
func fixedJitter(t *testing.T, r float64) {
	old := jitterRand
	jitterRand = func() float64 { return r }
	t.Cleanup(func() { jitterRand = old })
}

func retryOf(t *testing.T, d RetryDecision) time.Duration {
	t.Helper()
	if d.kind != decisionRetry {
		t.Fatalf("decision %+v is not a retry", d)
	}
	return d.backoff
}

func TestDefaultRetryPolicyExponential(t *testing.T) {
	fixedJitter(t, 0.5) // u = 0: no jitter
	err := errors.New("boom")
	for retries, want := range map[int32]time.Duration{3: time.Second, 2: 2 * time.Second, 1: 4 * time.Second, 0: 8 * time.Second, 5: time.Second} {
		if got := retryOf(t, DefaultRetryPolicy(&Job{Retries: retries}, err)); got != want {
			t.Errorf("retries %d: %s, want %s", retries, got, want)
		}
	}
	// Max caps before jitter; a larger start count moves the exponent.
	p := ExponentialBackoff(ExponentialBackoffOptions{Initial: 100 * time.Millisecond, Max: 300 * time.Millisecond, Multiplier: 3, MaxRetries: 5, Jitter: -1})
	for retries, want := range map[int32]time.Duration{5: 100 * time.Millisecond, 4: 300 * time.Millisecond, 1: 300 * time.Millisecond} {
		if got := retryOf(t, p(&Job{Retries: retries}, err)); got != want {
			t.Errorf("custom, retries %d: %s, want %s", retries, got, want)
		}
	}
	// Jitter bounds: u = −1 and u → 1 give ±10 %, rounded to whole ms.
	fixedJitter(t, 0)
	if got := retryOf(t, DefaultRetryPolicy(&Job{Retries: 2}, err)); got != 1800*time.Millisecond {
		t.Errorf("u=-1: %s", got)
	}
	fixedJitter(t, 0.99999)
	if got := retryOf(t, DefaultRetryPolicy(&Job{Retries: 2}, err)); got != 2200*time.Millisecond {
		t.Errorf("u→1: %s", got)
	}
	// Jitter 0 off: exact values even with random draws.
	noJitter := ExponentialBackoff(ExponentialBackoffOptions{Jitter: -1})
	fixedJitter(t, 0)
	if got := retryOf(t, noJitter(&Job{Retries: 3}, err)); got != time.Second {
		t.Errorf("no jitter: %s", got)
	}
}

func TestRetryPolicyJitterSpread(t *testing.T) {
	seen := map[time.Duration]bool{}
	for range 2000 {
		b := retryOf(t, DefaultRetryPolicy(&Job{Retries: 3}, errors.New("x")))
		if b < 900*time.Millisecond || b > 1100*time.Millisecond || b%time.Millisecond != 0 {
			t.Fatalf("backoff %s outside 1 s ± 10 %% or not whole ms", b)
		}
		seen[b] = true
	}
	if len(seen) < 50 {
		t.Errorf("only %d distinct back-offs: jitter is not spread", len(seen))
	}
}

func TestRetryPolicyNonRetryableAndFallbacks(t *testing.T) {
	fixedJitter(t, 0.5)
	nr := fmt.Errorf("charging: %w", NonRetryable(errors.New("account closed")))
	for name, p := range map[string]RetryPolicy{"default": DefaultRetryPolicy, "fixed": fixedBackoff(0)} {
		d := p(&Job{Retries: 3}, nr)
		if d.kind != decisionIncident || d.message != "charging: account closed" {
			t.Errorf("%s: NonRetryable gave %+v, want an incident with the message", name, d)
		}
	}
	if NonRetryable(nil) != nil {
		t.Error("NonRetryable(nil) is not nil")
	}
	var target *NonRetryableError
	if !errors.As(nr, &target) || target.Unwrap().Error() != "account closed" {
		t.Error("errors.As does not find the NonRetryableError")
	}

	logger := testLogger()
	mk := func(opts ...WorkerOption) *Worker {
		cfg, err := newWorkerConfig("t", opts)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Logger = logger
		return &Worker{cfg: cfg}
	}
	job := &Job{Retries: 3}
	// A policy that panics or decides nothing falls back to the default.
	for name, p := range map[string]RetryPolicy{
		"panics":  func(*Job, error) RetryDecision { panic("bad policy") },
		"nothing": func(*Job, error) RetryDecision { return RetryDecision{} },
	} {
		if got := retryOf(t, mk(WithRetryPolicy(p)).decide(job, errors.New("x"))); got != time.Second {
			t.Errorf("%s: fell back to %s, want the default 1 s", name, got)
		}
	}
	// Precedence: retryPolicy > retryBackOff > default.
	custom := func(*Job, error) RetryDecision { return RetryAfter(42 * time.Millisecond) }
	for name, tc := range map[string]struct {
		opts []WorkerOption
		want time.Duration
	}{
		"policy over backoff": {[]WorkerOption{WithRetryBackOff(5 * time.Second), WithRetryPolicy(custom)}, 42 * time.Millisecond},
		"backoff 0 is set":    {[]WorkerOption{WithRetryBackOff(0)}, 0},
		"backoff":             {[]WorkerOption{WithRetryBackOff(1500 * time.Millisecond)}, 1500 * time.Millisecond},
		"default":             {nil, time.Second},
	} {
		if got := retryOf(t, mk(tc.opts...).decide(job, errors.New("x"))); got != tc.want {
			t.Errorf("%s: %s, want %s", name, got, tc.want)
		}
	}
	// The decisions map to outcomes.
	w := mk(WithRetryPolicy(func(_ *Job, err error) RetryDecision {
		switch err.Error() {
		case "bpmn":
			return RaiseBPMNError("E1", "bpmn msg", map[string]int{"v": 1})
		case "incident":
			return RaiseIncident("stop here")
		}
		return RetryAfter(3 * time.Second)
	}))
	if o := w.failure(job, errors.New("bpmn")); o.ErrorCode != "E1" || o.Message != "bpmn msg" || o.Variables != `{"v":1}` {
		t.Errorf("bpmn: %+v", o)
	}
	if o := w.failure(job, errors.New("incident")); o.Retries != 0 || o.Message != "stop here" || o.RetryBackOff != 0 {
		t.Errorf("incident: %+v", o)
	}
	if o := w.failure(job, errors.New("retry")); o.Retries != 2 || o.Message != "retry" || o.RetryBackOff != 3*time.Second {
		t.Errorf("retry: %+v", o)
	}
}

func TestWithBackoffValidation(t *testing.T) {
	for _, tc := range []struct {
		b   Backoff
		bad string
	}{
		{Backoff{Initial: -time.Millisecond}, "Initial"},
		{Backoff{Initial: time.Second, Max: 500 * time.Millisecond}, "Max"},
		{Backoff{Max: 10 * time.Millisecond}, "Max"}, // below the default initial
		{Backoff{Multiplier: 0.5}, "Multiplier"},
	} {
		_, err := NewClient(context.Background(), WithAddress("127.0.0.1:1"), WithBackoff(tc.b))
		if err == nil || !strings.Contains(err.Error(), tc.bad) {
			t.Errorf("%+v: error %v, want one naming %s", tc.b, err, tc.bad)
		}
	}
	var cfg clientConfig
	WithBackoff(Backoff{Initial: 10 * time.Millisecond, Multiplier: 2})(&cfg)
	if cfg.backoffErr != nil || cfg.backoff.Initial != 10*time.Millisecond || cfg.backoff.Max != 5*time.Second || cfg.backoff.Multiplier != 2 {
		t.Errorf("partial bounds: %+v %v", cfg.backoff, cfg.backoffErr)
	}
}

// recorder records middleware and handler calls in order.
type recorder struct {
	mu    sync.Mutex
	calls []string
}

func (r *recorder) add(s string) { r.mu.Lock(); r.calls = append(r.calls, s); r.mu.Unlock() }
func (r *recorder) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...)
}
func (r *recorder) mw(name string) Middleware {
	return func(next HandlerFunc) HandlerFunc {
		return func(ctx context.Context, job *Job) (any, error) {
			r.add(name + ">")
			out, err := next(ctx, job)
			r.add("<" + name)
			return out, err
		}
	}
}

func TestFakeMuxTypedMiddlewareOrderAndRetryPolicy(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	rec := &recorder{}
	mux := NewMux(WithStreamEnabled(false), WithMiddleware(rec.mw("muxopt")))
	mux.Use(rec.mw("use1"), rec.mw("use2"))
	type in struct {
		OrderID string  `json:"orderId"`
		Amount  float64 `json:"amount"`
	}
	type headers struct {
		Channel string `json:"channel"`
	}
	type receipt struct {
		OrderID string  `json:"orderId"`
		Total   float64 `json:"total"`
		Channel string  `json:"channel"`
	}
	var called sync.Map
	mux.Register("typed", HandleWithHeaders(func(ctx context.Context, job *Job, o in, h headers) (receipt, error) {
		rec.add("handler")
		called.Store(o.OrderID, true)
		return receipt{OrderID: o.OrderID, Total: o.Amount * 2, Channel: h.Channel}, nil
	}), WithMiddleware(rec.mw("worker")))
	mux.Register("raising", HandlerFunc(func(ctx context.Context, job *Job) (any, error) {
		rec.add("raising handler")
		return nil, nil
	}), WithMiddleware(func(next HandlerFunc) HandlerFunc {
		return func(ctx context.Context, job *Job) (any, error) { return nil, errors.New("middleware said no") }
	}), WithRetryBackOff(250*time.Millisecond))
	workers, err := c.Start(mux)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range workers {
		defer closeWorker(t, w)
	}
	// fetchVariables derived for the typed worker, all for the other.
	waitFor(t, "polls of both workers", 3*time.Second, func() bool {
		polls, _ := gw.Polls()
		types := map[string]bool{}
		for _, p := range polls {
			types[p.GetType()] = true
		}
		return types["typed"] && types["raising"]
	})
	polls, _ := gw.Polls()
	for _, p := range polls {
		want := map[string][]string{"typed": {"orderId", "amount", "traceparent"}, "raising": nil}[p.GetType()]
		if !slices.Equal(p.GetFetchVariable(), want) {
			t.Errorf("%s polls fetchVariables %v, want %v", p.GetType(), p.GetFetchVariable(), want)
		}
	}

	gw.AddJob(&pb.ActivatedJob{Key: 1, Type: "typed", Retries: 3, Variables: `{"orderId":"o1","amount":21}`, CustomHeaders: `{"channel":"web"}`, Deadline: time.Now().Add(time.Minute).UnixMilli()})
	waitFor(t, "the typed job completed", 3*time.Second, func() bool { return len(outcomesOf(gw, "complete")) == 1 })
	if got, want := rec.get(), []string{"use1>", "use2>", "muxopt>", "worker>", "handler", "<worker", "<muxopt", "<use2", "<use1"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	if o := outcomesOf(gw, "complete")[0]; o.Variables != `{"orderId":"o1","total":42,"channel":"web"}` {
		t.Errorf("receipt %s", o.Variables)
	}

	// Invalid input: the handler is not called; FailJob retries − 1 with the
	// default policy's back-off (~2 s for retries 2) and the field named.
	gw.AddJob(&pb.ActivatedJob{Key: 2, Type: "typed", Retries: 2, Variables: `{"orderId":"bad","amount":"12"}`, CustomHeaders: `{}`, Deadline: time.Now().Add(time.Minute).UnixMilli()})
	// A middleware that raises fails the job like a handler; the worker's fixed back-off applies.
	gw.AddJob(&pb.ActivatedJob{Key: 3, Type: "raising", Retries: 3, Variables: `{}`, CustomHeaders: `{}`, Deadline: time.Now().Add(time.Minute).UnixMilli()})
	// (The fake gateway redelivers a failed job at once: check the first failure of each.)
	first := map[int64]fakegw.Outcome{}
	waitFor(t, "both failures", 3*time.Second, func() bool {
		for _, o := range outcomesOf(gw, "fail") {
			if _, ok := first[o.Key]; !ok {
				first[o.Key] = o
			}
		}
		return len(first) == 2
	})
	if o := first[2]; o.Retries != 1 || o.Message != "jobwire: invalid input: amount: expected number, got string" || o.BackOff < 1800 || o.BackOff > 2200 {
		t.Errorf("invalid input outcome %+v", o)
	}
	if o := first[3]; o.Retries != 2 || o.Message != "middleware said no" || o.BackOff != 250 {
		t.Errorf("raising middleware outcome %+v", o)
	}
	if _, ok := called.Load("bad"); ok {
		t.Error("the handler was called with invalid input")
	}
	if slices.Contains(rec.get(), "raising handler") {
		t.Error("the handler behind a raising middleware was called")
	}
}

func TestStartAllOrNothing(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	noop := HandlerFunc(func(context.Context, *Job) (any, error) { return nil, nil })
	m := NewMux()
	m.Register("a", noop)
	m.Register("a", noop)
	if _, err := c.Start(m); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate job type: %v", err)
	}
	m = NewMux()
	m.Register("a", noop)
	m.Register("b", noop, WithMaxJobsActive(0))
	if _, err := c.Start(m); err == nil || !strings.Contains(err.Error(), "maxJobsActive") {
		t.Errorf("bad option: %v", err)
	}
	m = NewMux()
	m.Register("", noop)
	if _, err := c.Start(m); err == nil {
		t.Error("empty job type started")
	}
	m = NewMux()
	m.Register("a", nil)
	if _, err := c.Start(m); err == nil {
		t.Error("nil handler started")
	}
	if _, err := c.Start(NewMux()); err == nil {
		t.Error("empty mux started")
	}
	c.mu.Lock()
	n := len(c.workers)
	c.mu.Unlock()
	if n != 0 {
		t.Errorf("%d workers left running after failed starts", n)
	}
	// A panicking handler goes through the policy too.
	m = NewMux(WithStreamEnabled(false), WithRetryPolicy(func(_ *Job, err error) RetryDecision { return RaiseIncident("policy: " + err.Error()) }))
	m.Register("p", HandlerFunc(func(context.Context, *Job) (any, error) { panic("kaboom") }))
	ws, err := c.Start(m)
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, ws[0])
	gw.AddJobs("p", 1, `{}`, 3)
	waitFor(t, "the panic's failure", 3*time.Second, func() bool { return len(outcomesOf(gw, "fail")) == 1 })
	if o := outcomesOf(gw, "fail")[0]; o.Retries != 0 || o.Message != "policy: handler panic: kaboom" {
		t.Errorf("panic outcome %+v", o)
	}
}

func TestFakeWithBackoffBoundsPolls(t *testing.T) {
	gw := fakegw.Start(t)
	c, err := NewClient(context.Background(), WithAddress(gw.Addr), WithLogger(testLogger()),
		WithBackoff(Backoff{Initial: 20 * time.Millisecond, Max: 90 * time.Millisecond, Multiplier: 3}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	gw.Set(func(s *fakegw.Server) {
		s.ActivateErr = func(n int) error {
			if n <= 4 {
				return status.Error(codes.ResourceExhausted, "backpressure")
			}
			return nil
		}
	})
	w, err := c.NewWorker("bo", func(ctx context.Context, job *Job) (any, error) { return nil, nil }, WithStreamEnabled(false))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	gw.AddJobs("bo", 1, "", 3)
	waitFor(t, "completion after backpressure", 5*time.Second, func() bool { return len(gw.Outcomes()) == 1 })
	_, times := gw.Polls()
	want := []float64{20, 60, 90, 90} // ×3 from 20 ms, capped at 90 ms
	for i, wv := range want {
		gap := float64(times[i+1].Sub(times[i]).Milliseconds())
		if gap < wv*0.85 || gap > wv*1.1+40 {
			t.Errorf("gap %d = %.0f ms, want ≈ %.0f ms", i, gap, wv)
		}
	}
}

type ptrValidated struct {
	N int `json:"n"`
}

func (p *ptrValidated) Validate() error {
	if p.N <= 0 {
		return &InvalidInputError{Field: "n", Problem: "must be > 0"}
	}
	return nil
}

func TestValidateOnPointerInputs(t *testing.T) {
	var v ptrValidated // *ptrValidated has Validate: found through the pointer decodeInput gets
	if err := decodeInput([]byte(`{"n":0}`), &v, ""); err == nil || err.Error() != "jobwire: invalid input: n: must be > 0" {
		t.Errorf("value input: %v", err)
	}
	var p *ptrValidated // In is itself a pointer type
	if err := decodeInput([]byte(`{"n":0}`), &p, ""); err == nil || err.Error() != "jobwire: invalid input: n: must be > 0" {
		t.Errorf("pointer input: %v", err)
	}
	if err := decodeInput([]byte(`{"n":2}`), &p, ""); err != nil || p.N != 2 {
		t.Errorf("valid pointer input: %v %+v", err, p)
	}
}
