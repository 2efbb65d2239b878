// Package partition is one partition of the engine: a single goroutine that
// owns the partition's state and processes commands in batches over a
// durable log (group commit: one fsync per batch, replies only after it).
package partition

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"github.com/jobwire/jobwire/engine-reference/internal/wal"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// PushTarget is a push stream reserved for one job while a command is
// processed. The stream was idle (its transport ready) when reserved; the
// job is delivered after the batch commits.
type PushTarget interface {
	Worker() string
	Timeout() int64
	FetchVariables() []string
	Deliver(job *gatewaypb.ActivatedJob)
}

// Hooks connects a partition to the gateway side: push streams and the
// jobs-available notification that wakes parked long polls.
type Hooks interface {
	// ReservePush returns a ready stream for the type, or nil; hadStreams
	// reports whether matching streams existed at all (then the job counts
	// as yielded).
	ReservePush(jobType, tenantID string) (t PushTarget, hadStreams bool)
	JobsAvailable(jobType string)
}

// Config configures a partition.
type Config struct {
	ID      int32
	Count   int32
	DataDir string
	NoSync  bool // tests only: skip fsync
	History int  // finished instances/jobs kept for the admin API (0: DefaultHistory)
	Defs    *Registry
	Hooks   Hooks
	Logger  *slog.Logger
	// Observer, if set, is told about every committed batch (live view).
	Observer Observer
	// Clock is the engine clock (nil: wall time); the partitions of one
	// engine process share it.
	Clock *Clock
}

// Partition processes commands for one partition.
type Partition struct {
	cfg        Config
	st         *State
	log        *wal.Log
	queue      chan *Command
	stop       chan struct{}
	done       chan struct{}
	timers     timerHeap
	timersMax  int // heap size that triggers dropping stale entries (compactTimers)
	rebuilding bool
	timer      *time.Timer
	waiters    map[int64][]*Command // CreateProcessInstanceWithResult
	lastNow    int64
	dir        string
	segment    int64                   // current log segment
	logp       atomic.Pointer[wal.Log] // p.log, for Stats from other goroutines
	base       atomic.Int64            // log records before the current segment
	fsyncBase  atomic.Int64
	batchBase  atomic.Int64
	snapshots  atomic.Int64
	snapBytes  atomic.Int64 // size of the last snapshot written or loaded
	histBytes  atomic.Int64 // size of the history part of the last snapshot written
	histCache  histCache    // encoded history entries (snapLoop; Close after it stopped)
	// pipelined commit (commitLoop)
	commits       chan *pendingBatch
	committerDone chan struct{}
	// background snapshot writes (snapLoop)
	snapJobs    chan *snapJob // committer → snapshot writer, in log order
	snapBusy    chan struct{} // holds a token while a snapshot is being written
	snapperDone chan struct{}
	// counters
	processed atomic.Int64
	active    atomic.Int64
	activat   atomic.Int64
	activated atomic.Int64
	closed    atomic.Bool
	// commands to other partitions (forward.go)
	outMu sync.Mutex
	out   *outboxQ
	// recovery applied event state changes (the element index is rebuilt)
	eventsApplied bool
	// VerifyResults: a state built only by applying the results records
	shadow *Partition
	// due commands the timer heap produced (AdvanceClock's count)
	fired atomic.Int64
	// the highest definition key a replayed reset record drops (reset.go)
	replayDefsUpTo int64
}

// MaxBatch bounds how many queued commands share one fsync.
const MaxBatch = 1024

// Open restores the partition from its snapshot and log and returns it
// ready to Run.
func Open(cfg Config) (*Partition, error) {
	dir := filepath.Join(cfg.DataDir, fmt.Sprintf("partition-%d", cfg.ID))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	p := &Partition{cfg: cfg, dir: dir, st: newState(cfg.ID, cfg.Defs, cfg.History), queue: make(chan *Command, 8192),
		stop: make(chan struct{}), done: make(chan struct{}), waiters: map[int64][]*Command{},
		commits: make(chan *pendingBatch, 64), committerDone: make(chan struct{}),
		snapJobs: make(chan *snapJob, 1), snapBusy: make(chan struct{}, 1), snapperDone: make(chan struct{})}
	start := int64(0)
	snap, err := readSnapshotFile(filepath.Join(dir, "snapshot"))
	if err != nil {
		return nil, fmt.Errorf("partition %d: %w", cfg.ID, err)
	}
	if snap != nil {
		d, err := p.loadSnapshot(snap)
		if err != nil {
			return nil, fmt.Errorf("partition %d: %s: %w", cfg.ID, filepath.Join(dir, "snapshot"), err)
		}
		start = d.Segment
		p.snapBytes.Store(int64(len(snap)))
		p.base.Store(d.Position)
	}
	segs, err := listSegments(dir)
	if err != nil {
		return nil, err
	}
	var replay []int64
	for _, n := range segs {
		if n < start {
			// Compacted into the snapshot; left behind by a crash right
			// after the snapshot was written.
			if err := os.Remove(segmentPath(dir, n)); err != nil {
				return nil, err
			}
			continue
		}
		if len(replay) > 0 && n != replay[len(replay)-1]+1 {
			return nil, fmt.Errorf("partition %d: log segment %d is missing before %s; refusing to start", cfg.ID, replay[len(replay)-1]+1, segmentPath(dir, n))
		}
		replay = append(replay, n)
	}
	if len(replay) > 0 && snap != nil && replay[0] != start {
		return nil, fmt.Errorf("partition %d: log segment %s (the first after the snapshot) is missing; refusing to start", cfg.ID, segmentPath(dir, start))
	}
	if len(replay) == 0 {
		if start == 0 {
			start = 1 // a new data dir starts with segment 1 (segment 0 is format 1's single file)
		}
		replay = []int64{start}
	}
	apply := func(b []byte) error {
		if bytes.HasPrefix(b, resetPrefix) {
			return p.applyResetBytes(b)
		}
		if bytes.HasPrefix(b, resultsPrefix) || bytes.HasPrefix(b, resultsPrefixV2) {
			// Versions 2 and 3: the command's results, applied as data.
			return p.applyResults(b)
		}
		var h struct {
			V  int    `json:"v"`
			Op string `json:"op"`
		}
		if err := json.Unmarshal(b, &h); err != nil {
			return err
		}
		if h.V > RecordVersion {
			return fmt.Errorf("log record version %d is newer than this engine reads (up to %d): the log was written by a later engine version; start that version (nothing was changed)", h.V, RecordVersion)
		}
		if h.V > CommandRecordVersion {
			return fmt.Errorf("log record of version %d is not a results record (op %q); the log is damaged or was not written by jobwire-engine (nothing was changed)", h.V, h.Op)
		}
		var c Command
		if err := json.Unmarshal(b, &c); err != nil {
			return err
		}
		// Versions 0 and 1: a command, replayed through the processors.
		c.replaying = true
		fx := &effects{}
		if err := p.process(&c, fx); err != nil && cfg.Logger != nil {
			cfg.Logger.Warn("replayed command rejected", "partition", cfg.ID, "op", c.Op, "err", err)
		}
		if c.Now > p.lastNow {
			p.lastNow = c.Now
		}
		if c.KeyMark > p.st.counter {
			// Keys never go back, even if today's code rejects or
			// processes a logged command differently than when it was
			// first accepted.
			p.st.counter = c.KeyMark
		}
		return nil
	}
	for i, n := range replay {
		last := i == len(replay)-1
		l, err := wal.OpenSegment(segmentPath(dir, n), cfg.NoSync, last, apply)
		if err != nil {
			return nil, fmt.Errorf("partition %d: %w", cfg.ID, err)
		}
		if r := l.Repaired; r != nil {
			msg := fmt.Sprintf("partition %d: repaired a torn log tail (a crash during an append; nothing in it was acknowledged): cut %d bytes at offset %d of %s (%s)",
				cfg.ID, r.Dropped, r.Offset, segmentPath(dir, n), r.Reason)
			if cfg.Logger != nil {
				cfg.Logger.Warn(msg)
			} else {
				fmt.Fprintln(os.Stderr, "jobwire-engine:", msg)
			}
		}
		if !last {
			p.base.Add(l.Records())
			l.Close()
			continue
		}
		p.log, p.segment = l, n
		p.logp.Store(l)
	}
	if p.eventsApplied {
		p.st.events = p.st.evs().fill() // the element index of timers and subscriptions
	}
	p.st.rt = newResultsTracker()
	if cfg.Observer != nil {
		p.st.touched = newTouchSet()
	}
	p.rebuildTimers()
	if VerifyResults {
		if err := p.startShadow(); err != nil {
			return nil, fmt.Errorf("partition %d: VerifyResults: %w", cfg.ID, err)
		}
	}
	p.resendAfterRestart()
	p.refreshGauges()
	return p, nil
}

// ID returns the partition id.
func (p *Partition) ID() int32 { return p.cfg.ID }

// Run processes commands until Close.
func (p *Partition) Run() {
	p.DropResetDefs()
	go p.commitLoop()
	go p.snapLoop()
	defer func() {
		// Every processed batch is made durable and answered, and the
		// snapshot being written is finished, before the partition reports
		// that it stopped.
		close(p.commits)
		<-p.committerDone
		<-p.snapperDone
		close(p.done)
	}()
	p.timer = time.NewTimer(time.Hour)
	p.armTimer()
	p.startForwarding()
	batch := make([]*Command, 0, MaxBatch)
	for {
		batch = batch[:0]
		select {
		case <-p.stop:
			return
		case c := <-p.queue:
			batch = append(batch, c)
		drain:
			for len(batch) < MaxBatch {
				select {
				case c := <-p.queue:
					batch = append(batch, c)
				default:
					break drain
				}
			}
		case <-p.timer.C:
			batch = p.dueTimers(batch)
		}
		p.processBatch(batch)
		p.armTimer()
	}
}

// CloseTimeout bounds how long Close waits for the partition goroutine.
const CloseTimeout = time.Second

// Close stops the loop and closes the log. It never waits longer than
// CloseTimeout: a partition goroutine that does not stop (a bug, or a
// stuck disk) must not keep the process from exiting. Its log is then left
// open (the process is going away; replay truncates a torn tail).
func (p *Partition) Close() error {
	if p.closed.Swap(true) {
		return nil
	}
	close(p.stop)
	t := time.NewTimer(CloseTimeout)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		return fmt.Errorf("partition %d did not stop within %v", p.cfg.ID, CloseTimeout)
	}
	if p.log.Records() > 0 {
		// A clean shutdown leaves a snapshot and an empty segment: the next
		// start applies no log record at all.
		p.snapshot()
	}
	return p.log.Close()
}

// Submit enqueues a command and waits for its result.
func (p *Partition) Submit(ctx context.Context, c *Command) (any, error) {
	if p.closed.Load() {
		return nil, status.Error(codes.Unavailable, "partition is shutting down")
	}
	c.reply = make(chan Result, 1)
	select {
	case p.queue <- c:
	case <-ctx.Done():
		return nil, status.FromContextError(ctx.Err()).Err()
	case <-p.stop:
		return nil, status.Error(codes.Unavailable, "partition is shutting down")
	}
	select {
	case r := <-c.reply:
		return r.Resp, r.Err
	case <-p.done:
		return nil, status.Error(codes.Unavailable, "partition is shutting down")
	}
}

// SubmitWithResult creates an instance and returns a channel that yields
// the result when the instance completes.
func (p *Partition) SubmitWithResult(ctx context.Context, c *Command) (any, <-chan Result, error) {
	c.WithResult = true
	c.result = make(chan Result, 1)
	resp, err := p.Submit(ctx, c)
	return resp, c.result, err
}

// Post enqueues a command without waiting (timers, yields, fail-backs).
func (p *Partition) Post(c *Command) {
	if p.closed.Load() {
		return
	}
	select {
	case p.queue <- c:
	case <-p.stop:
	}
}

// Query runs fn on the partition goroutine, after the current batch.
func (p *Partition) Query(ctx context.Context, fn func(*State)) error {
	_, err := p.Submit(ctx, &Command{Op: OpQuery, Query: fn})
	return err
}

func (p *Partition) processBatch(batch []*Command) {
	now := p.cfg.Clock.Now()
	if now < p.lastNow {
		now = p.lastNow // never let time run backwards across restarts
	}
	p.lastNow = now
	fx := &effects{}
	answers := make([]answer, 0, len(batch))
	var queries, ticks []*Command
	for _, c := range batch {
		if c.Op == OpTick {
			ticks = append(ticks, c)
		}
	}
	fired, more := 0, false
	if len(ticks) > 0 {
		// AdvanceClock, SetClock: what is due now is processed in this
		// batch, and the ticks are answered after it.
		n := len(batch)
		batch = p.dueTimers(batch)
		fired = len(batch) - n
		more = len(p.timers) > 0 && p.timers[0].at <= p.cfg.Clock.Now() // a full batch left some
	}
	snap := false
	for _, c := range batch {
		if c.Op == OpQuery {
			queries = append(queries, c)
			continue
		}
		if c.Op == OpTick {
			continue
		}
		if c.Op == OpSnapshot {
			snap = true
			continue
		}
		if c.Op == OpReset {
			resp, err := p.reset(c, fx)
			answers = append(answers, answer{c, Result{resp, err}})
			now = p.lastNow // the rest of the batch runs on the reset clock
			continue
		}
		if c.Now == 0 {
			c.Now = now
		}
		counter := p.st.counter
		resp, err := p.safeProcess(c, fx)
		p.logResults(c, err, counter)
		answers = append(answers, answer{c, Result{resp, err}})
	}
	wrote, err := p.log.Flush()
	if err != nil {
		p.fatal(err)
	}
	p.processed.Add(int64(len(answers)))
	p.refreshGauges()
	// Admin reads see the state after this batch (they are not logged).
	for _, q := range queries {
		q.reply <- p.safeQuery(q)
	}
	var obs *CommittedBatch
	if p.cfg.Observer != nil {
		// The views are built here, on the partition goroutine that owns the
		// state; the committer hands them to the observer once durable.
		acc := make([]Accepted, 0, len(answers))
		for _, a := range answers {
			if a.r.Err == nil {
				acc = append(acc, Accepted{a.c, a.r.Resp})
			}
		}
		obs = p.observation(acc)
	}
	p.commit(&pendingBatch{log: p.log, wrote: wrote, answers: answers, fx: fx, obs: obs, ticks: ticks, fired: fired, more: more})
	if p.shadow != nil {
		p.verifyBatch()
	}
	p.compactTimers()
	if snap || p.snapshotDue() {
		// snap: after a reset (OpSnapshot), the snapshot of the empty
		// state compacts the log (the reset record alone already makes the
		// reset durable).
		p.startSnapshot()
	}
}

// logResults appends the results record of the command just processed:
// what it changed, as data (results.go). A command that changed nothing
// (an activation that found no job) costs no I/O. A rejected command
// changes nothing by contract and is not logged, unless it took keys
// (they are never handed out again) — or it panicked: then whatever it
// changed before it failed is logged, so recovery restores exactly the
// state the partition went on with.
func (p *Partition) logResults(c *Command, err error, counter int64) {
	rt := p.st.rt
	if err != nil && !c.panicked && p.st.counter == counter {
		rt.reset()
		return
	}
	if rt.empty() && p.st.counter == counter {
		return
	}
	b, merr := p.encodeResults(c.Now)
	if merr == nil {
		merr = p.log.Append(b)
	}
	if merr != nil {
		p.fatal(merr)
	}
	if p.shadow != nil {
		p.verifyApply(b)
	}
}

// safeQuery runs an admin read; a nil or panicking read is answered with an
// error instead of taking the partition goroutine (and the process) down.
func (p *Partition) safeQuery(q *Command) (r Result) {
	if q.Query == nil {
		return Result{Err: status.Error(codes.InvalidArgument, "a query command needs a query function (it cannot come from the wire)")}
	}
	defer func() {
		if x := recover(); x != nil {
			if p.cfg.Logger != nil {
				p.cfg.Logger.Error("panic in partition query", "partition", p.cfg.ID, "panic", x)
			}
			r = Result{Err: status.Errorf(codes.Internal, "internal error in query: %v", x)}
		}
	}()
	q.Query(p.st)
	return Result{}
}

// changesState reports whether an accepted command must be logged. An
// activation that found no jobs changes nothing and costs no I/O.
func (p *Partition) changesState(c *Command) bool {
	switch c.Op {
	case OpActivate:
		return len(c.JobKeys) > 0
	}
	return true
}

func (p *Partition) safeProcess(c *Command, fx *effects) (resp any, err error) {
	defer func() {
		if r := recover(); r != nil {
			// A bug must not take the whole engine down; the command is
			// answered INTERNAL. State may be partially updated, which is
			// why this is logged loudly.
			if p.cfg.Logger != nil {
				p.cfg.Logger.Error("panic while processing command", "op", c.Op, "panic", r)
			}
			resp, err = nil, status.Errorf(codes.Internal, "internal error processing %s: %v", c.Op, r)
			c.panicked = true
		}
	}()
	return p.processLive(c, fx)
}

func (p *Partition) processLive(c *Command, fx *effects) (any, error) {
	return p.dispatch(c, fx)
}

// process is used by replay.
func (p *Partition) process(c *Command, fx *effects) error {
	_, err := p.dispatch(c, fx)
	return err
}

func (p *Partition) fatal(err error) {
	// The state has moved past what is durable; continuing would acknowledge
	// commands that a restart forgets. Stop hard, as a broker would.
	fmt.Fprintf(os.Stderr, "jobwire-engine: partition %d: log write failed: %v\n", p.cfg.ID, err)
	os.Exit(70)
}

func (p *Partition) refreshGauges() {
	p.active.Store(p.st.activeInstances)
	p.activat.Store(p.st.jobsByState[JobActivatable])
	p.activated.Store(p.st.jobsByState[JobActivated])
}

// Stats are the partition counters for the admin API.
type Stats struct {
	ID                     int32
	LogPosition            int64
	Batches, Fsyncs        int64
	ActiveInstances        int64
	Activatable, Activated int64
}

// Stats returns current counters (safe from any goroutine).
func (p *Partition) Stats() Stats {
	l := p.logp.Load()
	return Stats{ID: p.cfg.ID, LogPosition: p.base.Load() + l.Records(), Batches: p.batchBase.Load() + l.Batches(), Fsyncs: p.fsyncBase.Load() + l.Fsyncs(),
		ActiveInstances: p.active.Load(), Activatable: p.activat.Load(), Activated: p.activated.Load()}
}
