package partition

import (
	"container/heap"
	"fmt"
	"sort"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/bpmn"
	"github.com/jobwire/jobwire/engine-reference/internal/feel"
)

// Timers: timer start events (partition 1, the deployment partition, as in
// Zeebe), intermediate timer catch events and timer boundary events on
// tasks. A timer is state (TimerInst, in the snapshot); the partition's
// timer heap only *enqueues* an OpTimerFire command when it is due, and
// firing happens when that command is processed and logged, so replay
// repeats exactly what happened (the same way job time-outs work). A fire
// command names the due time it refers to: a timer that was canceled or
// rescheduled meanwhile (the task completed first) makes it a no-op
// rejection, which is not logged.

// OpTimerFire is the internal command of a due timer.
const OpTimerFire = "timerfire"

// TimerInst is a scheduled timer.
type TimerInst struct {
	Key         int64  `json:"key"`
	DefKey      int64  `json:"def"`            // timer start events: the definition
	InstanceKey int64  `json:"inst,omitempty"` // 0 for timer start events
	ElemKey     int64  `json:"elem,omitempty"` // the waiting catch event, or the task a boundary is attached to
	ElementID   string `json:"el"`             // the timer event
	Due         int64  `json:"due"`            // epoch ms
	Interval    int64  `json:"every,omitempty"`
	Remaining   int    `json:"left"` // firings left including the next one; -1 unbounded
}

func init() {
	intents[OpTimerFire] = "TRIGGER"
}

// timerDue computes a timer's first due time from its definition at now.
func timerDue(def *bpmn.EventDef, look feel.Lookup, now int64) (bpmn.Timer, error) {
	text := def.TimerText
	if def.TimerExpr != nil {
		s, err := def.TimerExpr.EvalString(look)
		if err != nil {
			return bpmn.Timer{}, err
		}
		text = s
	}
	return bpmn.ParseTimer(def.TimerKind, text, time.UnixMilli(now))
}

// scheduleTimer registers a timer (state + heap).
func (p *Partition) scheduleTimer(t *TimerInst) {
	ev := p.st.evs()
	ev.Timers[t.Key] = t
	p.st.dirtyEv(evTimers, t.Key)
	if t.ElemKey != 0 {
		ev.ByElem[t.ElemKey] = append(ev.ByElem[t.ElemKey], t.Key)
	}
	p.addTimer(t.Due, t.Key, OpTimerFire)
}

// openTimer opens the timer of a catch or boundary event for the element
// instance elemKey. An unusable timer value is returned as an error (the
// caller raises an incident).
func (p *Partition) openTimer(c *Command, in *Instance, ev *bpmn.Element, elemKey int64) error {
	tm, err := timerDue(ev.Event, p.lookupAt(in, p.elem(elemKey)), c.Now)
	if err != nil {
		return fmt.Errorf("Expected a valid %s for timer event '%s', but: %v", ev.Event.TimerKind, ev.ID, err)
	}
	reps := tm.Repetitions
	if ev.Kind == bpmn.BoundaryEvent && ev.Interrupting {
		reps = 1
	}
	p.scheduleTimer(&TimerInst{Key: p.st.nextKey(), DefKey: in.DefKey, InstanceKey: in.Key, ElemKey: elemKey,
		ElementID: ev.ID, Due: tm.Due.UnixMilli(), Interval: tm.Interval.Milliseconds(), Remaining: reps})
	return nil
}

// scheduleStartTimers runs when a new version of a process is deployed on
// the deployment partition: the timers of older versions' timer start
// events are canceled (as in Zeebe) and the new version's are scheduled.
func (p *Partition) scheduleStartTimers(c *Command, d *Def) {
	if p.cfg.ID != 1 {
		return
	}
	ev := p.st.evs()
	for k, t := range ev.Timers {
		if t.InstanceKey == 0 {
			if old := p.st.defs.ByKey(t.DefKey); old != nil && old.BpmnProcessID == d.BpmnProcessID {
				delete(ev.Timers, k)
				p.st.dirtyEv(evTimers, k)
			}
		}
	}
	for _, el := range d.Process.TimerStarts {
		tm, err := bpmn.ParseTimer(el.Event.TimerKind, el.Event.TimerText, time.UnixMilli(c.Now))
		if err != nil {
			continue // validated at deploy
		}
		p.scheduleTimer(&TimerInst{Key: p.st.nextKey(), DefKey: d.Key, ElementID: el.ID, Due: tm.Due.UnixMilli(),
			Interval: tm.Interval.Milliseconds(), Remaining: tm.Repetitions})
	}
}

// dueEventTimer turns a due heap entry into a fire command if the timer
// still exists with that due time.
func (p *Partition) dueEventTimer(e timerEntry, batch []*Command) []*Command {
	t := p.st.evs().Timers[e.key]
	if t == nil || t.Due != e.at {
		return batch
	}
	return append(batch, &Command{Op: OpTimerFire, Key: t.Key, Deadline: t.Due})
}

// rebuildEventTimers puts every scheduled timer back on the heap (open).
func (p *Partition) rebuildEventTimers() {
	for _, t := range p.st.evs().Timers {
		p.addTimer(t.Due, t.Key, OpTimerFire)
	}
}

// fireTimer processes OpTimerFire.
func (p *Partition) fireTimer(c *Command, fx *effects) (any, error) {
	ev := p.st.evs()
	t := ev.Timers[c.Key]
	if t == nil || t.Due != c.Deadline {
		return nil, reject(c.Op, RejNotFound, "Expected to trigger timer with key '%d', but no such timer was found (it was canceled or already triggered)", c.Key)
	}
	// Reschedule cycles first (the next due time follows the previous one,
	// not the processing time, so replay and late processing agree).
	again := t.Remaining < 0 || t.Remaining > 1
	p.dropTimer(t)
	if again && t.Interval > 0 {
		next := *t
		next.Due = t.Due + t.Interval
		if next.Remaining > 0 {
			next.Remaining--
		}
		p.scheduleTimer(&next)
	}
	if t.InstanceKey == 0 {
		d := p.st.defs.ByKey(t.DefKey)
		if d == nil {
			return nil, nil
		}
		el := d.Process.Elements[t.ElementID]
		in := p.newInstance(c, d, "")
		p.run(c, fx, in, []step{{el: el}})
		return nil, nil
	}
	in := p.inst(t.InstanceKey)
	e := p.elem(t.ElemKey)
	if in == nil || e == nil || in.State != InstActive {
		return nil, nil
	}
	el := in.proc.Elements[t.ElementID]
	if el == nil {
		return nil, nil
	}
	p.triggerEventVars(c, fx, in, e, el, nil) // output mappings (signals.go)
	return nil, nil
}

func (p *Partition) dropTimer(t *TimerInst) {
	ev := p.st.evs()
	delete(ev.Timers, t.Key)
	p.st.dirtyEv(evTimers, t.Key)
	if t.ElemKey != 0 {
		ev.unindex(t.ElemKey, t.Key)
	}
}

// sortedTimers lists timers by key (deterministic iteration).
func (ev *eventState) sortedTimers() []*TimerInst {
	out := make([]*TimerInst, 0, len(ev.Timers))
	for _, t := range ev.Timers {
		out = append(out, t)
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Key < out[k].Key })
	return out
}

// ---- the timer heap: due times of job time-outs, retry back-offs and timer events ----

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

// compactTimers drops stale heap entries (a job completed long before its
// deadline leaves its time-out entry behind until it would fire) by
// rebuilding the heap from the state. Without it the heap holds an entry
// for every job activated within the job timeout, however long finished:
// memory followed throughput × timeout instead of the live state. The next
// compaction waits until the heap has doubled, so the cost is amortized.
// Called between batches, when the state is consistent.
func (p *Partition) compactTimers() {
	if len(p.timers) < p.timersMax {
		return
	}
	p.rebuildTimers()
	p.timersMax = max(2*len(p.timers), 4096)
}

func (p *Partition) rebuildTimers() {
	p.timers = nil // a fresh array: the old one may be far larger than the live timers
	for _, j := range p.st.Jobs {
		switch j.State {
		case JobActivated:
			p.addTimer(j.Deadline, j.Key, OpTimeOut)
		case JobFailedBackoff:
			p.addTimer(j.RecurAt, j.Key, OpRecur)
		}
	}
	p.rebuildEventTimers()
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
	d := time.Duration(p.timers[0].at-p.cfg.Clock.Now()) * time.Millisecond
	if d < 0 {
		d = 0
	}
	p.timer.Reset(d + time.Millisecond)
}

// dueTimers turns expired timers into commands. Stale entries (the job moved
// on) are dropped here; processing checks the state again anyway.
func (p *Partition) dueTimers(batch []*Command) []*Command {
	n0 := len(batch)
	defer func() { p.fired.Add(int64(len(batch) - n0)) }()
	now := p.cfg.Clock.Now()
	for len(p.timers) > 0 && p.timers[0].at <= now && len(batch) < MaxBatch {
		e := heap.Pop(&p.timers).(timerEntry)
		if e.kind == OpTimerFire {
			batch = p.dueEventTimer(e, batch)
			continue
		}
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
