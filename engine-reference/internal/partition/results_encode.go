package partition

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/jobwire/jobwire/engine-reference/internal/vars"
)

// The results record (see results.go): its entities as written, and encoding
// the record of the command just processed.

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
	Forms       []snapForm        `json:"forms,omitempty"` // forms.go
}

// resJob is a Job with short field names (a results record holds one for
// every job a command touched); it converts to and from Job directly.
type resJob struct {
	Key            int64    `json:"k"`
	InstanceKey    int64    `json:"i"`
	ElemKey        int64    `json:"e"`
	DefKey         int64    `json:"d"`
	BpmnProcessID  string   `json:"p"`
	ElementID      string   `json:"el"`
	Version        int32    `json:"ver"`
	Type           string   `json:"t"`
	Headers        string   `json:"h,omitempty"`
	Retries        int32    `json:"r"`
	State          int      `json:"s"`
	Worker         string   `json:"w,omitempty"`
	Deadline       int64    `json:"dl,omitempty"`
	RecurAt        int64    `json:"ra,omitempty"`
	ErrorMessage   string   `json:"em,omitempty"`
	ErrorCode      string   `json:"ec,omitempty"`
	ErrorVariables string   `json:"ev,omitempty"`
	IncidentKey    int64    `json:"inc,omitempty"`
	TenantID       string   `json:"ten,omitempty"`
	Activations    int32    `json:"na,omitempty"`
	Yields         int32    `json:"ny,omitempty"`
	Timeouts       int32    `json:"nt,omitempty"`
	Completes      int32    `json:"nc,omitempty"`
	Fails          int32    `json:"nf,omitempty"`
	QueueSeq       int64    `json:"q,omitempty"`
	LastFetch      []string `json:"lf,omitempty"`
	LastBackoff    int64    `json:"lb,omitempty"`
	Fetched        bool     `json:"fe,omitempty"`
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
	// signals.go: subscriptions, distributions and seen signals written,
	// keys of any of them deleted.
	Sigs    []*SignalSub    `json:"sigs,omitempty"`
	SigOut  []*SignalOut    `json:"sigOut,omitempty"`
	SigSeen map[int64]int32 `json:"sigSeen,omitempty"`
	DelSigs []int64         `json:"xsigs,omitempty"`
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
	def := s.defs.withDeleted(in.DefKey)
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
			if d.Resource != nil {
				r.Resources[d.Checksum] = d.Resource
			}
			r.Defs = append(r.Defs, snapDefOf(d))
		}
	}
	for _, g := range t.drgs {
		r.DMN = append(r.DMN, p.snapDRGOf(g))
	}
	for _, f := range t.forms {
		r.Forms = append(r.Forms, snapFormOf(f))
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
		for _, k := range sortedKeys(t.sigs) {
			found := false
			if x := ev.SignalSubs[k]; x != nil {
				d.Sigs, found = append(d.Sigs, x), true
			}
			if x := ev.SignalOut[k]; x != nil {
				d.SigOut, found = append(d.SigOut, x), true
			}
			if x, ok := ev.SignalSeen[k]; ok {
				if d.SigSeen == nil {
					d.SigSeen = map[int64]int32{}
				}
				d.SigSeen[k], found = x, true
			}
			if !found {
				d.DelSigs = append(d.DelSigs, k)
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
