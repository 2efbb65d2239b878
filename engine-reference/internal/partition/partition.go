// Package partition is one partition of the engine: a single goroutine that
// owns the partition's state and processes commands in batches over a
// durable log (group commit: one fsync per batch, replies only after it).
package partition

import (
	"container/heap"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
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
	Defs    *Registry
	Hooks   Hooks
	Logger  *slog.Logger
	// Observer, if set, is told about every committed batch (live view).
	Observer Observer
}

// Partition processes commands for one partition.
type Partition struct {
	cfg     Config
	st      *State
	log     *wal.Log
	queue   chan *Command
	stop    chan struct{}
	done    chan struct{}
	timers  timerHeap
	timer   *time.Timer
	waiters map[int64][]*Command // CreateProcessInstanceWithResult
	lastNow int64
	// counters
	processed atomic.Int64
	active    atomic.Int64
	activat   atomic.Int64
	activated atomic.Int64
	closed    atomic.Bool
}

// MaxBatch bounds how many queued commands share one fsync.
const MaxBatch = 1024

// Open replays the partition's log and returns it ready to Run.
func Open(cfg Config) (*Partition, error) {
	dir := filepath.Join(cfg.DataDir, fmt.Sprintf("partition-%d", cfg.ID))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	p := &Partition{cfg: cfg, st: newState(cfg.ID, cfg.Defs), queue: make(chan *Command, 8192),
		stop: make(chan struct{}), done: make(chan struct{}), waiters: map[int64][]*Command{}}
	l, err := wal.Open(filepath.Join(dir, "log"), cfg.NoSync, func(b []byte) error {
		var c Command
		if err := json.Unmarshal(b, &c); err != nil {
			return err
		}
		c.replaying = true
		fx := &effects{}
		if err := p.process(&c, fx); err != nil && cfg.Logger != nil {
			cfg.Logger.Warn("replayed command rejected", "partition", cfg.ID, "op", c.Op, "err", err)
		}
		if c.Now > p.lastNow {
			p.lastNow = c.Now
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	p.log = l
	if cfg.Observer != nil {
		p.st.touched = newTouchSet()
	}
	p.rebuildTimers()
	p.refreshGauges()
	return p, nil
}

// ID returns the partition id.
func (p *Partition) ID() int32 { return p.cfg.ID }

// Run processes commands until Close.
func (p *Partition) Run() {
	defer close(p.done)
	p.timer = time.NewTimer(time.Hour)
	p.armTimer()
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

type pushOut struct {
	t   PushTarget
	job *gatewaypb.ActivatedJob
}

// effects are the side effects of a batch, run only after it is durable.
type effects struct {
	pushes  []pushOut
	notify  map[string]bool
	results []func()
}

func (fx *effects) notifyType(t string) {
	if fx.notify == nil {
		fx.notify = map[string]bool{}
	}
	fx.notify[t] = true
}

func (p *Partition) processBatch(batch []*Command) {
	now := time.Now().UnixMilli()
	if now < p.lastNow {
		now = p.lastNow // never let time run backwards across restarts
	}
	p.lastNow = now
	fx := &effects{}
	type answer struct {
		c *Command
		r Result
	}
	answers := make([]answer, 0, len(batch))
	var queries []*Command
	for _, c := range batch {
		if c.Op == OpQuery {
			queries = append(queries, c)
			continue
		}
		if c.Now == 0 {
			c.Now = now
		}
		resp, err := p.safeProcess(c, fx)
		if err == nil && p.changesState(c) {
			b, merr := json.Marshal(c)
			if merr == nil {
				merr = p.log.Append(b)
			}
			if merr != nil {
				p.fatal(merr)
			}
		}
		answers = append(answers, answer{c, Result{resp, err}})
	}
	if err := p.log.Sync(); err != nil {
		p.fatal(err)
	}
	p.processed.Add(int64(len(answers)))
	p.refreshGauges()
	committedAt := time.Now() // the batch is durable from here on
	for _, a := range answers {
		if a.c.reply != nil {
			a.c.reply <- a.r
		}
	}
	for _, f := range fx.results {
		f()
	}
	for _, po := range fx.pushes {
		po.t.Deliver(po.job)
	}
	if p.cfg.Hooks != nil {
		for t := range fx.notify {
			p.cfg.Hooks.JobsAvailable(t)
		}
	}
	if p.cfg.Observer != nil {
		acc := make([]Accepted, 0, len(answers))
		for _, a := range answers {
			if a.r.Err == nil {
				acc = append(acc, Accepted{a.c, a.r.Resp})
			}
		}
		p.observe(committedAt, acc)
	}
	for _, q := range queries {
		q.Query(p.st)
		q.reply <- Result{}
	}
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
	return Stats{ID: p.cfg.ID, LogPosition: p.log.Records(), Batches: p.log.Batches(), Fsyncs: p.log.Fsyncs(),
		ActiveInstances: p.active.Load(), Activatable: p.activat.Load(), Activated: p.activated.Load()}
}

// ---- timers ----

type timerEntry struct {
	at   int64
	key  int64
	kind string
}

type timerHeap []timerEntry

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].at < h[j].at }
func (h timerHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)        { *h = append(*h, x.(timerEntry)) }
func (h *timerHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (p *Partition) addTimer(at, key int64, kind string) {
	heap.Push(&p.timers, timerEntry{at, key, kind})
}

func (p *Partition) rebuildTimers() {
	p.timers = p.timers[:0]
	for _, j := range p.st.Jobs {
		switch j.State {
		case JobActivated:
			p.addTimer(j.Deadline, j.Key, OpTimeOut)
		case JobFailedBackoff:
			p.addTimer(j.RecurAt, j.Key, OpRecur)
		}
	}
}

func (p *Partition) armTimer() {
	if p.timer == nil {
		return
	}
	if !p.timer.Stop() {
		select {
		case <-p.timer.C:
		default:
		}
	}
	if len(p.timers) == 0 {
		p.timer.Reset(time.Hour)
		return
	}
	d := time.Until(time.UnixMilli(p.timers[0].at))
	if d < 0 {
		d = 0
	}
	p.timer.Reset(d + time.Millisecond)
}

// dueTimers turns expired timers into commands. Stale entries (the job moved
// on) are dropped here; processing checks the state again anyway.
func (p *Partition) dueTimers(batch []*Command) []*Command {
	now := time.Now().UnixMilli()
	for len(p.timers) > 0 && p.timers[0].at <= now && len(batch) < MaxBatch {
		e := heap.Pop(&p.timers).(timerEntry)
		j := p.st.Jobs[e.key]
		if j == nil {
			continue
		}
		switch e.kind {
		case OpTimeOut:
			if j.State == JobActivated && j.Deadline == e.at {
				batch = append(batch, &Command{Op: OpTimeOut, Key: j.Key, Deadline: j.Deadline})
			}
		case OpRecur:
			if j.State == JobFailedBackoff && j.RecurAt == e.at {
				batch = append(batch, &Command{Op: OpRecur, Key: j.Key})
			}
		}
	}
	return batch
}
