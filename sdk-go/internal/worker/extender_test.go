package worker

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// fakeExtendEngine is a fake clock and engine for runExtender: sleep advances
// the clock at once, extend answers from a script (a success moves the
// deadline to now + timeout, as UpdateJobTimeout does).
type fakeExtendEngine struct {
	now      time.Time
	deadline time.Time
	timeout  time.Duration
	answers  []codes.Code // one per UpdateJobTimeout; the script's end answers NOT_FOUND
	waits    []time.Duration
	calls    []time.Time // clock at each UpdateJobTimeout
}

func (f *fakeExtendEngine) clock() extendClock {
	return extendClock{
		until: func(t time.Time) time.Duration { return t.Sub(f.now) },
		sleep: func(ctx context.Context, d time.Duration) bool {
			f.waits = append(f.waits, d)
			f.now = f.now.Add(d)
			return ctx.Err() == nil
		},
		extend: func(context.Context) error {
			f.calls = append(f.calls, f.now)
			code := codes.NotFound
			if len(f.calls) <= len(f.answers) {
				code = f.answers[len(f.calls)-1]
			}
			if code == codes.OK {
				f.deadline = f.now.Add(f.timeout)
				return nil
			}
			return status.Error(code, "scripted")
		},
	}
}

func (f *fakeExtendEngine) run(t *testing.T) {
	t.Helper()
	bo := NewBackoff()
	bo.rand = func() float64 { return 0.5 } // no jitter: exact back-off values
	runExtender(context.Background(), f.clock(), func() time.Time { return f.deadline }, bo, func(error) {})
}

// A failed UpdateJobTimeout is retried after the back-off alone (50 ms, then
// 80 ms), not after the back-off plus another share of the time left; the
// back-off is reset by a success, and extensions then resume at half of the
// time left.
func TestExtenderRetryFollowsBackoffAlone(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	f := &fakeExtendEngine{now: t0, deadline: t0.Add(10 * time.Second), timeout: 10 * time.Second,
		answers: []codes.Code{codes.Unavailable, codes.ResourceExhausted, codes.OK, codes.Unavailable, codes.OK}}
	f.run(t)
	want := []time.Duration{
		5 * time.Second,       // half of the 10 s left
		50 * time.Millisecond, // retry: back-off alone
		80 * time.Millisecond, // retry: back-off alone, grown
		5 * time.Second,       // extended: half of the new 10 s
		50 * time.Millisecond, // retry: the back-off was reset by the success
		5 * time.Second,       // extended again; the next answer (NOT_FOUND) ends the extender
	}
	if len(f.waits) != len(want) {
		t.Fatalf("waits %v, want %v", f.waits, want)
	}
	for i := range want {
		if f.waits[i] != want[i] {
			t.Fatalf("wait %d = %v, want %v (all: %v)", i, f.waits[i], want[i], f.waits)
		}
	}
	if len(f.calls) != 6 {
		t.Fatalf("%d UpdateJobTimeout calls, want 6", len(f.calls))
	}
}

// While UpdateJobTimeout keeps failing, every retry still falls before the
// deadline: the back-off grows, but each wait is capped at half of the time
// still left.
func TestExtenderRetriesBeforeDeadline(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	answers := make([]codes.Code, 40)
	for i := range answers {
		answers[i] = codes.Unavailable
	}
	f := &fakeExtendEngine{now: t0, deadline: t0.Add(2 * time.Second), timeout: 2 * time.Second, answers: answers}
	f.run(t)
	// 1 s (half of 2 s), then 50, 80, 128, 204.8 ms of back-off, then capped
	// at half of what is left (268, 134, 67, ... ms): the retries crowd
	// towards the deadline instead of jumping past it.
	retriesInTime := 0
	for _, c := range f.calls[1:] {
		if f.deadline.Sub(c) > 100*time.Millisecond {
			retriesInTime++
		}
	}
	if retriesInTime < 6 {
		t.Fatalf("only %d retries more than 100 ms before the deadline (waits %v)", retriesInTime, f.waits)
	}
	for i := 1; i < len(f.waits); i++ {
		left := f.deadline.Sub(t0.Add(sum(f.waits[:i])))
		if f.waits[i] > max(left/2, extendMinRetry) {
			t.Fatalf("retry wait %d = %v with %v left", i, f.waits[i], left)
		}
	}
}

func sum(ds []time.Duration) time.Duration {
	var s time.Duration
	for _, d := range ds {
		s += d
	}
	return s
}
