package jobwire

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/jobwire/jobwire/sdk-go/internal/fakegw"
)

func TestFakeHandlerOutcomes(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	w, err := c.NewWorker("mixed", func(ctx context.Context, job *Job) (any, error) {
		m, _ := job.Variables()
		switch m["do"] {
		case "fail":
			return nil, errors.New("card declined")
		case "bpmn":
			return nil, &JobError{Code: "NO_STOCK", Message: "sold out", Variables: map[string]int{"left": 0}}
		case "wrapped":
			return nil, fmtErr(&JobError{Code: "WRAPPED", Message: "inner"})
		case "panic":
			panic("kaboom")
		case "badvars":
			return []int{1, 2}, nil
		}
		return nil, nil
	}, WithStreamEnabled(false), WithRetryBackOff(1500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	for _, do := range []string{"fail", "bpmn", "wrapped", "panic", "badvars", "none"} {
		gw.AddJobs("mixed", 1, `{"do":"`+do+`"}`, 1) // retries 1: a failure leaves 0, no redelivery
	}
	waitFor(t, "6 outcomes", 3*time.Second, func() bool { return len(gw.Outcomes()) == 6 })
	byMsg := map[string]fakegw.Outcome{}
	for _, o := range gw.Outcomes() {
		byMsg[o.Kind+":"+o.Code+":"+o.Message] = o
	}
	check := func(prefix string, f func(fakegw.Outcome) bool) {
		t.Helper()
		for k, o := range byMsg {
			if strings.HasPrefix(k, prefix) && f(o) {
				return
			}
		}
		t.Errorf("no outcome %q in %v", prefix, byMsg)
	}
	check("fail::card declined", func(o fakegw.Outcome) bool { return o.Retries == 0 && o.BackOff == 1500 })
	check("error:NO_STOCK:sold out", func(o fakegw.Outcome) bool { return o.Variables == `{"left":0}` })
	check("error:WRAPPED:inner", func(fakegw.Outcome) bool { return true })
	check("fail::handler panic: kaboom", func(o fakegw.Outcome) bool { return o.Retries == 0 && o.BackOff == 1500 })
	check("fail::handler returned invalid variables", func(fakegw.Outcome) bool { return true })
	check("complete::", func(o fakegw.Outcome) bool { return o.Variables == "" })
}

func fmtErr(err error) error { return errors.Join(errors.New("outer"), err) }

func TestFakeManualMode(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	second := make(chan error, 1)
	w, err := c.NewWorker("manual", func(ctx context.Context, job *Job) (any, error) {
		if err := job.Complete(ctx, map[string]any{"done": 1}); err != nil {
			return nil, err
		}
		second <- job.Fail(ctx, "too late")
		return nil, nil
	}, WithStreamEnabled(false), WithAutoComplete(false))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	gw.AddJobs("manual", 1, "", 3)
	if err := <-second; !errors.Is(err, ErrAlreadySettled) {
		t.Fatalf("second outcome: %v", err)
	}
	waitFor(t, "completion", time.Second, func() bool { return len(gw.Outcomes()) == 1 })
	if o := gw.Outcomes()[0]; o.Kind != "complete" || o.Variables != `{"done":1}` {
		t.Fatalf("outcome %+v", o)
	}
}

func TestFakeOutcomeRetriedOnTransientErrors(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	gw.Set(func(s *fakegw.Server) {
		s.OutcomeErr = func(kind string, key int64, attempt int) error {
			switch attempt {
			case 1:
				return status.Error(codes.Unavailable, "down")
			case 2:
				return status.Error(codes.ResourceExhausted, "busy")
			case 3:
				return status.Error(codes.DeadlineExceeded, "slow")
			}
			return nil
		}
	})
	var reported atomic.Int32
	w, err := c.NewWorker("retry", func(ctx context.Context, job *Job) (any, error) { return nil, nil },
		WithStreamEnabled(false), WithErrorListener(func(error) { reported.Add(1) }))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	keys := gw.AddJobs("retry", 1, "", 3)
	waitFor(t, "completion after retries", 3*time.Second, func() bool { return len(gw.Outcomes()) == 1 })
	if n := gw.Attempts("complete", keys[0]); n != 4 {
		t.Fatalf("attempts %d, want 4", n)
	}
	if reported.Load() != 0 {
		t.Fatal("transient errors were reported to the application")
	}
}

// Zeebe's gateway answers ABORTED ("Connection ... was closed") when its
// connection to the partition leader closes mid-request, e.g. when that broker
// is killed. Every outcome kind is sent again with backoff and lands; nothing
// is reported to the application (docs/worker-semantics.md, "Sending outcomes").
func TestFakeOutcomeRetriedOnAborted(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	gw.Set(func(s *fakegw.Server) {
		s.OutcomeErr = func(kind string, key int64, attempt int) error {
			if attempt <= 2 {
				return status.Error(codes.Aborted, "Connection RemoteClientConnection{channel=[id: 0x1]} was closed")
			}
			return nil
		}
	})
	var reported atomic.Int32
	w, err := c.NewWorker("aborted", func(ctx context.Context, job *Job) (any, error) {
		vars, err := job.Variables()
		if err != nil {
			return nil, err
		}
		switch vars["do"] {
		case "fail":
			return nil, errors.New("handler failed")
		case "error":
			return nil, &JobError{Code: "E1", Message: "bpmn error"}
		}
		return map[string]any{"ok": true}, nil
	}, WithStreamEnabled(false), WithErrorListener(func(error) { reported.Add(1) }))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	var keys []int64
	for _, do := range []string{"complete", "fail", "error"} {
		keys = append(keys, gw.AddJobs("aborted", 1, `{"do":"`+do+`"}`, 1)...)
	}
	waitFor(t, "three outcomes after ABORTED", 5*time.Second, func() bool { return len(gw.Outcomes()) == 3 })
	kinds := map[string]bool{}
	for _, o := range gw.Outcomes() {
		kinds[o.Kind] = true
	}
	if !kinds["complete"] || !kinds["fail"] || !kinds["error"] {
		t.Fatalf("outcomes %+v", gw.Outcomes())
	}
	for i, kind := range []string{"complete", "fail", "error"} {
		if n := gw.Attempts(kind, keys[i]); n != 3 {
			t.Fatalf("%s attempts %d, want 3", kind, n)
		}
	}
	if reported.Load() != 0 {
		t.Fatalf("ABORTED reported to the application %d times", reported.Load())
	}
}

// An outcome the gateway applied but whose answer was lost (ABORTED) is sent
// again and answered NOT_FOUND: benign, not reported, not retried further, and
// Job.Complete returns the NOT_FOUND to a manual caller.
func TestFakeAbortedThenNotFoundIsBenign(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	gw.Set(func(s *fakegw.Server) {
		s.OutcomeLost = func(kind string, key int64, attempt int) error {
			return status.Error(codes.Aborted, "Connection RemoteClientConnection{channel=[id: 0x2]} was closed")
		}
	})
	var reported atomic.Int32
	done := make(chan error, 1)
	w, err := c.NewWorker("lost", func(ctx context.Context, job *Job) (any, error) {
		done <- job.Complete(ctx, nil)
		return nil, nil
	}, WithStreamEnabled(false), WithAutoComplete(false), WithErrorListener(func(error) { reported.Add(1) }))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	keys := gw.AddJobs("lost", 1, "", 3)
	err = <-done
	if Code(err) != codes.NotFound {
		t.Fatalf("Complete after ABORTED+NOT_FOUND returned %v, want NOT_FOUND", err)
	}
	if n := gw.Attempts("complete", keys[0]); n != 2 {
		t.Fatalf("attempts %d, want 2", n)
	}
	if len(gw.Outcomes()) != 1 || reported.Load() != 0 {
		t.Fatalf("outcomes %d reported %d", len(gw.Outcomes()), reported.Load())
	}
}

// A NOT_FOUND answer is benign for the worker (not reported to the error
// handler, not retried) but Job.Complete tells the application the outcome did
// not land: it returns a *NotFoundError.
func TestFakeNotFoundOutcomeIsBenign(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	gw.Set(func(s *fakegw.Server) {
		s.OutcomeErr = func(string, int64, int) error { return status.Error(codes.NotFound, "job timed out") }
	})
	var reported atomic.Int32
	done := make(chan error, 1)
	w, err := c.NewWorker("gone", func(ctx context.Context, job *Job) (any, error) {
		done <- job.Complete(ctx, nil)
		return nil, nil
	}, WithStreamEnabled(false), WithAutoComplete(false), WithErrorListener(func(error) { reported.Add(1) }))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	keys := gw.AddJobs("gone", 1, "", 3)
	err = <-done
	var nf *NotFoundError
	if !errors.As(err, &nf) || Code(err) != codes.NotFound {
		t.Fatalf("Complete after NOT_FOUND returned %v (%T), want a *NotFoundError", err, err)
	}
	if gw.Attempts("complete", keys[0]) != 1 || reported.Load() != 0 {
		t.Fatalf("attempts %d reported %d", gw.Attempts("complete", keys[0]), reported.Load())
	}
}

// An outcome attempt the gateway never answers is abandoned at the request
// timeout (the executor's attempt watchdog; an attempt has no deadline context
// of its own) and sent again, like one answered DEADLINE_EXCEEDED.
func TestFakeHungOutcomeAttemptAbandonedAtRequestTimeout(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	firstAt := make(chan time.Time, 1)
	gw.Set(func(s *fakegw.Server) {
		s.OutcomeErr = func(kind string, key int64, attempt int) error {
			if attempt == 1 {
				firstAt <- time.Now()
				time.Sleep(3 * time.Second) // never answered in time; not applied
				return status.Error(codes.Unavailable, "too late")
			}
			return nil
		}
	})
	w, err := c.NewWorker("hung", func(ctx context.Context, job *Job) (any, error) { return nil, nil },
		WithStreamEnabled(false), WithRequestTimeout(300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	keys := gw.AddJobs("hung", 1, "", 3)
	waitFor(t, "the outcome", 5*time.Second, func() bool { return len(gw.Outcomes()) == 1 })
	took := time.Since(<-firstAt)
	if took < 300*time.Millisecond || took > 1500*time.Millisecond {
		t.Fatalf("the outcome was applied %v after its first attempt began; want the 300 ms request timeout, a back-off and a second attempt", took)
	}
	if n := gw.Attempts("complete", keys[0]); n != 2 {
		t.Fatalf("attempts %d, want 2", n)
	}
}
