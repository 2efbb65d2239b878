package worker

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/status"

	"github.com/jobwire/jobwire/sdk-go/internal/pb"
	"github.com/jobwire/jobwire/sdk-go/internal/pb/streampb"
)

var unimplementedOnce sync.Map // job type → logged

// Stream timings (docs/worker-semantics.md, push and poll rules 4, 6 and 7;
// the same in every SDK).
const (
	drainQuiet   = 50 * time.Millisecond  // a draining stream quiet this long is cancelled
	drainMax     = 500 * time.Millisecond // a draining stream is cancelled after this at the latest
	stallSilence = 2 * time.Second        // a reserved read silent this long while a poll found jobs: stalled
	stallMinGap  = 10 * time.Second       // at most one stall recycle per this
	shortStream  = time.Second            // a cleanly ended stream younger than this reopens after a backoff
	releaseMax   = 2 * time.Second        // bound on the ReleaseUnread call after a drain
)

// StreamIDHeader is the response header by which a jobwire gateway names a
// job stream for StreamControlService/ReleaseUnread (proto/jobwire/stream/v1).
const StreamIDHeader = "jobwire-stream-id"

// MsgRecycled is sent with the jobs a drained (recycled) stream hands back.
const MsgRecycled = "jobwire: stream recycled; job returned"

// streamEnd says why a stream's read loop ended.
type streamEnd int

const (
	endError   streamEnd = iota // Recv or the open failed
	endClosed                   // the gateway ended the stream cleanly (EOF)
	endRecycle                  // streamTimeout
	endStalled                  // the stall watchdog
	endStop                     // the worker closes
)

type recvResult struct {
	job *pb.ActivatedJob
	err error
}

// streamSession is one StreamActivatedJobs call and its reader goroutine.
// While the session is active the reader itself reserves a slot, calls Recv
// and hands the job over, so the stream is read only with a reserved slot and
// a pushed job reaches its runner with no hand-off between goroutines (a
// separate reader answering the stream loop cost two goroutine wake-ups per
// job). Once the stream loop takes the session over (streamTimeout, the stall
// watchdog, close) the reader calls Recv once per request on next, for the
// drain.
type streamSession struct {
	stream  pb.Gateway_StreamActivatedJobsClient
	cancel  context.CancelFunc
	next    chan struct{}
	results chan recvResult
	pending bool         // a read was requested (or the active reader's read is in flight) and its result not taken yet
	failed  bool         // Recv returned an error; the reader is gone
	nread   atomic.Int64 // jobs taken from the stream (every one is run or handed back by the worker)
	gotJob  atomic.Bool  // the active reader received a job (the stream's backoff resets)
	id      string
	idDone  chan struct{} // closed once id is known ("" when the gateway sent none)

	mu           sync.Mutex
	active       bool               // the reader reserves, reads and submits by itself
	reading      bool               // the active reader is in Recv, holding the stream's reservation
	readingSince atomic.Int64       // when that Recv began (unix ns; 0: none): the stall watchdog
	stopActive   context.CancelFunc // ends the active reader's wait for a slot
	left         chan struct{}      // closed when the reader has left the active phase
}

func (w *Worker) newStreamSession(stream pb.Gateway_StreamActivatedJobsClient, cancel context.CancelFunc, life context.Context) *streamSession {
	s := &streamSession{stream: stream, cancel: cancel, next: make(chan struct{}, 1), results: make(chan recvResult, 1),
		idDone: make(chan struct{}), active: true, left: make(chan struct{})}
	actx, stopActive := context.WithCancel(life)
	s.stopActive = stopActive
	go func() {
		if md, err := stream.Header(); err == nil {
			if v := md.Get(StreamIDHeader); len(v) == 1 {
				s.id = v[0]
			}
		}
		close(s.idDone)
		if !w.readActive(s, actx) {
			return
		}
		for range s.next {
			job, err := stream.Recv()
			s.results <- recvResult{job, err}
			if err != nil {
				return
			}
		}
	}()
	return s
}

// readActive is the reader's active phase: reserve a slot (so a busy worker
// stops reading and HTTP/2 flow control pushes back on the gateway), Recv,
// hand the job over, repeat. It returns false when the reader is done (Recv
// failed: the error went to results for the stream loop), true when the
// stream loop took the session over (the reader then serves next).
func (w *Worker) readActive(s *streamSession, actx context.Context) bool {
	defer close(s.left)
	for {
		err := w.ledger.ReserveStream(actx)
		s.mu.Lock()
		if err != nil || !s.active {
			if err == nil {
				w.ledger.DropStream() // reserved while being taken over
			}
			s.mu.Unlock()
			return true
		}
		s.reading = true
		s.readingSince.Store(time.Now().UnixNano())
		s.mu.Unlock()
		job, err := s.stream.Recv()
		s.mu.Lock()
		s.reading = false
		s.readingSince.Store(0)
		if !s.active {
			// taken over during the read: the stream loop dropped the
			// reservation and counts this result as the drain's first
			s.mu.Unlock()
			s.results <- recvResult{job, err}
			return err == nil
		}
		s.mu.Unlock()
		if err != nil {
			w.ledger.DropStream()
			s.results <- recvResult{nil, err}
			return false
		}
		s.nread.Add(1)
		if !s.gotJob.Load() {
			s.gotJob.Store(true)
		}
		if slot := w.ledger.ClaimStream(); slot != nil {
			w.exec.submit(item{job: job, slot: slot, activation: "push"})
		} else {
			w.exec.giveBack(job, "push", MsgAtCapacity)
		}
	}
}

// takeOver ends the active phase: from now on the stream is read only on
// request (s.read), as a drain does. A read in flight keeps going, its result
// becomes the first the stream loop takes; otherwise this waits until the
// reader has let go of the ledger, so a new stream's reader never shares the
// stream reservation with it.
func (w *Worker) takeOver(s *streamSession) {
	s.mu.Lock()
	s.active = false
	reading := s.reading
	s.mu.Unlock()
	s.stopActive()
	if reading {
		w.ledger.DropStream()
		s.pending = true
		return
	}
	<-s.left
}

func (s *streamSession) read() {
	if !s.pending && !s.failed {
		s.pending = true
		s.next <- struct{}{}
	}
}

func (s *streamSession) take(r recvResult) recvResult {
	s.pending = false
	if r.err != nil {
		s.failed = true
	} else {
		s.nread.Add(1)
	}
	return r
}

// streamLoop keeps a StreamActivatedJobs call open until the worker closes:
// reserve a slot, then Recv (so a busy worker stops reading and HTTP/2 flow
// control pushes back on the gateway), hand the job over, repeat. A stream that
// fails is reopened with backoff, forever, each reopen followed by a backfill
// poll; one the gateway ends cleanly is reopened at once (quietly); a healthy
// stream is recycled after streamTimeout, a stalled one at once, the new
// stream opened before the old one is drained. UNIMPLEMENTED switches the
// worker to polling alone.
func (w *Worker) streamLoop(ctx context.Context) {
	reason := ""
	var prev *streamSession
	var lastStall time.Time
	for {
		if ctx.Err() != nil {
			if prev != nil {
				w.drain(prev, w.closeDrainBudget(), MsgClosing)
			}
			return
		}
		end, err, s, lived := w.streamOnce(ctx, reason, prev, lastStall)
		prev = nil
		switch end {
		case endStop:
			w.setStreamOpen(false)
			if s != nil {
				w.drain(s, w.closeDrainBudget(), MsgClosing)
			}
			return
		case endRecycle:
			w.log.Debug("recycling job stream after streamTimeout")
			prev, reason = s, "recycled"
			continue
		case endStalled:
			w.log.Info("job stream stalled: a poll found jobs while the stream delivered nothing; recycling it",
				"silentFor", stallSilence.String())
			lastStall = time.Now()
			prev, reason = s, "stalled"
			continue
		case endClosed:
			w.setStreamOpen(false)
			reason = "closed"
			if lived < shortStream {
				wait := w.streamBackof.Next()
				w.log.Debug("job stream ended by the gateway right after opening; reopening after a backoff", "lived", lived, "wait", wait)
				if !sleep(ctx, wait) {
					return
				}
			} else {
				w.log.Debug("job stream ended by the gateway; reopening", "lived", lived)
			}
			continue
		}
		w.setStreamOpen(false)
		reason = "error"
		code := status.Code(err)
		decision := classifyActivation(callStream, code)
		if decision == activationPollingOnly {
			if _, seen := unimplementedOnce.LoadOrStore(w.cfg.JobType, true); !seen {
				w.log.Warn("gateway does not support job streaming; polling only", "err", err)
			}
			w.state.StreamUnsupported()
			return
		}
		w.state.StreamFailed()
		var wait = w.streamBackof.Next()
		if decision == activationMaxBackoffReport {
			wait = w.streamBackof.Max()
			w.log.Error("job stream failed; retrying at the maximum backoff", "err", err, "code", code.String())
			w.cfg.OnError(err)
		} else {
			w.log.Warn("job stream failed; reopening", "err", err, "code", code.String(), "wait", wait)
		}
		if !sleep(ctx, wait) {
			return
		}
	}
}

// streamOnce opens a stream (then drains prev, the stream it replaces, in the
// background) and reads it with a reserved slot per read until it ends.
func (w *Worker) streamOnce(ctx context.Context, reason string, prev *streamSession, lastStall time.Time) (streamEnd, error, *streamSession, time.Duration) {
	rpcCtx, cancel := context.WithCancel(context.Background()) // cancelled by the drain, never simply dropped
	stream, err := w.gw.Long.StreamActivatedJobs(rpcCtx, &pb.StreamActivatedJobsRequest{
		Type: w.cfg.JobType, Worker: w.cfg.WorkerName, Timeout: w.cfg.JobTimeout.Milliseconds(),
		FetchVariable: w.cfg.FetchVariables, TenantIds: w.cfg.TenantIDs,
	})
	if prev != nil {
		w.drains.Add(1) // the stream loop is still counted in loops: Close waits drains after loops
		go func() { defer w.drains.Done(); w.drain(prev, drainMax, MsgRecycled) }()
	}
	if err != nil {
		cancel()
		if ctx.Err() != nil {
			return endStop, nil, nil, 0
		}
		return endError, err, nil, 0
	}
	life, endLife := context.WithTimeout(ctx, w.cfg.StreamTimeout)
	defer endLife()
	s := w.newStreamSession(stream, cancel, life)
	opened := time.Now()
	w.setStreamOpen(true)
	if reason != "" {
		w.tel.Reconnect(reason)
		w.ledger.SetPollDue(true) // the backfill poll gets the next free slot
		select {                  // jobs that became activatable while the stream was down
		case w.backfil <- struct{}{}:
		default:
		}
	}
	w.state.StreamUp()
	defer func() { // a stream that delivered a job resets the backoff before its end is handled
		if s.gotJob.Load() {
			w.streamBackof.Reset()
		}
	}()
	for {
		select {
		case r := <-s.results: // only an error while the reader is active
			s.take(r)
			w.ledger.DropStream()
			cancel()
			if errors.Is(r.err, io.EOF) {
				return endClosed, nil, nil, time.Since(opened)
			}
			if ctx.Err() != nil {
				return endStop, nil, nil, time.Since(opened)
			}
			return endError, r.err, nil, time.Since(opened)
		case <-life.Done():
			w.takeOver(s)
			if ctx.Err() != nil {
				return endStop, nil, s, time.Since(opened)
			}
			return endRecycle, nil, s, time.Since(opened)
		case <-w.pollFound:
			since := s.readingSince.Load()
			if since != 0 && time.Since(time.Unix(0, since)) >= stallSilence && time.Since(lastStall) >= stallMinGap {
				w.takeOver(s)
				return endStalled, nil, s, time.Since(opened)
			}
		}
	}
}

// pollFoundJobs tells the stall watchdog that a poll (not a backfill) returned
// jobs.
func (w *Worker) pollFoundJobs() {
	select {
	case w.pollFound <- struct{}{}:
	default:
	}
}

// closeDrainBudget is how long a stream may drain at close: drainMax, as at
// a recycle, whatever the close timeout (push and poll, rule 7). The timeout
// bounds the wait for running handlers; a drain cut at a short timeout left
// jobs that had reached the worker's process to their activation timeout on a
// gateway without ReleaseUnread (Java: 60-68 of 78 in 4 of 15 loaded runs).
func (w *Worker) closeDrainBudget() time.Duration { return drainMax }

// drain keeps reading a stream the worker no longer runs jobs from and sets
// every job aside, until it has been quiet for drainQuiet or budget has passed;
// then it cancels the stream and only then hands every job set aside back
// (retries unchanged, no backoff, msg), so the engine cannot push them into
// the stream being drained.
func (w *Worker) drain(s *streamSession, budget time.Duration, msg string) {
	var aside []*pb.ActivatedJob
	quiet := time.NewTimer(drainQuiet)
	limit := time.NewTimer(budget)
	defer quiet.Stop()
	defer limit.Stop()
loop:
	for !s.failed {
		s.read()
		select {
		case r := <-s.results:
			if r = s.take(r); r.err != nil {
				break loop
			}
			aside = append(aside, r.job)
			quiet.Reset(drainQuiet)
		case <-quiet.C:
			break loop
		case <-limit.C:
			break loop
		}
	}
	s.cancel()
	if s.pending {
		if r := s.take(<-s.results); r.err == nil {
			aside = append(aside, r.job)
		}
	}
	close(s.next)
	w.releaseUnread(s)
	if len(aside) > 0 {
		w.log.Debug("drained job stream; handing jobs back", "count", len(aside), "reason", msg)
	}
	for _, j := range aside {
		w.exec.giveBack(j, "push", msg)
	}
}

// releaseUnread asks a jobwire gateway to hand back the jobs the (cancelled)
// stream sent that the worker never read: those still in transport when the
// drain ended (docs/worker-semantics.md, push and poll rule 7). s.nread is
// final: the stream is cancelled and its last read taken, and nothing read
// after that point is ever run. A gateway without the stream id header (real
// Zeebe) is not asked; any error is logged at debug level (those jobs return
// after their activation timeout).
func (w *Worker) releaseUnread(s *streamSession) {
	if w.gw.Control == nil {
		return
	}
	select {
	case <-s.idDone:
	case <-time.After(releaseMax):
	}
	select {
	case <-s.idDone:
	default:
		return // headers never came
	}
	if s.id == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), releaseMax)
	defer cancel()
	r, err := w.gw.Control.ReleaseUnread(ctx, &streampb.ReleaseUnreadRequest{StreamId: s.id, MessagesRead: s.nread.Load()})
	if err != nil {
		w.log.Debug("could not release the job stream's unread jobs; they return after their activation timeout",
			"err", err, "read", s.nread.Load())
		return
	}
	if r.Released > 0 {
		w.log.Debug("released the job stream's unread jobs", "released", r.Released, "sent", r.MessagesSent, "read", s.nread.Load())
	}
}

// setStreamOpen records whether a job stream is open and, when that changes,
// wakes the poller: fairness polls apply only while pushing.
func (w *Worker) setStreamOpen(open bool) {
	if w.streamOpen.Swap(open) != open {
		w.ledger.Poke()
	}
}
