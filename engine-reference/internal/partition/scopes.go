package partition

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"

	"github.com/jobwire/jobwire/engine-reference/internal/bpmn"
	"github.com/jobwire/jobwire/engine-reference/internal/feel"
	"github.com/jobwire/jobwire/engine-reference/internal/vars"
)

// Scopes and variables, as Zeebe has them: every element instance has local
// variables; a lookup walks from an element instance through its flow
// scopes (subprocess, multi-instance body) up to the process instance.
// Merging a document "with propagation" (Zeebe's mergeDocument) updates
// each variable on the nearest scope that defines it and creates it on the
// process instance when none does.

// What resolving an incident on an activity instance retries.
const (
	stageInput      = 1 // input mappings failed
	stageStart      = 2 // the activity could not start (job type, called process)
	stageComplete   = 3 // output mappings failed (the job is completed)
	stageCollection = 4 // the multi-instance input collection is not a list
	stageBoundaries = 5 // a multi-instance body's boundary events could not be opened
)

// tokens is the token counter of a flow scope.
func (p *Partition) tokens(in *Instance, scope int64) *int {
	if scope == 0 {
		p.st.dirtyInst(in.Key)
		return &in.tokens
	}
	if e := p.elem(scope); e != nil {
		return &e.Tokens
	}
	return new(int) // a scope that ended: nothing to count
}

// joinArrivals is the arrivals of a join gateway in a flow scope.
func (p *Partition) joinArrivals(in *Instance, scope int64, gw string) map[string]int {
	var joins *map[string]map[string]int
	if scope == 0 {
		p.st.dirtyInst(in.Key)
		joins = &in.joins
	} else {
		joins = &p.elem(scope).Joins
	}
	if *joins == nil {
		*joins = map[string]map[string]int{}
	}
	arr := (*joins)[gw]
	if arr == nil {
		arr = map[string]int{}
		(*joins)[gw] = arr
	}
	return arr
}

func (p *Partition) addElem(in *Instance, e *ElemInst) {
	in.elems[e.Key] = e
	p.st.Elems[e.Key] = e
	p.st.newElem(e.Key)
	if e.Body != nil {
		p.st.bodyReset(e.Key) // a new body is logged in full
	}
}

func (p *Partition) removeElem(fx *effects, in *Instance, e *ElemInst) {
	p.closeElemEvents(fx, e.Key) // its boundary timers and message subscriptions
	delete(in.elems, e.Key)
	delete(p.st.Elems, e.Key)
	p.st.dirtyElem(e.Key)
}

// lookupAt resolves variables as seen from an element instance (nil: the
// process instance).
func (p *Partition) lookupAt(in *Instance, e *ElemInst) feel.Lookup {
	return func(name string) (json.RawMessage, bool) {
		for x := e; x != nil; x = p.elem(x.ScopeKey) {
			if v, ok := x.Vars[name]; ok {
				return v, true
			}
			if x.Body != nil && x.Body.Started && x.Element.MI.OutputCollection == name {
				return x.Body.outputJSON(), true
			}
			if x.ScopeKey == 0 {
				break
			}
		}
		v, ok := in.Vars[name]
		return v, ok
	}
}

// lookupScope resolves variables as seen inside a flow scope.
func (p *Partition) lookupScope(in *Instance, scope int64) feel.Lookup {
	if scope == 0 {
		return p.lookupAt(in, nil)
	}
	return p.lookupAt(in, p.elem(scope))
}

// visibleVars is every variable an element instance sees, inner scopes
// shadowing outer ones (a job's variables; a called instance's input).
func (p *Partition) visibleVars(in *Instance, e *ElemInst) vars.Doc {
	return visibleThrough(in, e, p.elem)
}

// mergePropagate merges a document starting at a scope (0: the process
// instance), as Zeebe's VariableBehavior.mergeDocument does: a variable
// goes to the nearest scope that defines it with a different value; a scope
// holding the same value lets it pass on upwards; what no scope takes is
// set on the process instance. (So an unchanged input-mapped local, or a
// multi-instance loopCounter, handed back by a called process reaches the
// process instance, while a changed one stays local.)
func (p *Partition) mergePropagate(in *Instance, from int64, doc vars.Doc) {
	names := make([]string, 0, len(doc))
	for k := range doc {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		set := false
		for x := p.elem(from); from != 0 && x != nil; x = p.elem(x.ScopeKey) {
			if old, ok := x.Vars[k]; ok && !sameValue(old, doc[k]) {
				x.Vars[k] = doc[k]
				p.st.dirtyElemVars(x.Key, k)
				set = true
				break
			}
			if x.ScopeKey == 0 {
				break
			}
		}
		if !set {
			in.Vars[k] = doc[k]
			p.st.dirtyVar(in.Key, k)
		}
	}
}

// sameValue compares two variable values as documents (object key order
// and spacing do not matter; 1 and 1.0 differ, as they do in Zeebe's
// MessagePack).
func sameValue(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	da := json.NewDecoder(bytes.NewReader(a))
	da.UseNumber()
	db := json.NewDecoder(bytes.NewReader(b))
	db.UseNumber()
	if da.Decode(&x) != nil || db.Decode(&y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func (p *Partition) setLocal(e *ElemInst, doc vars.Doc) {
	if len(doc) == 0 {
		return
	}
	if e.Vars == nil {
		e.Vars = vars.Doc{}
	}
	vars.Merge(e.Vars, doc)
	for name := range doc {
		p.st.dirtyElemVars(e.Key, name)
	}
}

// evalMappings evaluates zeebe:input/zeebe:output mappings in order, as
// seen from look, into a document (a target a.b builds a context). As in
// Zeebe, where the mappings form one FEEL context, a mapping sees the
// entries of the mappings before it (the innermost context first).
func evalMappings(ms []bpmn.Mapping, look feel.Lookup) (vars.Doc, error) {
	out := map[string]any{}
	for _, m := range ms {
		var path []map[string]any // contexts enclosing the target, outermost first
		cur := out
		path = append(path, cur)
		for _, seg := range m.Target[:len(m.Target)-1] {
			next, ok := cur[seg].(map[string]any)
			if !ok {
				next = map[string]any{}
				cur[seg] = next
			}
			cur = next
			path = append(path, cur)
		}
		v, err := m.Source.Eval(func(name string) (json.RawMessage, bool) {
			for i := len(path) - 1; i >= 0; i-- {
				if x, ok := path[i][name]; ok {
					raw, err := toJSON(x)
					if err == nil {
						return raw, true
					}
				}
			}
			return look(name)
		})
		if err != nil {
			return nil, fmt.Errorf("failed to evaluate expression '%s': %v", m.Source, err)
		}
		cur[m.Target[len(m.Target)-1]] = v
	}
	doc := vars.Doc{}
	for k, v := range out {
		raw, err := toJSON(v)
		if err != nil {
			return nil, fmt.Errorf("the value of '%s' cannot be a variable: %v", k, err)
		}
		doc[k] = raw
	}
	return doc, nil
}

// toJSON encodes a FEEL value as a variable value, the way Zeebe stores
// FEEL results (feel.ToJSON).
func toJSON(v any) (json.RawMessage, error) {
	b, err := feel.ToJSON(v)
	return json.RawMessage(b), err
}

// activateActivity creates an activity instance in a flow scope (with
// local variables already set, e.g. a multi-instance inner instance's
// inputElement and loopCounter), applies its input mappings and starts it.
// A plain activity holds a token of its scope; an inner instance is
// counted by its body instead.
func (p *Partition) activateActivity(c *Command, fx *effects, in *Instance, el *bpmn.Element, scope int64, local vars.Doc, loop int, steps []step) []step {
	e := &ElemInst{Key: p.st.nextKey(), InstanceKey: in.Key, Element: el, ScopeKey: scope, Vars: local, LoopCounter: loop}
	p.addElem(in, e)
	if loop == 0 {
		*p.tokens(in, scope)++
	}
	return p.applyInputs(c, fx, in, e, steps)
}

func (p *Partition) applyInputs(c *Command, fx *effects, in *Instance, e *ElemInst, steps []step) []step {
	if len(e.Element.Inputs) > 0 {
		doc, err := evalMappings(e.Element.Inputs, p.lookupAt(in, e))
		if err != nil {
			e.Stage = stageInput
			p.st.dirtyElem(e.Key)
			p.incidentOn(in, e, "IO_MAPPING_ERROR", fmt.Sprintf("Failed to apply the input mappings of '%s': %v", e.Element.ID, err))
			return steps
		}
		p.setLocal(e, doc)
	}
	if e.LoopCounter == 0 && !p.openActivityBoundaries(c, fx, in, e, stageInput) {
		return steps
	}
	return p.startActivity(c, fx, in, e, steps)
}

// openActivityBoundaries opens the message and timer boundary events of an
// activity instance (a plain activity, or a multi-instance body); an
// expression that fails holds it with an incident whose resolution retries
// from stage.
func (p *Partition) openActivityBoundaries(c *Command, fx *effects, in *Instance, e *ElemInst, stage int) bool {
	plans, err := p.planBoundaries(c, p.lookupAt(in, e), e.Element)
	if err != nil {
		e.Stage = stage
		p.st.dirtyElem(e.Key)
		p.incidentOn(in, e, "EXTRACT_VALUE_ERROR", err.Error())
		return false
	}
	p.openBoundaries(c, fx, in, e, plans)
	return true
}

func (p *Partition) startActivity(c *Command, fx *effects, in *Instance, e *ElemInst, steps []step) []step {
	switch e.Element.Kind {
	case bpmn.ServiceTask:
		p.startTask(c, fx, in, e)
	case bpmn.SubProcess:
		e.Stage = 0
		p.st.dirtyElem(e.Key)
		e.Tokens++
		p.st.dirtyElem(e.Key)
		steps = append(steps, step{el: e.Element.Start, scope: e.Key})
	case bpmn.CallActivity:
		p.startCall(c, fx, in, e)
	case bpmn.BusinessRuleTask:
		return p.evaluateCalledDecision(c, fx, in, e, steps) // decisions.go
	}
	return steps
}

// completeActivity ends an activity instance: doc (a completed job's
// variables, a called instance's variables) goes through the output
// mappings when there are any (set locally, then only the mapped targets
// are merged into the flow scope), else is merged with propagation from the
// activity's own scope. Then the token moves on (or, for an inner
// instance, its multi-instance body is told).
func (p *Partition) completeActivity(c *Command, fx *effects, in *Instance, e *ElemInst, doc vars.Doc, steps []step) []step {
	el := e.Element
	if len(el.Outputs) > 0 {
		p.setLocal(e, doc)
		out, err := evalMappings(el.Outputs, p.lookupAt(in, e))
		if err != nil {
			e.Stage = stageComplete
			p.st.dirtyElem(e.Key)
			p.incidentOn(in, e, "IO_MAPPING_ERROR", fmt.Sprintf("Failed to apply the output mappings of '%s': %v", el.ID, err))
			return steps
		}
		p.mergePropagate(in, e.ScopeKey, out)
	} else if len(doc) > 0 {
		p.mergePropagate(in, e.Key, doc)
	}
	e.Stage = 0
	p.st.dirtyElem(e.Key)
	if e.LoopCounter > 0 {
		body := p.elem(e.ScopeKey)
		if body != nil && body.Body != nil && el.MI.OutputElement != nil {
			v, err := el.MI.OutputElement.Eval(p.lookupAt(in, e))
			var raw json.RawMessage
			if err == nil {
				raw, err = toJSON(v)
			}
			if err != nil {
				e.Stage = stageComplete
				p.st.dirtyElem(e.Key)
				p.incidentOn(in, e, "EXTRACT_VALUE_ERROR", fmt.Sprintf("Failed to evaluate the outputElement of '%s': %v", el.ID, err))
				return steps
			}
			if i := e.LoopCounter - 1; i < len(body.Body.Outputs) {
				body.Body.Outputs[i] = raw
				p.st.dirtyElem(body.Key)
				p.st.bodyOutput(body.Key, i)
			}
		}
		p.removeElem(fx, in, e)
		if body == nil {
			return steps
		}
		return p.innerDone(c, fx, in, body, steps)
	}
	p.removeElem(fx, in, e)
	*p.tokens(in, e.ScopeKey)--
	return p.follow(in, e.ScopeKey, steps, el.Outgoing)
}

// scopeDone completes an embedded subprocess whose last token ended.
func (p *Partition) scopeDone(c *Command, fx *effects, in *Instance, scope int64, steps []step) []step {
	e := p.elem(scope)
	if e == nil || e.Tokens > 0 || e.IncidentKey != 0 || e.Element.Kind != bpmn.SubProcess || e.Body != nil {
		return steps
	}
	e.Joins = nil
	p.st.dirtyElem(e.Key)
	return p.completeActivity(c, fx, in, e, nil, steps)
}

// errorCatch is where a thrown error is caught: an activity instance (of
// instance in) and its error boundary event.
type errorCatch struct {
	in       *Instance
	activity *ElemInst
	boundary *bpmn.Element
}

// findCatch looks for the error boundary event that catches an error
// thrown by the activity instance from (a job's task; nil for an error end
// event) in flow scope scope: the activity itself, then each enclosing
// activity instance outwards, then the call activity of a called instance.
// Multi-instance inner instances are skipped: the boundary events belong to
// the body.
func (p *Partition) findCatch(in *Instance, from *ElemInst, scope int64, code string) *errorCatch {
	cur, curIn := from, in
	if cur == nil {
		cur = p.elem(scope)
	}
	for depth := 0; depth < 100_000; depth++ {
		if cur == nil {
			// The process instance: continue at its call activity, if any.
			if curIn.ParentKey == 0 {
				return nil
			}
			parent := p.inst(curIn.ParentKey)
			pe := p.elem(curIn.ParentElemKey)
			if parent == nil || pe == nil || parent.State != InstActive {
				return nil
			}
			cur, curIn = pe, parent
			continue
		}
		if cur.LoopCounter == 0 {
			if b := catchingBoundary(cur.Element, code); b != nil {
				return &errorCatch{in: curIn, activity: cur, boundary: b}
			}
		}
		if cur.ScopeKey == 0 {
			cur = nil
		} else {
			cur = p.elem(cur.ScopeKey)
		}
	}
	return nil
}

// throwFrom throws an error (see findCatch). The catching activity is
// terminated with everything inside it and its boundary event takes over
// its token. It returns the steps to run in instance in, and false when
// nothing catches the error (nothing was changed then).
func (p *Partition) throwFrom(c *Command, fx *effects, in *Instance, from *ElemInst, scope int64, code string, steps []step, before func()) ([]step, bool) {
	return p.throwFromVars(c, fx, in, from, scope, code, steps, before, nil)
}

// throwFromVars is throwFrom with the error's variables, which the catching
// boundary event's output mappings see (signals.go, enterMappedEvent).
func (p *Partition) throwFromVars(c *Command, fx *effects, in *Instance, from *ElemInst, scope int64, code string, steps []step, before func(), doc vars.Doc) ([]step, bool) {
	ct := p.findCatch(in, from, scope, code)
	if ct == nil {
		return steps, false
	}
	if before != nil {
		before()
	}
	sc := ct.activity.ScopeKey
	p.terminate(c, fx, ct.in, ct.activity)
	more := []step{{el: ct.boundary, scope: sc, doc: doc}}
	if ct.in == in {
		return append(steps, more...), true
	}
	p.run(c, fx, ct.in, more)
	return steps, true
}

// catchingBoundary is the error boundary event of an activity that catches
// a code: one with that code first, else a catch-all one.
func catchingBoundary(el *bpmn.Element, code string) *bpmn.Element {
	for _, b := range el.Boundaries {
		if !b.CatchAll && b.ErrorCode == code {
			return b
		}
	}
	for _, b := range el.Boundaries {
		if b.CatchAll {
			return b
		}
	}
	return nil
}

// terminate ends an element instance and everything inside it: inner
// element instances, jobs (canceled), incidents, called instances. It does
// not touch the token the instance held in its own scope.
func (p *Partition) terminate(c *Command, fx *effects, in *Instance, e *ElemInst) {
	// Index the instance's element instances by scope once (a
	// multi-instance body may hold thousands of inner instances).
	kids := map[int64][]*ElemInst{}
	for _, x := range in.elems {
		kids[x.ScopeKey] = append(kids[x.ScopeKey], x)
	}
	p.terminateIn(c, fx, in, e, kids)
}

func (p *Partition) terminateIn(c *Command, fx *effects, in *Instance, e *ElemInst, kids map[int64][]*ElemInst) {
	inner := kids[e.Key]
	sortElems(inner)
	for _, x := range inner {
		p.terminateIn(c, fx, in, x, kids)
	}
	if j := p.job(e.JobKey); j != nil && !jobFinished(j.State) {
		if inc := p.incident(j.IncidentKey); inc != nil {
			delete(p.st.Incidents, inc.Key)
			p.st.dirtyInc(inc.Key)
			in.Incidents--
			p.st.dirtyInst(in.Key)
		}
		j.IncidentKey = 0
		j.Worker, j.Deadline = "", 0
		p.st.setJobState(j, JobCanceled)
	}
	if inc := p.incident(e.IncidentKey); inc != nil {
		delete(p.st.Incidents, inc.Key)
		p.st.dirtyInc(inc.Key)
		in.Incidents--
		p.st.dirtyInst(in.Key)
	}
	if child := p.inst(e.ChildKey); child != nil && child.State == InstActive {
		p.cancelInstance(c, fx, child)
	}
	p.removeElem(fx, in, e)
}

// resolveElem retries what an incident on an element instance stopped.
func (p *Partition) resolveElem(c *Command, fx *effects, in *Instance, e *ElemInst) {
	stage := e.Stage
	e.IncidentKey = 0
	p.st.dirtyElem(e.Key)
	switch stage {
	case stageInput:
		e.Stage = 0
		p.st.dirtyElem(e.Key)
		p.run(c, fx, in, p.applyInputs(c, fx, in, e, nil))
	case stageStart:
		p.run(c, fx, in, p.startActivity(c, fx, in, e, nil))
	case stageComplete:
		p.run(c, fx, in, p.completeActivity(c, fx, in, e, nil, nil))
	case stageCollection:
		e.Stage = 0
		p.st.dirtyElem(e.Key)
		p.run(c, fx, in, p.startBody(c, fx, in, e, nil))
	case stageBoundaries:
		e.Stage = 0
		p.st.dirtyElem(e.Key)
		if p.openActivityBoundaries(c, fx, in, e, stageBoundaries) {
			p.run(c, fx, in, p.startBody(c, fx, in, e, nil))
		}
	case stageScopeInput:
		p.resolveScopeInputs(c, fx, in, e) // modify.go
	default:
		p.removeElem(fx, in, e)
		// The held token re-enters the element, which evaluates again.
		p.run(c, fx, in, []step{{el: e.Element, scope: e.ScopeKey}})
	}
}
