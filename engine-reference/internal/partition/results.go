package partition

import (
	"github.com/jobwire/jobwire/engine-reference/internal/vars"
)

// Results records (record version 2).
//
// The partition logs what each accepted command *did*, not the command:
// after a command is processed, every entity it touched is written in its
// new form (or as deleted), together with the partition's counters. Recovery
// applies these records to the state without running any processing code,
// so a behaviour change in a later engine version cannot alter recovered
// state, and a command that panicked half-way is recovered exactly as far
// as it got (its consumed keys included).
//
// Entities are tracked at the mutation and lookup points of the processing
// code (dirty sets on State, resultsTracker): a process instance is logged
// whole (its variables, tokens, joins and all its element instances, as in a
// snapshot), jobs, incidents, timers, message subscriptions, buffered
// messages and message ids one by one. Marking is conservative: whatever a
// command looked up while processing is written, changed or not. Derived
// structures (activation queues, the timer heap, the element index of
// timers and subscriptions) are rebuilt from the applied state.
//
// Records of version 0 and 1 (commands) still replay through the processors,
// so a data dir written by an older engine recovers as before and continues
// with results records (an upgrade). Snapshots are unchanged.

// OpResults is the op of a results record.
const OpResults = "results"

// resultsPrefix starts every results record this engine writes (the
// encoder writes the fields in struct order), so replay can tell records
// apart without decoding; resultsPrefixV2 starts those of version 2.
var (
	resultsPrefix   = []byte(`{"v":3,"op":"results",`)
	resultsPrefixV2 = []byte(`{"v":2,"op":"results",`)
)

// resultsTracker collects what the command being processed touched.
type resultsTracker struct {
	insts, elems, jobs, incs                map[int64]struct{}
	timers, subs, msgSubs, bufMsgs, startCr map[int64]struct{}
	startedBy, msgIDs                       map[string]struct{}
	sigs                                    map[int64]struct{} // signal subscriptions, distributions, seen signals (signals.go)
	events                                  bool // eventState.Seq may have moved
	// multi-instance bodies: the collection and outputs are logged in
	// full only when set (bodyFull); otherwise only the outputs set by
	// the command (bodyOut), so a body of n items costs O(n) log bytes
	// over its life, not O(n) per inner instance.
	bodyFull map[int64]struct{}
	bodyOut  map[int64][]int
	// variables of process instances and element instances (varMarks)
	instVars, elemVars varMarks
	histInsts          []*Instance
	histJobs           []*Job
	defs               []*Def
	drgs               []*DRG
}

func newResultsTracker() *resultsTracker {
	return &resultsTracker{bodyFull: map[int64]struct{}{}, bodyOut: map[int64][]int{}, instVars: newVarMarks(), elemVars: newVarMarks(), insts: map[int64]struct{}{}, elems: map[int64]struct{}{}, jobs: map[int64]struct{}{}, incs: map[int64]struct{}{},
		timers: map[int64]struct{}{}, subs: map[int64]struct{}{}, msgSubs: map[int64]struct{}{}, bufMsgs: map[int64]struct{}{},
		startCr: map[int64]struct{}{}, startedBy: map[string]struct{}{}, msgIDs: map[string]struct{}{}, sigs: map[int64]struct{}{}}
}

func (t *resultsTracker) empty() bool {
	return len(t.insts) == 0 && len(t.elems) == 0 && len(t.jobs) == 0 && len(t.incs) == 0 && len(t.timers) == 0 && len(t.subs) == 0 &&
		len(t.msgSubs) == 0 && len(t.bufMsgs) == 0 && len(t.startCr) == 0 && len(t.startedBy) == 0 && len(t.msgIDs) == 0 &&
		len(t.sigs) == 0 && !t.events && len(t.histInsts) == 0 && len(t.histJobs) == 0 && len(t.defs) == 0 && len(t.drgs) == 0
}

func (t *resultsTracker) reset() {
	clear(t.insts)
	clear(t.elems)
	clear(t.bodyFull)
	clear(t.bodyOut)
	t.instVars.reset()
	t.elemVars.reset()
	clear(t.jobs)
	clear(t.incs)
	clear(t.timers)
	clear(t.subs)
	clear(t.msgSubs)
	clear(t.bufMsgs)
	clear(t.startCr)
	clear(t.startedBy)
	clear(t.msgIDs)
	clear(t.sigs)
	t.events = false
	t.histInsts, t.histJobs, t.defs, t.drgs = t.histInsts[:0], t.histJobs[:0], t.defs[:0], t.drgs[:0]
}

// ---- marking (no-ops while recovering: the tracker is nil then) ----

// dirtyInst marks an instance's own fields (state, variables, tokens,
// joins, counters), written where they change; dirtyElem an element
// instance (marked where it is looked up, created, removed or changed).
func (s *State) dirtyInst(k int64) {
	if s.rt != nil {
		s.rt.insts[k] = struct{}{}
	}
}

// varMarks decides how a results record carries an entity's variables
// (a process instance's, or an element instance's local ones): an entity
// the command created is logged with all of them; any other only with the
// variables the command set, so a large variable document is not logged
// again by every command that touches (or looks up) its entity.
type varMarks struct {
	created map[int64]struct{}
	set     map[int64]map[string]struct{}
}

func newVarMarks() varMarks {
	return varMarks{created: map[int64]struct{}{}, set: map[int64]map[string]struct{}{}}
}

func (m varMarks) reset() {
	clear(m.created)
	clear(m.set)
}

func (m varMarks) setVar(k int64, name string) {
	v := m.set[k]
	if v == nil {
		v = map[string]struct{}{}
		m.set[k] = v
	}
	v[name] = struct{}{}
}

// delta is what a record carries for entity k with variables doc: doc
// itself if the command created k; else nil, true and the variables the
// command set (nil if none).
func (m varMarks) delta(k int64, doc vars.Doc) (full vars.Doc, isDelta bool, set vars.Doc) {
	if _, created := m.created[k]; created {
		return doc, false, nil
	}
	names := m.set[k]
	if len(names) == 0 {
		return nil, true, nil
	}
	set = make(vars.Doc, len(names))
	for name := range names {
		set[name] = doc[name]
	}
	return nil, true, set
}

// applyVarsDelta merges a record's variable delta into the variables
// already applied (old, possibly nil).
func applyVarsDelta(old, set vars.Doc) vars.Doc {
	if len(set) == 0 {
		return old
	}
	if old == nil {
		old = vars.Doc{}
	}
	vars.Merge(old, set)
	return old
}

// newInst / newElem mark an entity the command created (logged in full).
func (s *State) newInst(k int64) {
	if s.rt != nil {
		s.rt.insts[k] = struct{}{}
		s.rt.instVars.created[k] = struct{}{}
	}
}

func (s *State) newElem(k int64) {
	if s.rt != nil {
		s.rt.elems[k] = struct{}{}
		s.rt.elemVars.created[k] = struct{}{}
	}
}

// dirtyVar marks a process-instance variable the command set;
// dirtyElemVars an element instance's local variables.
func (s *State) dirtyVar(k int64, name string) {
	if s.rt != nil {
		s.rt.insts[k] = struct{}{}
		s.rt.instVars.setVar(k, name)
	}
}

func (s *State) dirtyElemVars(k int64, names ...string) {
	if s.rt != nil {
		s.rt.elems[k] = struct{}{}
		for _, name := range names {
			s.rt.elemVars.setVar(k, name)
		}
	}
}

func (s *State) dirtyElem(k int64) {
	if s.rt != nil {
		s.rt.elems[k] = struct{}{}
	}
}

// bodyReset: the body's collection and outputs were (re)set; bodyOutput:
// output i of the body was set.
func (s *State) bodyReset(k int64) {
	if s.rt != nil {
		s.rt.bodyFull[k] = struct{}{}
	}
}

func (s *State) bodyOutput(k int64, i int) {
	if s.rt != nil {
		s.rt.bodyOut[k] = append(s.rt.bodyOut[k], i)
	}
}

func (s *State) dirtyJob(k int64) {
	if s.rt != nil {
		s.rt.jobs[k] = struct{}{}
	}
}

func (s *State) dirtyInc(k int64) {
	if s.rt != nil {
		s.rt.incs[k] = struct{}{}
	}
}

func (s *State) dirtyMsgID(id string) {
	if s.rt != nil {
		s.rt.msgIDs[id] = struct{}{}
	}
}

// dirtyEv marks an entry of the event state (set: one of the tracker's
// key sets) and the event sequence.
func (s *State) dirtyEv(set func(*resultsTracker) map[int64]struct{}, k int64) {
	if s.rt != nil {
		set(s.rt)[k] = struct{}{}
		s.rt.events = true
	}
}

func (s *State) dirtyStartedBy(k string) {
	if s.rt != nil {
		s.rt.startedBy[k] = struct{}{}
		s.rt.events = true
	}
}

func evTimers(t *resultsTracker) map[int64]struct{}  { return t.timers }
func evSubs(t *resultsTracker) map[int64]struct{}    { return t.subs }
func evMsgSubs(t *resultsTracker) map[int64]struct{} { return t.msgSubs }
func evBufMsgs(t *resultsTracker) map[int64]struct{} { return t.bufMsgs }
func evStartCr(t *resultsTracker) map[int64]struct{} { return t.startCr }

// Lookups for processing code: what a command looks at may be changed by
// it, so it is marked (conservatively) for the command's results record.

// inst does not mark the instance: its fields are marked where they
// change (an instance is looked up by almost every command, and its
// variables can be large).
func (p *Partition) inst(k int64) *Instance {
	return p.st.Instances[k]
}

func (p *Partition) elem(k int64) *ElemInst {
	e := p.st.Elems[k]
	if e != nil {
		p.st.dirtyElem(k)
	}
	return e
}

func (p *Partition) job(k int64) *Job {
	j := p.st.Jobs[k]
	if j != nil {
		p.st.dirtyJob(k)
	}
	return j
}

func (p *Partition) incident(k int64) *Incident {
	inc := p.st.Incidents[k]
	if inc != nil {
		p.st.dirtyInc(k)
	}
	return inc
}

func (p *Partition) addDef(d *Def) {
	p.st.defs.add(d)
	p.trackDef(d)
}

// trackDef logs a definition with the command's results.
func (p *Partition) trackDef(d *Def) {
	if p.st.rt != nil {
		p.st.rt.defs = append(p.st.rt.defs, d)
	}
}

func (p *Partition) trackDRG(g *DRG) {
	if p.st.rt != nil {
		p.st.rt.drgs = append(p.st.rt.drgs, g)
	}
}
