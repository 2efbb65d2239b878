package partition

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/jobwire/jobwire/engine-reference/internal/bpmn"
	"github.com/jobwire/jobwire/engine-reference/internal/vars"
)

// Recovery from results records (see results.go): applying a record to the
// state as data, without running processing code.

// applyResults applies a results record to the state. It runs no
// processing code: entities are replaced, deleted or appended to the
// history as written.
func (p *Partition) applyResults(b []byte) error {
	var r resultsRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return err
	}
	s := p.st
	if err := p.applyDefs(r.Defs, r.Resources); err != nil {
		return err
	}
	if err := p.restoreDMN(r.DMN); err != nil {
		return err
	}
	if r.Counter > s.counter {
		s.counter = r.Counter
	}
	if r.Now > p.lastNow {
		p.lastNow = r.Now
	}
	s.seq, s.jobsByState, s.activeInstances = r.Seq, r.JobsByState, r.Active
	dropElems := func(k int64) {
		if old := s.Instances[k]; old != nil {
			for ek := range old.elems {
				delete(s.Elems, ek)
			}
		}
	}
	for _, k := range r.DelInsts {
		dropElems(k)
		delete(s.Instances, k)
	}
	for _, ri := range r.Insts {
		if in := s.Instances[ri.Key]; in != nil {
			// the instance's own fields; its element instances stay
			migrated := in.DefKey != ri.DefKey
			in.DefKey, in.BpmnProcessID, in.Version, in.State = ri.DefKey, ri.BpmnProcessID, ri.Version, ri.State
			if migrated {
				if err := s.rebindProcess(in); err != nil { // migrate.go
					return err
				}
			}
			if ri.VarsDelta {
				in.Vars = applyVarsDelta(in.Vars, ri.VarSet)
			} else {
				in.Vars = ri.Vars
			}
			in.Incidents, in.Completions, in.ParentKey, in.ParentElemKey = ri.Incidents, ri.Completions, ri.ParentKey, ri.ParentElemKey
			in.tokens, in.joins = ri.Tokens, ri.Joins
			if in.Vars == nil {
				in.Vars = vars.Doc{}
			}
			continue
		}
		if ri.VarsDelta {
			return fmt.Errorf("results record sets variables of instance %d, which does not exist", ri.Key)
		}
		if err := s.restoreInstance(ri.snap()); err != nil {
			return err
		}
	}
	for _, k := range r.DelElems {
		if e := s.Elems[k]; e != nil {
			if in := s.Instances[e.InstanceKey]; in != nil {
				delete(in.elems, k)
			}
			delete(s.Elems, k)
		}
	}
	for _, re := range r.Elems {
		in := s.Instances[re.Inst]
		if in == nil {
			return fmt.Errorf("element instance %d of unknown instance %d", re.Key, re.Inst)
		}
		e, err := elemFromSnap(in, re.snapElem)
		if err != nil {
			return err
		}
		if re.VarsDelta {
			old := s.Elems[e.Key]
			if old == nil {
				return fmt.Errorf("results record sets local variables of element instance %d, which does not exist", e.Key)
			}
			e.Vars = applyVarsDelta(old.Vars, re.VarSet)
		}
		if re.Partial {
			old := s.Elems[e.Key]
			if old == nil || old.Body == nil || e.Body == nil {
				return fmt.Errorf("multi-instance body %d is logged without its collection, but none was applied before", e.Key)
			}
			e.Body.Items, e.Body.Outputs = old.Body.Items, old.Body.Outputs
			for i, v := range re.OutSet {
				if i < 0 || i >= len(e.Body.Outputs) {
					return fmt.Errorf("multi-instance body %d: output %d out of range", e.Key, i)
				}
				e.Body.Outputs[i] = v
			}
		}
		in.elems[e.Key] = e
		s.Elems[e.Key] = e
	}
	for _, k := range r.DelJobs {
		delete(s.Jobs, k)
	}
	for _, rj := range r.Jobs {
		j := (*Job)(rj)
		s.Jobs[j.Key] = j
		if j.State == JobActivatable {
			s.requeue(j)
		}
	}
	for _, k := range r.DelIncs {
		delete(s.Incidents, k)
	}
	for _, inc := range r.Incs {
		s.Incidents[inc.Key] = inc
	}
	for _, ri := range r.HistInsts {
		s.History.addInstance(ri.snap().Instance)
	}
	for _, j := range r.HistJobs {
		s.History.addJob((*Job)(j))
	}
	for _, id := range r.DelMsgIDs {
		delete(s.messages, id)
	}
	for _, m := range r.MsgIDs {
		s.messages[m.ID] = message{key: m.Key, deadline: m.Deadline}
	}
	if d := r.Ev; d != nil {
		ev := s.evs()
		ev.Seq = d.Seq
		for _, k := range d.DelTimers {
			delete(ev.Timers, k)
		}
		for _, x := range d.Timers {
			ev.Timers[x.Key] = x
		}
		for _, k := range d.DelSubs {
			delete(ev.Subs, k)
		}
		for _, x := range d.Subs {
			ev.Subs[x.Key] = x
		}
		for _, k := range d.DelMsgSubs {
			delete(ev.MsgSubs, k)
		}
		for _, x := range d.MsgSubs {
			ev.MsgSubs[x.Key] = x
		}
		for _, k := range d.DelMessages {
			delete(ev.Messages, k)
		}
		for _, x := range d.Messages {
			ev.Messages[x.Key] = x
		}
		for _, k := range d.DelStartedBy {
			delete(ev.StartedBy, k)
		}
		for k, x := range d.StartedBy {
			ev.StartedBy[k] = x
		}
		for _, k := range d.DelStartCorr {
			delete(ev.StartCorr, k)
		}
		for k, x := range d.StartCorr {
			ev.StartCorr[k] = x
		}
		for _, k := range d.DelSigs {
			delete(ev.SignalSubs, k)
			delete(ev.SignalOut, k)
			delete(ev.SignalSeen, k)
		}
		for _, x := range d.Sigs {
			ev.SignalSubs[x.Key] = x
		}
		for _, x := range d.SigOut {
			ev.SignalOut[x.Key] = x
		}
		for k, x := range d.SigSeen {
			ev.SignalSeen[k] = x
		}
		p.eventsApplied = true
	}
	return nil
}

// applyDefs registers definitions from their resources (a snapshot's or a
// results record's), parsing each resource once.
func (p *Partition) applyDefs(defs []snapDef, resources map[string][]byte) error {
	s := p.st
	parsed := map[string][]*bpmn.Process{}
	for _, sd := range defs {
		if sd.Deleted {
			s.defs.markGone(sd)
			continue
		}
		if s.defs.ByKey(sd.Key) != nil {
			continue
		}
		res, ok := resources[sd.Checksum]
		if !ok {
			return fmt.Errorf("the resource of definition %d is missing", sd.Key)
		}
		procs, ok := parsed[sd.Checksum]
		if !ok {
			var err error
			if procs, err = bpmn.Parse(sd.ResourceName, res); err != nil {
				return fmt.Errorf("resource '%s' does not parse: %w", sd.ResourceName, err)
			}
			parsed[sd.Checksum] = procs
		}
		for _, pr := range procs {
			if pr.ID == sd.BpmnProcessID {
				s.defs.add(&Def{Key: sd.Key, BpmnProcessID: sd.BpmnProcessID, Version: sd.Version, ResourceName: sd.ResourceName,
					Checksum: sd.Checksum, Process: pr, DeploymentKey: sd.DeploymentKey, Resource: res})
			}
		}
	}
	return nil
}

// requeue puts an activatable job into its type's activation queue at its
// place by key, with the sequence number it was queued under (recovery
// from results records; enqueue assigns a new one when processing). An
// entry that is already there is not added twice.
func (s *State) requeue(j *Job) {
	q := s.queues[j.Type]
	i := sort.Search(len(q), func(i int) bool { return q[i].key >= j.Key })
	for k := i; k < len(q) && q[k].key == j.Key; k++ {
		if q[k].seq == j.QueueSeq {
			return
		}
	}
	q = append(q, queued{})
	copy(q[i+1:], q[i:])
	q[i] = queued{j.Key, j.QueueSeq}
	s.queues[j.Type] = q
}
