package partition

import (
	"encoding/json"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Admin commands for test kits: OpTick processes what is due at the engine
// clock's current time (AdvanceClock, SetClock), OpReset drops the
// partition's state (ResetState). Neither comes from the wire.
const (
	// OpTick turns every due timer, job time-out and retry back-off into
	// commands processed in the tick's own batch. Not logged itself (the
	// commands it fires are). Answered with a TickResult once the batch is
	// durable and its side effects ran.
	OpTick = "tick"
	// OpReset drops everything clients created on the partition. Logged as
	// a reset record, so replay drops it too; a snapshot of the empty state
	// follows right after the reply, compacting the log. Command.Key carries the highest
	// process definition key the reset drops from the shared registry
	// (definitions are created by partition 1, which answers with its own
	// bound when Key is 0). Answered with that bound (int64).
	OpReset = "reset"
	// OpSnapshot asks for a snapshot after the batch. ResetState posts it
	// to every partition once all of them answered their reset, so no
	// reset waits for another partition's snapshot I/O. Not logged.
	OpSnapshot = "snapshot"
)

// ResetSnapshot: ResetState asks every partition for a snapshot once all
// resets are answered (compacting the log). Tests turn it off to recover
// from the reset record itself.
var ResetSnapshot = true

// TickResult answers OpTick.
type TickResult struct {
	// Fired is the number of due commands the tick processed.
	Fired int
	// Pending is the number of commands for other partitions still waiting
	// in this partition's outbox after the batch (not yet in their queue).
	Pending int
	// More: due entries were left for a later batch (the batch was full).
	More bool
	// Processed is the partition's count of commands processed so far.
	Processed int64
}

// resetPrefix starts every reset record (the encoder writes the fields in
// struct order), told apart from results records without decoding.
var resetPrefix = []byte(`{"v":3,"op":"reset",`)

// resetRecord is the log record of OpReset (record version 3).
type resetRecord struct {
	V        int    `json:"v"`
	Op       string `json:"op"`
	Now      int64  `json:"now"`
	Counter  int64  `json:"counter"`
	Seq      int64  `json:"seq"`
	DefsUpTo int64  `json:"defsUpTo"`
}

// reset processes OpReset (on the partition goroutine).
func (p *Partition) reset(c *Command, fx *effects) (any, error) {
	bound := c.Key
	if p.cfg.ID == 1 {
		bound = max(bound, int64(1)<<KeyBits|p.st.counter)
	}
	r := resetRecord{V: RecordVersion, Op: OpReset, Now: p.cfg.Clock.Now(), Counter: p.st.counter, Seq: p.st.seq, DefsUpTo: bound}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "reset record: %v", err)
	}
	if err := p.log.Append(b); err != nil {
		p.fatal(err)
	}
	// What the batch did before the reset goes with the state: no pushes of
	// dropped jobs, no commands about dropped instances to other partitions.
	fx.pushes, fx.forwards = nil, nil
	for _, ws := range p.waiters {
		for _, w := range ws {
			fx.results = append(fx.results, func() {
				w.result <- Result{Err: status.Error(codes.Aborted, "the engine's state was reset (admin ResetState) before the process instance completed")}
			})
		}
	}
	p.waiters = map[int64][]*Command{}
	o := p.outbox()
	o.mu.Lock()
	o.q = nil
	o.mu.Unlock()
	p.applyReset(r, true)
	if p.shadow != nil {
		p.shadow.applyReset(r, true)
	}
	return bound, nil
}

// applyReset replaces the state with an empty one (processing and replay).
// Keys keep counting (a key is never handed out twice); the processing
// clock restarts at the reset's time (the clock offset went back to 0).
//
// The definitions are dropped from the shared registry at once when live;
// during replay only once every partition sharing it has replayed (at the
// start of Run): partitions replay in parallel, and another one may still
// be applying records from before its own reset that refer to them.
func (p *Partition) applyReset(r resetRecord, live bool) {
	old := p.st
	st := newState(p.cfg.ID, p.cfg.Defs, p.cfg.History)
	st.counter, st.seq = max(old.counter, r.Counter), max(old.seq, r.Seq)
	st.rt, st.touched = old.rt, old.touched
	if st.rt != nil {
		st.rt.reset()
	}
	p.st = st
	if !live {
		p.replayDefsUpTo = max(p.replayDefsUpTo, r.DefsUpTo)
	} else if p.cfg.Defs != nil {
		p.cfg.Defs.dropUpTo(r.DefsUpTo)
	}
	p.lastNow = r.Now
	p.timers = nil
	p.eventsApplied = false
}

// DropResetDefs drops from the shared registry the definitions a replayed
// reset record dropped. Call it once every partition sharing the registry
// has opened (replayed), before any runs; Run calls it too (a no-op then).
func (p *Partition) DropResetDefs() {
	if p.replayDefsUpTo > 0 && p.cfg.Defs != nil {
		p.cfg.Defs.dropUpTo(p.replayDefsUpTo)
	}
	p.replayDefsUpTo = 0
}

// applyResetBytes applies a reset record read from the log.
func (p *Partition) applyResetBytes(b []byte) error {
	var r resetRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return err
	}
	p.applyReset(r, false)
	return nil
}

// dropUpTo removes every definition whose key is at most bound.
func (r *Registry) dropUpTo(bound int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.gone {
		if k <= bound {
			delete(r.gone, k)
		}
	}
	for k, d := range r.byKey {
		if k > bound {
			continue
		}
		delete(r.byKey, k)
		list := r.byID[d.BpmnProcessID][:0:0]
		for _, x := range r.byID[d.BpmnProcessID] {
			if x.Key != k {
				list = append(list, x)
			}
		}
		if len(list) == 0 {
			delete(r.byID, d.BpmnProcessID)
		} else {
			r.byID[d.BpmnProcessID] = list
		}
	}
}

// DefsUpTo is the highest process definition key in the partition's
// registry (0 when empty): the bound an OpReset of every partition sharing
// the registry drops.
func (p *Partition) DefsUpTo() int64 {
	if p.cfg.Defs == nil {
		return 0
	}
	r := p.cfg.Defs
	r.mu.RLock()
	defer r.mu.RUnlock()
	var m int64
	for k := range r.byKey {
		m = max(m, k)
	}
	return m
}

// Fired counts the due timer events, job time-outs and retry back-offs the
// partition turned into commands so far (safe from any goroutine).
func (p *Partition) Fired() int64 { return p.fired.Load() }

// Clock returns the engine clock the partition reads.
func (p *Partition) Clock() *Clock { return p.cfg.Clock }

// LastNow is the processing time of the last batch (epoch ms). Read it
// before Run (after Open) only.
func (p *Partition) LastNow() int64 { return p.lastNow }

// OutboxLen is the number of commands for other partitions not yet handed
// to their queue.
func (p *Partition) outboxLen() int {
	o := p.outbox()
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.q)
}
