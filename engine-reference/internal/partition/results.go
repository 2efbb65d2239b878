package partition

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/jobwire/jobwire/engine-reference/internal/bpmn"
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
		startCr: map[int64]struct{}{}, startedBy: map[string]struct{}{}, msgIDs: map[string]struct{}{}}
}

func (t *resultsTracker) empty() bool {
	return len(t.insts) == 0 && len(t.elems) == 0 && len(t.jobs) == 0 && len(t.incs) == 0 && len(t.timers) == 0 && len(t.subs) == 0 &&
		len(t.msgSubs) == 0 && len(t.bufMsgs) == 0 && len(t.startCr) == 0 && len(t.startedBy) == 0 && len(t.msgIDs) == 0 &&
		!t.events && len(t.histInsts) == 0 && len(t.histJobs) == 0 && len(t.defs) == 0 && len(t.drgs) == 0
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

// ---- the record ----

type resultsRecord struct {
	V           int               `json:"v"`
	Op          string            `json:"op"`
	Now         int64             `json:"now"`
	Counter     int64             `json:"km"`
	Seq         int64             `json:"seq"`
	JobsByState [8]int64          `json:"jbs"`
	Active      int64             `json:"act"`
	Resources   map[string][]byte `json:"res,omitempty"`
	Defs        []snapDef         `json:"defs,omitempty"`
	DMN         []snapDRG         `json:"dmn,omitempty"`
	Insts       []resInstance     `json:"inst,omitempty"`
	DelInsts    []int64           `json:"xinst,omitempty"`
	Elems       []resElem         `json:"elems,omitempty"`
	DelElems    []int64           `json:"xelems,omitempty"`
	Jobs        []*resJob         `json:"jobs,omitempty"`
	DelJobs     []int64           `json:"xjobs,omitempty"`
	Incs        []*Incident       `json:"incs,omitempty"`
	DelIncs     []int64           `json:"xincs,omitempty"`
	HistInsts   []resInstance     `json:"hinst,omitempty"`
	HistJobs    []*resJob         `json:"hjobs,omitempty"`
	MsgIDs      []snapMessage     `json:"mids,omitempty"`
	DelMsgIDs   []string          `json:"xmids,omitempty"`
	Ev          *eventsDelta      `json:"ev,omitempty"`
}

// resJob is a Job with short field names (a results record holds one for
// every job a command touched); it converts to and from Job directly.
type resJob struct {
	Key            int64  `json:"k"`
	InstanceKey    int64  `json:"i"`
	ElemKey        int64  `json:"e"`
	DefKey         int64  `json:"d"`
	BpmnProcessID  string `json:"p"`
	ElementID      string `json:"el"`
	Version        int32  `json:"ver"`
	Type           string `json:"t"`
	Headers        string `json:"h,omitempty"`
	Retries        int32  `json:"r"`
	State          int    `json:"s"`
	Worker         string `json:"w,omitempty"`
	Deadline       int64  `json:"dl,omitempty"`
	RecurAt        int64  `json:"ra,omitempty"`
	ErrorMessage   string `json:"em,omitempty"`
	ErrorCode      string `json:"ec,omitempty"`
	ErrorVariables string `json:"ev,omitempty"`
	IncidentKey    int64  `json:"inc,omitempty"`
	TenantID       string `json:"ten,omitempty"`
	Activations    int32  `json:"na,omitempty"`
	Yields         int32  `json:"ny,omitempty"`
	Timeouts       int32  `json:"nt,omitempty"`
	Completes      int32  `json:"nc,omitempty"`
	Fails          int32  `json:"nf,omitempty"`
	QueueSeq       int64  `json:"q,omitempty"`
}

// resElem is an element instance of a results record.
type resElem struct {
	Inst int64 `json:"i"`
	snapElem
	// A multi-instance body logged without its collection and outputs
	// (Body.Items and Body.Outputs nil): they are the ones already
	// applied, with the outputs in OutSet (index → value) set.
	Partial bool                    `json:"part,omitempty"`
	OutSet  map[int]json.RawMessage `json:"outs,omitempty"`
	// VarsDelta (record version 3): the element instance's local
	// variables are the ones already applied, with VarSet merged in.
	VarsDelta bool     `json:"dv,omitempty"`
	VarSet    vars.Doc `json:"vset,omitempty"`
}

// resInstance is an instance with short field names and, for a live
// instance, its tokens and joins (its element instances are logged one by
// one: resElem).
type resInstance struct {
	Key           int64    `json:"k"`
	DefKey        int64    `json:"d"`
	BpmnProcessID string   `json:"p"`
	Version       int32    `json:"ver"`
	State         int      `json:"s"`
	Vars          vars.Doc `json:"vars"`
	// VarsDelta (record version 3): Vars is absent and VarSet holds only
	// the variables the command set, to be merged into the instance's.
	VarsDelta     bool                      `json:"dv,omitempty"`
	VarSet        vars.Doc                  `json:"vset,omitempty"`
	Incidents     int                       `json:"inc,omitempty"`
	Completions   int32                     `json:"cmp,omitempty"`
	ParentKey     int64                     `json:"pk,omitempty"`
	ParentElemKey int64                     `json:"pe,omitempty"`
	Tokens        int                       `json:"tokens,omitempty"`
	Joins         map[string]map[string]int `json:"joins,omitempty"`
	Elems         []snapElem                `json:"elems,omitempty"`
}

func resInstanceOf(in *Instance, live bool) resInstance {
	r := resInstance{Key: in.Key, DefKey: in.DefKey, BpmnProcessID: in.BpmnProcessID, Version: in.Version, State: in.State,
		Vars: in.Vars, Incidents: in.Incidents, Completions: in.Completions, ParentKey: in.ParentKey, ParentElemKey: in.ParentElemKey}
	if live {
		r.Tokens, r.Joins = in.tokens, in.joins
	}
	return r
}

func (r resInstance) snap() snapInstance {
	in := &Instance{Key: r.Key, DefKey: r.DefKey, BpmnProcessID: r.BpmnProcessID, Version: r.Version, State: r.State,
		Vars: r.Vars, Incidents: r.Incidents, Completions: r.Completions, ParentKey: r.ParentKey, ParentElemKey: r.ParentElemKey}
	return snapInstance{Instance: in, Tokens: r.Tokens, Joins: r.Joins, Elems: r.Elems}
}

// eventsDelta is what a command changed in the event state (timers.go,
// messages.go): entries written in full, keys deleted, the sequence.
type eventsDelta struct {
	Seq          int64              `json:"seq"`
	Timers       []*TimerInst       `json:"timers,omitempty"`
	DelTimers    []int64            `json:"xtimers,omitempty"`
	Subs         []*ProcSub         `json:"subs,omitempty"`
	DelSubs      []int64            `json:"xsubs,omitempty"`
	MsgSubs      []*MsgSub          `json:"msgSubs,omitempty"`
	DelMsgSubs   []int64            `json:"xmsgSubs,omitempty"`
	Messages     []*BufferedMessage `json:"messages,omitempty"`
	DelMessages  []int64            `json:"xmessages,omitempty"`
	StartedBy    map[string]int64   `json:"startedBy,omitempty"`
	DelStartedBy []string           `json:"xstartedBy,omitempty"`
	StartCorr    map[int64]string   `json:"startCorr,omitempty"`
	DelStartCorr []int64            `json:"xstartCorr,omitempty"`
}

func sortedKeys(m map[int64]struct{}) []int64 {
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, k int) bool { return out[i] < out[k] })
	return out
}

func sortedStrings(m map[string]struct{}) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func snapElemOf(e *ElemInst) snapElem {
	return snapElem{Key: e.Key, ElementID: e.Element.ID, Vars: e.Vars, JobKey: e.JobKey, IncidentKey: e.IncidentKey,
		Scope: e.ScopeKey, Tokens: e.Tokens, Joins: e.Joins, Body: e.Body, LoopCounter: e.LoopCounter, ChildKey: e.ChildKey, Stage: e.Stage}
}

func elemFromSnap(in *Instance, se snapElem) (*ElemInst, error) {
	el := in.proc.Elements[se.ElementID]
	if el == nil {
		return nil, fmt.Errorf("element %q of instance %d is not in its process", se.ElementID, in.Key)
	}
	return &ElemInst{Key: se.Key, InstanceKey: in.Key, Element: el, Vars: se.Vars, JobKey: se.JobKey, IncidentKey: se.IncidentKey,
		ScopeKey: se.Scope, Tokens: se.Tokens, Joins: se.Joins, Body: se.Body, LoopCounter: se.LoopCounter, ChildKey: se.ChildKey, Stage: se.Stage}, nil
}

// snapInstanceOf is an instance as snapshots write it.
func snapInstanceOf(in *Instance) snapInstance {
	si := snapInstance{Instance: in, Tokens: in.tokens, Joins: in.joins}
	for _, e := range in.elems {
		si.Elems = append(si.Elems, snapElemOf(e))
	}
	sort.Slice(si.Elems, func(i, k int) bool { return si.Elems[i].Key < si.Elems[k].Key })
	return si
}

// restoreInstance links a decoded instance to its definition and registers
// its element instances.
func (s *State) restoreInstance(si snapInstance) error {
	in := si.Instance
	def := s.defs.ByKey(in.DefKey)
	if def == nil {
		return fmt.Errorf("instance %d refers to unknown definition %d", in.Key, in.DefKey)
	}
	in.proc, in.tokens, in.joins, in.elems = def.Process, si.Tokens, si.Joins, map[int64]*ElemInst{}
	if in.Vars == nil {
		in.Vars = vars.Doc{}
	}
	for _, se := range si.Elems {
		e, err := elemFromSnap(in, se)
		if err != nil {
			return err
		}
		in.elems[e.Key] = e
		s.Elems[e.Key] = e
	}
	s.Instances[in.Key] = in
	return nil
}

// encodeResults encodes the results record of the command just processed
// and resets the tracker; nil when the command changed nothing.
func (p *Partition) encodeResults(now int64) ([]byte, error) {
	s, t := p.st, p.st.rt
	defer t.reset()
	r := &resultsRecord{V: RecordVersion, Op: OpResults, Now: now, Counter: s.counter, Seq: s.seq,
		JobsByState: s.jobsByState, Active: s.activeInstances}
	if len(t.defs) > 0 {
		r.Resources = map[string][]byte{}
		for _, d := range t.defs {
			r.Resources[d.Checksum] = d.Resource
			r.Defs = append(r.Defs, snapDef{Key: d.Key, BpmnProcessID: d.BpmnProcessID, Version: d.Version,
				ResourceName: d.ResourceName, DeploymentKey: d.DeploymentKey, Checksum: d.Checksum})
		}
	}
	for _, g := range t.drgs {
		r.DMN = append(r.DMN, p.snapDRGOf(g))
	}
	for _, k := range sortedKeys(t.insts) {
		if in := s.Instances[k]; in != nil {
			ri := resInstanceOf(in, true)
			ri.Vars, ri.VarsDelta, ri.VarSet = t.instVars.delta(k, in.Vars)
			r.Insts = append(r.Insts, ri)
		} else {
			r.DelInsts = append(r.DelInsts, k)
		}
	}
	for _, k := range sortedKeys(t.elems) {
		if e := s.Elems[k]; e != nil {
			re := resElem{Inst: e.InstanceKey, snapElem: snapElemOf(e)}
			re.Vars, re.VarsDelta, re.VarSet = t.elemVars.delta(k, e.Vars)
			if _, full := t.bodyFull[k]; e.Body != nil && !full {
				b := *e.Body
				b.Items, b.Outputs = nil, nil
				re.Body, re.Partial = &b, true
				for _, i := range t.bodyOut[k] {
					if re.OutSet == nil {
						re.OutSet = map[int]json.RawMessage{}
					}
					re.OutSet[i] = e.Body.Outputs[i]
				}
			}
			r.Elems = append(r.Elems, re)
		} else {
			r.DelElems = append(r.DelElems, k)
		}
	}
	for _, k := range sortedKeys(t.jobs) {
		if j := s.Jobs[k]; j != nil {
			r.Jobs = append(r.Jobs, (*resJob)(j))
		} else {
			r.DelJobs = append(r.DelJobs, k)
		}
	}
	for _, k := range sortedKeys(t.incs) {
		if inc := s.Incidents[k]; inc != nil {
			r.Incs = append(r.Incs, inc)
		} else {
			r.DelIncs = append(r.DelIncs, k)
		}
	}
	for _, in := range t.histInsts {
		r.HistInsts = append(r.HistInsts, resInstanceOf(in, false))
	}
	for _, j := range t.histJobs {
		r.HistJobs = append(r.HistJobs, (*resJob)(j))
	}
	for _, id := range sortedStrings(t.msgIDs) {
		if m, ok := s.messages[id]; ok {
			r.MsgIDs = append(r.MsgIDs, snapMessage{ID: id, Key: m.key, Deadline: m.deadline})
		} else {
			r.DelMsgIDs = append(r.DelMsgIDs, id)
		}
	}
	if t.events {
		ev := s.evs()
		d := &eventsDelta{Seq: ev.Seq}
		for _, k := range sortedKeys(t.timers) {
			if x := ev.Timers[k]; x != nil {
				d.Timers = append(d.Timers, x)
			} else {
				d.DelTimers = append(d.DelTimers, k)
			}
		}
		for _, k := range sortedKeys(t.subs) {
			if x := ev.Subs[k]; x != nil {
				d.Subs = append(d.Subs, x)
			} else {
				d.DelSubs = append(d.DelSubs, k)
			}
		}
		for _, k := range sortedKeys(t.msgSubs) {
			if x := ev.MsgSubs[k]; x != nil {
				d.MsgSubs = append(d.MsgSubs, x)
			} else {
				d.DelMsgSubs = append(d.DelMsgSubs, k)
			}
		}
		for _, k := range sortedKeys(t.bufMsgs) {
			if x := ev.Messages[k]; x != nil {
				d.Messages = append(d.Messages, x)
			} else {
				d.DelMessages = append(d.DelMessages, k)
			}
		}
		for _, k := range sortedStrings(t.startedBy) {
			if x, ok := ev.StartedBy[k]; ok {
				if d.StartedBy == nil {
					d.StartedBy = map[string]int64{}
				}
				d.StartedBy[k] = x
			} else {
				d.DelStartedBy = append(d.DelStartedBy, k)
			}
		}
		for _, k := range sortedKeys(t.startCr) {
			if x, ok := ev.StartCorr[k]; ok {
				if d.StartCorr == nil {
					d.StartCorr = map[int64]string{}
				}
				d.StartCorr[k] = x
			} else {
				d.DelStartCorr = append(d.DelStartCorr, k)
			}
		}
		r.Ev = d
	}
	b, err := encodeJSON(r)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(b, resultsPrefix) {
		return nil, fmt.Errorf("results record encodes with an unexpected prefix %.30q", b)
	}
	return b, nil
}

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
			in.DefKey, in.BpmnProcessID, in.Version, in.State = ri.DefKey, ri.BpmnProcessID, ri.Version, ri.State
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

// VerifyResults (tests only) keeps a second state per partition that is
// built only by applying the partition's results records, and compares it
// with the live state after every batch: a change that processing made but
// no record carries panics the partition with both states' encodings in
// the message.
var VerifyResults = false

// startShadow creates the shadow state from a snapshot of the recovered
// state. It shares the definition registry (in a multi-partition process
// other partitions register definitions in it, as during recovery);
// TestResultsRecoveryEqualsLiveState checks definitions in full.
func (p *Partition) startShadow() error {
	cfg := p.cfg
	sh := &Partition{cfg: cfg, st: newState(cfg.ID, cfg.Defs, cfg.History)}
	es, err := p.encodeSnapshot(0, 0)
	if err != nil {
		return err
	}
	b, err := es.assemble()
	if err != nil {
		return err
	}
	if _, err := sh.loadSnapshot(b); err != nil {
		return err
	}
	p.shadow = sh
	return nil
}

func (p *Partition) verifyApply(b []byte) {
	if err := p.shadow.applyResults(b); err != nil {
		panic(fmt.Sprintf("VerifyResults: partition %d: a results record does not apply: %v", p.cfg.ID, err))
	}
}

// verifyBatch compares the live state with the shadow (between batches).
func (p *Partition) verifyBatch() {
	if p.shadow.eventsApplied {
		p.shadow.st.events = p.shadow.st.evs().fill()
		p.shadow.eventsApplied = false
	}
	live, err := p.stateImage()
	if err != nil {
		panic(err)
	}
	sh, err := p.shadow.stateImage()
	if err != nil {
		panic(err)
	}
	if !bytes.Equal(live, sh) {
		i := 0
		for i < len(live) && i < len(sh) && live[i] == sh[i] {
			i++
		}
		from := max(i-400, 0)
		panic(fmt.Sprintf("VerifyResults: partition %d: the state rebuilt from results records differs from the live state at byte %d\nlive:    …%s\nrebuilt: …%s",
			p.cfg.ID, i, live[from:min(i+200, len(live))], sh[from:min(i+200, len(sh))]))
	}
}

// stateImage is the snapshot encoding of the state without what a results
// record does not carry by design: the processing clock (lastNow, a floor
// for the next batch's time) and the definitions of a registry shared with
// other partitions (each partition logs the ones it registered).
func (p *Partition) stateImage() ([]byte, error) {
	es, err := p.encodeSnapshot(0, 0)
	if err != nil {
		return nil, err
	}
	b, err := es.assemble()
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	delete(m, "lastNow")
	delete(m, "defs")
	delete(m, "resources")
	return json.Marshal(m)
}
