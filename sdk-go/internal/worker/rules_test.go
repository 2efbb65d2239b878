package worker

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobwire/jobwire/sdk-go/internal/pb"
)

// Rule 1: a polled job that arrives when the stream has filled every slot is
// failed back at once (retries unchanged, no back-off), never run, never held.
func TestOverflowPolledJobIsReturnedAtOnce(t *testing.T) {
	gw := newScriptedGW(true) // the poll's response is already in flight: cancel cannot stop it
	release := make(chan struct{})
	ran := make(chan int64, 8)
	meter := &countingMeter{}
	w := startScripted(t, gw, 2, func(ctx context.Context, d *HeldJob) Outcome {
		ran <- d.Job.GetKey()
		<-release
		return Outcome{Kind: OutcomeComplete}
	}, meter)
	stream := recv(t, gw.streams, "stream")
	poll := recv(t, gw.polls, "parked poll") // asks for 1: the stream's read holds the other slot
	stream.ch <- job(1)
	stream.ch <- job(2) // the stream takes the parked poll's slot (a long poll never stops the stream)
	recv(t, ran, "job 1")
	recv(t, ran, "job 2")
	poll.ch <- &pb.ActivateJobsResponse{Jobs: []*pb.ActivatedJob{job(3)}}
	close(poll.gate)
	eventually(t, "job 3 failed back", func() bool { return len(gw.failed()) == 1 })
	f := gw.failed()[0]
	if f.GetJobKey() != 3 || f.GetRetries() != 3 || f.GetRetryBackOff() != 0 || !strings.Contains(f.GetErrorMessage(), "worker at capacity; job returned") {
		t.Fatalf("fail-back %+v", f)
	}
	if h := w.Held(); h != 2 {
		t.Fatalf("held %d, want 2 (the returned job never takes a slot)", h)
	}
	eventually(t, "returned counted", func() bool { return meter.get("jobwire.worker.jobs.handled{outcome=returned}") == 1 })
	close(release)
	eventually(t, "released", func() bool { return w.Held() == 0 })
	if len(ran) != 0 {
		t.Fatalf("the returned job ran")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// A stream read always has a slot: with capacity 1 and the stream's read
// holding the slot, no parked poll is sent (a poll never takes the slot a
// pushed job will land in), and the pushed job runs; nothing is failed back.
func TestCapacityOneStreamReadKeepsItsSlot(t *testing.T) {
	gw := newScriptedGW(false)
	release := make(chan struct{})
	ran := make(chan int64, 4)
	w := startScripted(t, gw, 1, func(ctx context.Context, d *HeldJob) Outcome {
		ran <- d.Job.GetKey()
		<-release
		return Outcome{Kind: OutcomeComplete}
	})
	stream := recv(t, gw.streams, "stream")
	eventually(t, "the backfill poll", func() bool { gw.mu.Lock(); defer gw.mu.Unlock(); return gw.quickPolls >= 1 })
	var parked *fakeCall[pb.ActivateJobsResponse]
	select {
	case parked = <-gw.polls:
		// The poller won the race for the free slot after the backfill: the
		// stream may still read (from the parked poll's pool).
	case <-time.After(100 * time.Millisecond):
	}
	stream.ch <- job(2)
	if k := recv(t, ran, "the pushed job"); k != 2 {
		t.Fatalf("ran %d", k)
	}
	if parked == nil {
		select {
		case p := <-gw.polls:
			t.Fatalf("a parked poll was sent while the stream's read held the only slot: %v", p)
		case <-time.After(150 * time.Millisecond):
		}
	}
	if len(gw.failed()) != 0 || w.Held() != 1 {
		t.Fatalf("fails %d held %d", len(gw.failed()), w.Held())
	}
	close(release)
	closeNow(t, w)
}

// Rule 3: a parked poll is not cancelled when the stream lifts held above the
// poll threshold (a cancel drops what the gateway already sent for it); the
// jobs it brings while the worker is full are handed back at once, none is
// lost, and the worker stays streaming.
func TestParkedPollKeptWhenStreamFillsWorker(t *testing.T) {
	gw := newScriptedGW(false)
	release := make(chan struct{})
	meter := &countingMeter{}
	w := startScripted(t, gw, 4, func(ctx context.Context, d *HeldJob) Outcome {
		<-release
		return Outcome{Kind: OutcomeComplete}
	}, meter)
	stream := recv(t, gw.streams, "stream")
	poll := recv(t, gw.polls, "parked poll")
	for k := int64(1); k <= 4; k++ {
		stream.ch <- job(k) // held 4 of 4: far above the threshold
	}
	eventually(t, "held 4", func() bool { return w.Held() == 4 })
	time.Sleep(300 * time.Millisecond) // the old rule cancelled 100 ms after the rise
	if poll.ctx.Err() != nil {
		t.Fatal("parked poll cancelled when the stream filled the worker")
	}
	// The gateway answers the parked poll now: the worker is full, so both jobs
	// go back at once (FailJob, retries unchanged, no back-off).
	poll.ch <- &pb.ActivateJobsResponse{Jobs: []*pb.ActivatedJob{job(11), job(12)}}
	close(poll.ch)
	eventually(t, "both polled jobs handed back", func() bool { gw.mu.Lock(); defer gw.mu.Unlock(); return len(gw.fails) == 2 })
	gw.mu.Lock()
	for _, f := range gw.fails {
		if f.GetRetries() != 3 || f.GetRetryBackOff() != 0 || f.GetErrorMessage() != MsgAtCapacity {
			t.Fatalf("hand-back %+v, want retries unchanged, no back-off, %q", f, MsgAtCapacity)
		}
	}
	gw.mu.Unlock()
	if n := meter.get("jobwire.worker.poll.requests{result=cancelled}"); n != 0 {
		t.Fatalf("%d polls counted cancelled", n)
	}
	if s := w.State(); s != StateStreaming {
		t.Fatalf("state %s, want streaming", s)
	}
	close(release)
	eventually(t, "the four pushed jobs completed", func() bool { gw.mu.Lock(); defer gw.mu.Unlock(); return len(gw.completes) == 4 })
	closeNow(t, w)
}

// newer deadline is kept (the handler sees it) and the copy is counted.
func TestRedeliveryWhileRunningKeepsNewerDeadline(t *testing.T) {
	gw := newScriptedGW(false)
	meter := &countingMeter{}
	deadlines := make(chan time.Time, 4)
	ran := make(chan int64, 4)
	release := make(chan struct{})
	w := startScripted(t, gw, 4, func(ctx context.Context, d *HeldJob) Outcome {
		ran <- d.Job.GetKey()
		<-release
		deadlines <- d.Deadline()
		return Outcome{Kind: OutcomeComplete}
	}, meter)
	stream := recv(t, gw.streams, "stream")
	stream.ch <- jobDue(1, time.Minute)
	recv(t, ran, "first attempt")
	later := jobDue(1, 2*time.Minute)
	stream.ch <- later
	eventually(t, "duplicate counted", func() bool { return meter.get("jobwire.worker.jobs.handled{outcome=duplicate}") == 1 })
	if w.Held() != 1 {
		t.Fatalf("held %d, want 1 (one key, one slot)", w.Held())
	}
	close(release)
	if got := recv(t, deadlines, "deadline"); got.UnixMilli() != later.GetDeadline() {
		t.Fatalf("handler saw deadline %v, want the redelivery's %v", got.UnixMilli(), later.GetDeadline())
	}
	eventually(t, "released", func() bool { return w.Held() == 0 })
	select {
	case k := <-ran:
		t.Fatalf("job %d ran again", k)
	case <-time.After(50 * time.Millisecond):
	}
	closeNow(t, w)
}

// Rule 4a, queued: the newer deadline of a redelivery also rescues a queued
// job from the expiry check.
func TestRedeliveryOfQueuedJobMovesItsDeadline(t *testing.T) {
	gw := newScriptedGW(false)
	ran := make(chan int64, 4)
	release := make(chan struct{})
	cfgHandler := func(ctx context.Context, d *HeldJob) Outcome {
		ran <- d.Job.GetKey()
		if d.Job.GetKey() == 10 {
			<-release
		}
		return Outcome{Kind: OutcomeComplete}
	}
	w := Start(Config{JobType: "t", WorkerName: "w", MaxJobsActive: 4, Concurrency: 1, JobTimeout: time.Minute,
		RequestTimeout: 30 * time.Second, StreamEnabled: true, StreamTimeout: time.Hour}, Gateways{Unary: gw, Long: gw}, cfgHandler)
	w.Run()
	stream := recv(t, gw.streams, "stream")
	stream.ch <- jobDue(10, time.Minute)
	recv(t, ran, "job 10")
	stream.ch <- jobDue(1, 80*time.Millisecond) // queued behind job 10
	stream.ch <- jobDue(1, time.Minute)         // redelivered while queued
	time.Sleep(150 * time.Millisecond)          // the first deadline has passed
	close(release)
	if k := recv(t, ran, "job 1"); k != 1 {
		t.Fatalf("ran %d", k)
	}
	eventually(t, "released", func() bool { return w.Held() == 0 })
	if len(ran) != 0 {
		t.Fatal("job 1 ran twice")
	}
	closeNow(t, w)
}

// Rule 4b: a redelivery that arrives while the first attempt's outcome is in
// flight runs once that outcome is acknowledged.
func TestRedeliveryWhileOutcomeInFlightRunsAfterAck(t *testing.T) {
	gw := newScriptedGW(false)
	gw.failGate = make(chan struct{})
	var mu sync.Mutex
	var events []string
	note := func(e string) { mu.Lock(); events = append(events, e); mu.Unlock() }
	ran := make(chan int64, 4)
	w := startScripted(t, gw, 4, func(ctx context.Context, d *HeldJob) Outcome {
		ran <- d.Job.GetKey()
		note("run")
		return Outcome{Kind: OutcomeFail, Retries: 2, Message: "boom"}
	})
	stream := recv(t, gw.streams, "stream")
	stream.ch <- jobDue(1, time.Minute)
	recv(t, ran, "first attempt")
	time.Sleep(20 * time.Millisecond) // FailJob is now waiting at the gate
	stream.ch <- jobDue(1, time.Minute)
	select {
	case <-ran:
		t.Fatal("the redelivery ran before the first outcome was acknowledged")
	case <-time.After(100 * time.Millisecond):
	}
	note("ack")
	close(gw.failGate)
	recv(t, ran, "the redelivery")
	eventually(t, "released", func() bool { return w.Held() == 0 })
	mu.Lock()
	got := strings.Join(events, ",")
	mu.Unlock()
	if got != "run,ack,run" {
		t.Fatalf("events %s", got)
	}
	if n := len(gw.failed()); n != 2 {
		t.Fatalf("%d FailJob, want 2", n)
	}
	closeNow(t, w)
}

// Rule 3: a handler still running at close's deadline is cancelled and its job
// handed back with retries unchanged and no back-off, even when the handler
// ignores the cancellation (then after closeGrace, and its late result is dropped).
func TestCloseHandsBackRunningJobUnchanged(t *testing.T) {
	for _, ignores := range []bool{false, true} {
		gw := newScriptedGW(false)
		started := make(chan struct{}, 1)
		returned := make(chan struct{})
		w := startScripted(t, gw, 2, func(ctx context.Context, d *HeldJob) Outcome {
			started <- struct{}{}
			if ignores {
				time.Sleep(closeGrace + 300*time.Millisecond)
				defer close(returned)
				return Outcome{Kind: OutcomeComplete}
			}
			<-ctx.Done()
			close(returned)
			return Outcome{Kind: OutcomeFail, Retries: 2, RetryBackOff: time.Minute, Message: ctx.Err().Error()}
		})
		stream := recv(t, gw.streams, "stream")
		stream.ch <- jobDue(1, time.Minute)
		recv(t, started, "handler")
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		err := w.Close(ctx)
		cancel()
		if !errors.Is(err, ErrCloseTimeout) {
			t.Fatalf("close: %v", err)
		}
		<-returned
		time.Sleep(50 * time.Millisecond)
		fails := gw.failed()
		if len(fails) != 1 || fails[0].GetRetries() != 3 || fails[0].GetRetryBackOff() != 0 || fails[0].GetErrorMessage() != MsgClosing {
			t.Fatalf("ignores=%v: fails %+v", ignores, fails)
		}
		gw.mu.Lock()
		completes := len(gw.completes)
		gw.mu.Unlock()
		if completes != 0 {
			t.Fatalf("ignores=%v: a late result was sent after the hand-back", ignores)
		}
	}
}

// Push and poll rule 8: while the stream keeps held above the poll threshold,
// a fairness poll (not parked) is due 1 s after the last poll ended; it gets
// the next free slot before the stream reader reserves again.
func TestFairnessPollWhileStreamKeepsWorkerFull(t *testing.T) {
	gw := newScriptedGW(false)
	release := make(chan struct{}, 8)
	w := startScripted(t, gw, 2, func(ctx context.Context, d *HeldJob) Outcome {
		<-release
		return Outcome{Kind: OutcomeComplete}
	})
	quick := func() int { gw.mu.Lock(); defer gw.mu.Unlock(); return gw.quickPolls }
	stream := recv(t, gw.streams, "stream")
	eventually(t, "the backfill poll", func() bool { return quick() == 1 })
	stream.ch <- job(1)
	stream.ch <- job(2)
	eventually(t, "held 2", func() bool { return w.ledger.Jobs() == 2 })
	t0 := time.Now()
	for !w.ledger.PollDue() && time.Since(t0) < fairnessInterval+time.Second {
		select {
		case p := <-gw.polls:
			// A long poll sent before the stream filled the worker stays
			// parked (rule 3: never cancelled for that); the gateway ends it
			// empty here, and the fairness interval counts from its end.
			close(p.ch)
			t0 = time.Now()
		case <-time.After(5 * time.Millisecond):
		}
	}
	// Due 1 s after the last poll ended.
	if !w.ledger.PollDue() || time.Since(t0) < fairnessInterval-200*time.Millisecond {
		t.Fatalf("fairness poll due after %v, want ~%v after the last poll", time.Since(t0), fairnessInterval)
	}
	if quick() != 1 {
		t.Fatal("a poll was sent with no free slot")
	}
	stream.ch <- job(3) // pushed, but the free slot goes to the fairness poll first
	release <- struct{}{}
	eventually(t, "the fairness poll", func() bool { return quick() == 2 })
	release <- struct{}{}
	release <- struct{}{}
	eventually(t, "job 3 ran after the poll", func() bool { gw.mu.Lock(); defer gw.mu.Unlock(); return len(gw.completes) == 3 })
	closeNow(t, w)
}

// Close race (issue 12 item 6): a poll response that arrives while Close runs
// is handed back with retries unchanged (MsgClosing), never run, and Close
// waits for that hand-back before it returns.
func TestJobArrivingDuringCloseIsHandedBack(t *testing.T) {
	gw := newScriptedGW(true)
	ran := make(chan int64, 1)
	w := startScripted(t, gw, 4, func(ctx context.Context, d *HeldJob) Outcome {
		ran <- d.Job.GetKey()
		return Outcome{Kind: OutcomeComplete}
	})
	recv(t, gw.streams, "stream")
	poll := recv(t, gw.polls, "parked poll")
	poll.ch <- &pb.ActivateJobsResponse{Jobs: []*pb.ActivatedJob{job(7)}}
	closed := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		closed <- w.Close(ctx)
	}()
	eventually(t, "closing", func() bool { return w.State() == StateClosing })
	close(poll.gate) // the response was already in flight when close began
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	fails := gw.failed() // Close returned: the hand-back is already acknowledged
	if len(fails) != 1 || fails[0].GetJobKey() != 7 || fails[0].GetRetries() != 3 || fails[0].GetErrorMessage() != MsgClosing {
		t.Fatalf("fails %+v", fails)
	}
	select {
	case k := <-ran:
		t.Fatalf("job %d ran during close", k)
	default:
	}
	if w.Held() != 0 {
		t.Fatalf("held %d after close", w.Held())
	}
}
