package jobwire

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/jobwire/jobwire/sdk-go/internal/fakegw"
	"github.com/jobwire/jobwire/sdk-go/internal/worker"
)

// Unit tests of the edge rules of docs/worker-semantics.md (issue 12) against
// the in-process fake gateway.

// logRecorder keeps every log record (message and level).
type logRecorder struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (r *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	r.recs = append(r.recs, rec)
	r.mu.Unlock()
	return nil
}
func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *logRecorder) WithGroup(string) slog.Handler      { return r }

func (r *logRecorder) count(min slog.Level, contains string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, rec := range r.recs {
		if rec.Level >= min && strings.Contains(rec.Message, contains) {
			n++
		}
	}
	return n
}

func recordingClient(t *testing.T, gw *fakegw.Server) (*Client, *logRecorder) {
	t.Helper()
	rec := &logRecorder{}
	c, err := NewClient(context.Background(), WithAddress(gw.Addr), WithLogger(slog.New(rec)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, rec
}

func streamsOpened(gw *fakegw.Server) (n int) {
	gw.Set(func(s *fakegw.Server) { n = s.StreamsOpened })
	return n
}

// sawState is a WithStateListener option that records whether the worker ever entered st.
func sawState(st WorkerState) (*atomic.Bool, WorkerOption) {
	var saw atomic.Bool
	return &saw, WithStateListener(func(s WorkerState) {
		if s == st {
			saw.Store(true)
		}
	})
}

// Item 2: a stream the gateway ends cleanly is reopened at once, at debug, and
// the worker never enters backoff.
func TestFakeCleanStreamEndReopensQuietly(t *testing.T) {
	gw := fakegw.Start(t)
	gw.Set(func(s *fakegw.Server) { s.StreamLife = 1100 * time.Millisecond })
	c, rec := recordingClient(t, gw)
	backoff, listen := sawState(StateBackoff)
	w, err := c.NewWorker("eof", func(ctx context.Context, job *Job) (any, error) { return nil, nil }, listen)
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	time.Sleep(3500 * time.Millisecond)
	if n := streamsOpened(gw); n < 3 || n > 5 {
		t.Fatalf("%d streams opened in 3.5 s with 1.1 s streams, want 3..5 (immediate reopens)", n)
	}
	if backoff.Load() || w.State() != StateStreaming {
		t.Fatalf("a clean stream end put the worker in backoff (state %s)", w.State())
	}
	if n := rec.count(slog.LevelWarn, ""); n != 0 {
		t.Fatalf("%d WARN+ log lines for clean stream ends", n)
	}
	// Jobs still flow through the reopened streams.
	gw.AddJobs("eof", 3, "", 3)
	waitFor(t, "3 completions", 3*time.Second, func() bool { return len(outcomesOf(gw, "complete")) == 3 })
}

// Item 2: a gateway that ends every stream at once is not hammered: reopens of
// streams younger than 1 s wait the shared backoff (still quietly).
func TestFakeInstantStreamEndIsNotHammered(t *testing.T) {
	gw := fakegw.Start(t)
	gw.Set(func(s *fakegw.Server) { s.StreamLife = -1 })
	c, rec := recordingClient(t, gw)
	w, err := c.NewWorker("eof0", func(ctx context.Context, job *Job) (any, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	time.Sleep(time.Second)
	if n := streamsOpened(gw); n < 3 || n > 10 {
		t.Fatalf("%d stream opens in 1 s with instant clean ends, want 3..10", n)
	}
	if n := rec.count(slog.LevelWarn, ""); n != 0 {
		t.Fatalf("%d WARN+ log lines", n)
	}
}

// Item 9: with a gateway that does not park polls, an idle worker pauses
// pollInterval after each empty poll (long polling on, the default).
func TestFakeEmptyPollPausesWithoutParking(t *testing.T) {
	gw := fakegw.Start(t)
	gw.Set(func(s *fakegw.Server) { s.NoLongPoll = true })
	c := fakeClient(t, gw)
	w, err := c.NewWorker("idle", func(ctx context.Context, job *Job) (any, error) { return nil, nil },
		WithStreamEnabled(false), WithPollInterval(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	closeWorker(t, w)
	polls, _ := gw.Polls()
	if len(polls) < 5 || len(polls) > 13 {
		t.Fatalf("%d polls in 1 s from an idle worker, want ~10 (100 ms pauses)", len(polls))
	}
}

// Item 9: a poll the gateway parked for its whole long-poll time is followed
// at once by the next (no pause).
func TestFakeParkedEmptyPollIsNotPaused(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	w, err := c.NewWorker("parked", func(ctx context.Context, job *Job) (any, error) { return nil, nil },
		WithStreamEnabled(false), WithRequestTimeout(200*time.Millisecond), WithPollInterval(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	closeWorker(t, w)
	if polls, _ := gw.Polls(); len(polls) < 4 {
		t.Fatalf("%d polls in 1 s with 200 ms long polls, want ≥ 4 (no pause after a parked poll)", len(polls))
	}
}

// Item 4: a pushed job never finds the worker full because a backfill poll took
// the slot reserved for the stream read.
func TestFakePushedJobAlwaysHasASlot(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	gw.AddJobs("slot", 2, "", 3) // a backlog for the first poll
	release := make(chan struct{})
	var started atomic.Int32
	w, err := c.NewWorker("slot", func(ctx context.Context, job *Job) (any, error) {
		started.Add(1)
		<-release
		return nil, nil
	}, WithMaxJobsActive(2))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	waitFor(t, "two handlers", 2*time.Second, func() bool { return started.Load() == 2 })
	gw.AddJobs("slot", 2, "", 3) // pushed while the worker is full
	time.Sleep(300 * time.Millisecond)
	for _, o := range outcomesOf(gw, "fail") {
		if strings.Contains(o.Message, "at capacity") {
			t.Fatalf("a pushed job was read without a free slot and returned: %+v", o)
		}
	}
	close(release)
	waitFor(t, "4 completions", 3*time.Second, func() bool { return len(outcomesOf(gw, "complete")) == 4 })
	if n := len(outcomesOf(gw, "fail")); n != 0 {
		t.Fatalf("%d jobs failed back", n)
	}
}

// Item 7: an open stream that delivers nothing while a poll finds jobs is
// recycled within seconds, not after streamTimeout (1 h).
func TestFakeStalledStreamIsRecycled(t *testing.T) {
	gw := fakegw.Start(t)
	gw.Set(func(s *fakegw.Server) { s.StallStreams = true })
	c, rec := recordingClient(t, gw)
	w, err := c.NewWorker("stall", func(ctx context.Context, job *Job) (any, error) { return nil, nil },
		WithMaxJobsActive(4), WithRequestTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	time.Sleep(2200 * time.Millisecond) // the stream has been silent for 2 s
	gw.AddJobs("stall", 1, "", 3)       // the poll parked for 2 s gets it: the stream stalled
	waitFor(t, "a stall recycle", 2*time.Second, func() bool { return streamsOpened(gw) == 2 })
	if rec.count(slog.LevelInfo, "stalled") != 1 {
		t.Fatal("the stall recycle was not logged at info")
	}
	// At most one stall recycle per 10 s.
	time.Sleep(2200 * time.Millisecond)
	gw.AddJobs("stall", 1, "", 3)
	time.Sleep(500 * time.Millisecond)
	if n := streamsOpened(gw); n != 2 {
		t.Fatalf("%d streams opened, want 2 (one stall recycle per 10 s)", n)
	}
	waitFor(t, "2 completions", 3*time.Second, func() bool { return len(outcomesOf(gw, "complete")) == 2 })
}

// Item 1 (recycle): jobs read from a stream being recycled are handed back
// with retries unchanged and the recycle message, never run from it.
func TestFakeRecycleDrainsAndHandsBack(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	release := make(chan struct{})
	var started atomic.Int32
	w, err := c.NewWorker("recycle", func(ctx context.Context, job *Job) (any, error) {
		started.Add(1)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil, nil
	}, WithMaxJobsActive(1), WithStreamTimeout(700*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "streaming", 2*time.Second, func() bool { return gw.OpenStreams() == 1 })
	time.Sleep(100 * time.Millisecond)
	gw.AddJobs("recycle", 4, "", 3) // one runs, three wait in the stream's buffers
	waitFor(t, "a recycle", 3*time.Second, func() bool { return streamsOpened(gw) >= 2 })
	time.Sleep(700 * time.Millisecond)
	var recycled []fakegw.Outcome
	for _, o := range outcomesOf(gw, "fail") {
		if o.Message == worker.MsgRecycled {
			recycled = append(recycled, o)
			if o.Retries != 3 || o.BackOff != 0 {
				t.Fatalf("recycled job handed back with retries %d backoff %d", o.Retries, o.BackOff)
			}
		}
	}
	if len(recycled) == 0 {
		t.Fatal("no job read from the recycled stream was handed back")
	}
	close(release)
	waitFor(t, "4 completions", 5*time.Second, func() bool { return len(outcomesOf(gw, "complete")) == 4 })
	closeWorker(t, w)
}

// Item 5: a non-retryable answer to an auto-mode outcome counts as
// undelivered (warn + error handler), never as completed.
func TestFakeRejectedOutcomeIsUndelivered(t *testing.T) {
	gw := fakegw.Start(t)
	gw.Set(func(s *fakegw.Server) {
		s.OutcomeErr = func(string, int64, int) error { return status.Error(codes.PermissionDenied, "no") }
	})
	c, rec := recordingClient(t, gw)
	var reported atomic.Int32
	w, err := c.NewWorker("undelivered", func(ctx context.Context, job *Job) (any, error) { return nil, nil },
		WithStreamEnabled(false), WithErrorListener(func(err error) {
			if Code(err) == codes.PermissionDenied {
				reported.Add(1)
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	gw.AddJobs("undelivered", 1, "", 3)
	waitFor(t, "the error report", 2*time.Second, func() bool { return reported.Load() == 1 })
	if rec.count(slog.LevelWarn, "not delivered") != 1 {
		t.Fatal("an undelivered outcome was not logged at warn")
	}
}

// Items 5 and 6: Job.Complete honours ctx (retries stop when it ends) and
// returns the typed error; a cancelled ctx sends nothing and leaves the job open.
func TestFakeCompleteHonoursContext(t *testing.T) {
	gw := fakegw.Start(t)
	gw.Set(func(s *fakegw.Server) {
		s.OutcomeErr = func(kind string, _ int64, _ int) error {
			if kind == "complete" {
				return status.Error(codes.Unavailable, "down")
			}
			return nil
		}
	})
	c := fakeClient(t, gw)
	type result struct {
		cancelled, timedOut error
		took                time.Duration
	}
	res := make(chan result, 1)
	w, err := c.NewWorker("ctx", func(ctx context.Context, job *Job) (any, error) {
		var r result
		done, cancel := context.WithCancel(ctx)
		cancel()
		r.cancelled = job.Complete(done, nil)
		tctx, cancel2 := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel2()
		t0 := time.Now()
		r.timedOut = job.Complete(tctx, nil)
		r.took = time.Since(t0)
		res <- r
		return nil, nil
	}, WithStreamEnabled(false), WithAutoComplete(false))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	keys := gw.AddJobs("ctx", 1, "", 3)
	r := <-res
	if !errors.Is(r.cancelled, context.Canceled) {
		t.Fatalf("Complete with a cancelled ctx: %v", r.cancelled)
	}
	if r.timedOut == nil || !errors.Is(r.timedOut, context.DeadlineExceeded) || r.took > time.Second {
		t.Fatalf("Complete with a 300 ms ctx against an unavailable gateway: %v after %v", r.timedOut, r.took)
	}
	if n := gw.Attempts("complete", keys[0]); n < 1 {
		t.Fatalf("attempts %d", n)
	}
}

// Item 6: NewClient honours ctx.
func TestNewClientHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewClient(ctx, WithAddress("127.0.0.1:1"), WithInsecure(true)); !errors.Is(err, context.Canceled) {
		t.Fatalf("NewClient with a cancelled ctx: %v", err)
	}
}

// Manual mode holds the slot until the job is settled (capacity 1: the next
// job waits for the Complete, not for the handler's return).
func TestFakeManualModeHoldsSlotUntilSettled(t *testing.T) {
	gw := fakegw.Start(t)
	c := fakeClient(t, gw)
	jobs := make(chan *Job, 4)
	w, err := c.NewWorker("manual", func(ctx context.Context, job *Job) (any, error) {
		jobs <- job
		return nil, nil // returns without an outcome
	}, WithStreamEnabled(false), WithAutoComplete(false), WithMaxJobsActive(1))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	gw.AddJobs("manual", 2, "", 3)
	first := <-jobs
	select {
	case j := <-jobs:
		t.Fatalf("job %d started while the first was unsettled (capacity 1)", j.Key)
	case <-time.After(400 * time.Millisecond):
	}
	if err := first.Complete(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	select {
	case second := <-jobs:
		if err := second.Complete(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the second job did not start after the first was settled")
	}
	if err := first.Complete(context.Background(), nil); !errors.Is(err, ErrAlreadySettled) {
		t.Fatalf("second outcome: %v", err)
	}
}

// Manual mode: a job whose deadline passes unsettled frees its slot.
func TestFakeManualModeUnsettledAtDeadline(t *testing.T) {
	gw := fakegw.Start(t)
	c, rec := recordingClient(t, gw)
	var n atomic.Int32
	w, err := c.NewWorker("manual2", func(ctx context.Context, job *Job) (any, error) {
		n.Add(1)
		return nil, nil
	}, WithStreamEnabled(false), WithAutoComplete(false), WithMaxJobsActive(1), WithJobTimeout(300*time.Millisecond),
		WithRequestTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer closeWorker(t, w)
	gw.AddJobs("manual2", 2, "", 3)
	waitFor(t, "the second job after the first's deadline", 3*time.Second, func() bool { return n.Load() == 2 })
	if rec.count(slog.LevelWarn, "without an outcome") < 1 {
		t.Fatal("the unsettled job was not logged")
	}
}
