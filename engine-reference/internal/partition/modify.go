package partition

import (
	"sort"
	"strconv"
	"strings"

	"github.com/jobwire/jobwire/engine-reference/internal/bpmn"
	"github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"github.com/jobwire/jobwire/engine-reference/internal/vars"
)

// ModifyProcessInstance, following Zeebe 8.8's process instance
// modification (the docs' "Process instance modification" page and the
// facts of its ProcessInstanceModification processor and
// ElementActivationBehavior):
//
//   - activate instructions run first, in order, then terminate
//     instructions;
//   - an element is activated in an instance of its flow scope: with no
//     ancestor given, the one active instance of each enclosing subprocess
//     is used, a missing one is created (activated without taking its start
//     event), several are refused (INVALID_ARGUMENT); with an ancestor, every
//     enclosing subprocess instance below that ancestor is created anew;
//   - variable instructions: an empty scope id (or the process id) sets the
//     variables on the process instance, the activated element's id on its
//     new instance, an enclosing subprocess's id on the instance of that
//     subprocess used or created;
//   - terminating an element instance terminates everything inside it; a
//     flow scope left without anything active and not needed by an
//     activation is terminated too, up to the process instance (which then
//     ends as terminated; an instance created by a call activity is refused
//     instead);
//   - validation happens before anything changes, so the instructions apply
//     all or none. Refusals: NOT_FOUND (no such active instance),
//     INVALID_ARGUMENT (unknown element, an element that cannot be
//     activated: start event, boundary event, sequence flow; unknown or
//     unrelated ancestor, unknown or unrelated variable scope, unknown
//     element instance to terminate, several flow scope instances, a flow
//     scope both needed and terminated), FAILED_PRECONDITION (an element
//     inside a multi-instance subprocess).

// activation is a validated activate instruction: the flow scope chain to
// use (existing keys, or negative placeholders for instances to create).
type activation struct {
	el     *bpmn.Element
	chain  []scopeRef // outermost first; the last one is the element's flow scope
	locals vars.Doc   // variables for the activated element's own instance
	global vars.Doc
	scoped map[string]vars.Doc // subprocess id → variables
}

type scopeRef struct {
	el  *bpmn.Element
	key int64 // > 0: existing element instance; < 0: created by this command
}

// virtScopes is the view of flow scope instances during validation:
// existing element instances plus the ones the earlier instructions create.
type virtScopes struct {
	p       *Partition
	in      *Instance
	created map[int64]scopeRef // placeholder → element
	parents map[int64]int64    // placeholder → flow scope key (0: process)
	next    int64
}

func (v *virtScopes) parentOf(k int64) (int64, bool) {
	if k < 0 {
		pk, ok := v.parents[k]
		return pk, ok
	}
	if e := v.in.elems[k]; e != nil {
		return e.ScopeKey, true
	}
	return 0, false
}

// isAncestor reports whether anc is a (direct or indirect) flow scope of
// instance k; the process instance's key is every instance's ancestor.
func (v *virtScopes) isAncestor(anc, k int64) bool {
	if anc == v.in.Key {
		return true
	}
	for i := 0; i < 10_000; i++ {
		pk, ok := v.parentOf(k)
		if !ok || pk == 0 {
			return false
		}
		if pk == anc {
			return true
		}
		k = pk
	}
	return false
}

// instancesOf lists the instances of subprocess el whose flow scope is
// parent.
func (v *virtScopes) instancesOf(el *bpmn.Element, parent int64) []int64 {
	var out []int64
	for k, e := range v.in.elems {
		if e.Element == el && e.ScopeKey == parent && e.LoopCounter == 0 {
			out = append(out, k)
		}
	}
	for k, r := range v.created {
		if r.el == el && v.parents[k] == parent {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, k int) bool { return out[i] < out[k] })
	return out
}

func (p *Partition) modify(c *Command, fx *effects) (any, error) {
	in := p.inst(c.Key)
	if in == nil || in.State != InstActive {
		return nil, reject(c.Op, RejNotFound, "Expected to modify process instance but no process instance found with key '%d'", c.Key)
	}
	args := c.Ops
	if args == nil {
		args = &OpsArgs{}
	}
	acts, required, err := p.planActivations(c, in, args.Activate)
	if err != nil {
		return nil, err
	}
	terms, err := p.planTerminations(c, in, args.Terminate, acts, required, len(acts) > 0)
	if err != nil {
		return nil, err
	}
	if p.st.touched != nil {
		p.st.touched.instance(in.Key)
	}
	p.st.dirtyInst(in.Key)
	created := map[int64]int64{}
	for _, a := range acts {
		p.applyActivation(c, fx, in, a, created)
		if in.State != InstActive {
			break
		}
	}
	for _, k := range terms {
		if in.State != InstActive {
			break
		}
		e := in.elems[k]
		if e == nil {
			continue // inside an instance terminated before
		}
		p.terminateCascade(c, fx, in, e, required, created, len(acts) > 0)
	}
	if in.State == InstActive {
		p.checkDone(c, fx, in)
	}
	return &gatewaypb.ModifyProcessInstanceResponse{}, nil
}

func (p *Partition) planActivations(c *Command, in *Instance, instrs []ActivateArg) ([]activation, map[int64]bool, error) {
	id := in.BpmnProcessID
	var unknown, unsupported, types []string
	for _, a := range instrs {
		el := in.proc.Elements[a.ElementID]
		switch {
		case el == nil && in.proc.Flows[a.ElementID] != nil:
			unsupported, types = append(unsupported, a.ElementID), append(types, "SEQUENCE_FLOW")
		case el == nil:
			unknown = append(unknown, a.ElementID)
		case el.Kind == bpmn.StartEvent:
			unsupported, types = append(unsupported, a.ElementID), append(types, "START_EVENT")
		case el.Kind == bpmn.BoundaryEvent:
			unsupported, types = append(unsupported, a.ElementID), append(types, "BOUNDARY_EVENT")
		}
	}
	if len(unknown) > 0 {
		return nil, nil, reject(c.Op, RejInvalidArgument, "Expected to modify instance of process '%s' but it contains one or more activate instructions with an element that could not be found: '%s'", id, strings.Join(unknown, "', '"))
	}
	if len(unsupported) > 0 {
		return nil, nil, reject(c.Op, RejInvalidArgument, "Expected to modify instance of process '%s' but it contains one or more activate instructions for elements that are unsupported: '%s'. The activation of elements with type '%s' is not supported", id, strings.Join(unsupported, "', '"), strings.Join(types, "', '"))
	}
	for _, a := range instrs {
		el := in.proc.Elements[a.ElementID]
		for s := el.Parent; s != nil; s = s.Parent {
			if s.MI != nil {
				return nil, nil, reject(c.Op, RejInvalidState, "Expected to modify instance of process '%s' but it contains one or more activate instructions that would result in the activation of multi-instance element '%s' (element '%s' is inside it), which is not supported", id, s.ID, el.ID)
			}
		}
	}
	// variable instructions
	var acts []activation
	for _, a := range instrs {
		el := in.proc.Elements[a.ElementID]
		act := activation{el: el, scoped: map[string]vars.Doc{}}
		for _, vi := range a.Variables {
			doc, err := vars.Parse(vi.Variables)
			if err != nil {
				return nil, nil, reject(c.Op, RejInvalidArgument, "Property 'variables' is invalid: %v", err)
			}
			switch {
			case vi.ScopeID == "" || vi.ScopeID == in.BpmnProcessID:
				act.global = mergeDoc(act.global, doc)
			case vi.ScopeID == el.ID:
				act.locals = mergeDoc(act.locals, doc)
			case in.proc.Elements[vi.ScopeID] == nil:
				return nil, nil, reject(c.Op, RejInvalidArgument, "Expected to modify instance of process '%s' but it contains one or more variable instructions with a scope element id that could not be found: '%s'", id, vi.ScopeID)
			default:
				if !isFlowScopeOf(el, vi.ScopeID) {
					return nil, nil, reject(c.Op, RejInvalidArgument, "Expected to modify instance of process '%s' but it contains one or more variable instructions with a scope element that doesn't belong to the activating element's flow scope. These variables should be set before or after the modification.", id)
				}
				act.scoped[vi.ScopeID] = mergeDoc(act.scoped[vi.ScopeID], doc)
			}
		}
		acts = append(acts, act)
	}
	// ancestors
	for _, a := range instrs {
		if a.Ancestor <= 0 {
			continue
		}
		if a.Ancestor == in.Key {
			continue
		}
		e := p.st.Elems[a.Ancestor]
		if e == nil {
			return nil, nil, reject(c.Op, RejInvalidArgument, "Expected to modify instance of process '%s' but it contains one or more activate instructions with an ancestor scope key that does not exist, or is not in an active state: '%d'", id, a.Ancestor)
		}
		if e.InstanceKey != in.Key {
			return nil, nil, reject(c.Op, RejInvalidArgument, "Expected to modify instance of process '%s' but it contains one or more activate instructions with an ancestor scope key that does not belong to the modified process instance: '%d'", id, a.Ancestor)
		}
		if !isFlowScopeOf(in.proc.Elements[a.ElementID], e.Element.ID) {
			return nil, nil, reject(c.Op, RejInvalidArgument, "Expected to modify instance of process '%s' but it contains one or more activate instructions with an ancestor scope key that is not an ancestor of the element to activate: instance '%d' of element '%s' is not an ancestor of element '%s'", id, a.Ancestor, e.Element.ID, a.ElementID)
		}
	}
	// flow scope instances
	v := &virtScopes{p: p, in: in, created: map[int64]scopeRef{}, parents: map[int64]int64{}}
	required := map[int64]bool{}
	for i, a := range instrs {
		var subs []*bpmn.Element
		for s := acts[i].el.Parent; s != nil; s = s.Parent {
			subs = append([]*bpmn.Element{s}, subs...)
		}
		parent := int64(0)
		for _, s := range subs {
			k, err := p.pickScope(c, v, s, parent, a.Ancestor)
			if err != nil {
				return nil, nil, err
			}
			if k == 0 {
				v.next--
				k = v.next
				v.created[k] = scopeRef{el: s, key: k}
				v.parents[k] = parent
			}
			acts[i].chain = append(acts[i].chain, scopeRef{el: s, key: k})
			required[k] = true
			parent = k
		}
	}
	return acts, required, nil
}

// pickScope chooses the instance of subprocess s (in flow scope parent) to
// activate in: an existing one, or 0 to create one.
func (p *Partition) pickScope(c *Command, v *virtScopes, s *bpmn.Element, parent, anc int64) (int64, error) {
	insts := v.instancesOf(s, parent)
	selected := anc > 0
	switch {
	case len(insts) == 0:
		return 0, nil
	case len(insts) == 1:
		if selected && v.isAncestor(anc, insts[0]) {
			return 0, nil
		}
		return insts[0], nil
	case !selected:
		return 0, reject(c.Op, RejInvalidArgument, "Expected to modify instance of process '%s' but it contains one or more activate instructions for an element that has a flow scope with more than one active instance: '%s'. Can't decide in which instance of the flow scope the element should be activated. Please specify an ancestor element instance key for this activate instruction.", v.in.BpmnProcessID, s.ID)
	}
	for _, k := range insts {
		if k == anc {
			return k, nil
		}
	}
	for _, k := range insts {
		if v.isAncestor(anc, k) {
			return 0, nil
		}
	}
	for _, k := range insts {
		if v.isAncestor(k, anc) {
			return k, nil
		}
	}
	return 0, reject(c.Op, RejInvalidArgument, "Expected to modify instance of process '%s' but it contains one or more activate instructions for an element that has a flow scope with more than one active instance: '%s'. Can't decide in which instance of the flow scope the element should be activated. Please specify an ancestor element instance key for this activate instruction.", v.in.BpmnProcessID, s.ID)
}

func isFlowScopeOf(el *bpmn.Element, id string) bool {
	for s := el.Parent; s != nil; s = s.Parent {
		if s.ID == id {
			return true
		}
	}
	return false
}

func mergeDoc(into, doc vars.Doc) vars.Doc {
	if into == nil {
		into = vars.Doc{}
	}
	vars.Merge(into, doc)
	return into
}

// planTerminations validates the terminate instructions and checks, on a
// dry run, that they do not end an instance created by a call activity.
func (p *Partition) planTerminations(c *Command, in *Instance, keys []int64, acts []activation, required map[int64]bool, activating bool) ([]int64, error) {
	id := in.BpmnProcessID
	var unknown []string
	for _, k := range keys {
		if e := in.elems[k]; e == nil {
			unknown = append(unknown, itoa(k))
		}
	}
	if len(unknown) > 0 {
		return nil, reject(c.Op, RejInvalidArgument, "Expected to modify instance of process '%s' but it contains one or more terminate instructions with an element instance that could not be found: '%s'", id, strings.Join(unknown, "', '"))
	}
	kids := map[int64][]*ElemInst{}
	for _, x := range in.elems {
		kids[x.ScopeKey] = append(kids[x.ScopeKey], x)
	}
	// an activation whose flow scope is terminated
	var conflicts []string
	for _, k := range keys {
		for _, a := range acts {
			for _, s := range a.chain {
				if s.key == k || (s.key > 0 && isInside(in, s.key, k)) {
					conflicts = append(conflicts, "element '"+a.el.ID+"' requires flow scope instance '"+itoa(k)+"' which is being terminated")
					break
				}
			}
		}
	}
	if len(conflicts) > 0 {
		return nil, reject(c.Op, RejInvalidArgument, "Expected to modify instance of process '%s' but it contains one or more activate instructions for elements whose required flow scope instance is also being terminated: %s. Please provide a valid ancestor scope key for the activation or avoid terminating the required flow scope.", id, strings.Join(conflicts, ", "))
	}
	// dry run of the termination cascade
	gone := map[int64]bool{}
	var mark func(e *ElemInst)
	mark = func(e *ElemInst) {
		gone[e.Key] = true
		for _, x := range kids[e.Key] {
			mark(x)
		}
	}
	endsInstance := false
	for _, k := range keys {
		e := in.elems[k]
		if gone[k] {
			continue
		}
		mark(e)
		scope := e.ScopeKey
		for {
			if !scopeEmptied(in, scope, kids, gone) || required[scope] {
				break
			}
			if scope == 0 {
				endsInstance = !activating
				break
			}
			s := in.elems[scope]
			mark(s)
			scope = s.ScopeKey
		}
	}
	if endsInstance && in.ParentKey != 0 {
		return nil, reject(c.Op, RejInvalidArgument, "Expected to modify instance of process '%s' but the given instructions would terminate the instance. The instance was created by a call activity in the parent process. To terminate this instance please modify the parent process instead.", id)
	}
	return keys, nil
}

// isInside reports whether element instance k is (directly or not) inside
// element instance anc.
func isInside(in *Instance, k, anc int64) bool {
	for i := 0; i < 10_000; i++ {
		e := in.elems[k]
		if e == nil || e.ScopeKey == 0 {
			return false
		}
		if e.ScopeKey == anc {
			return true
		}
		k = e.ScopeKey
	}
	return false
}

// scopeEmptied reports whether a flow scope (0: the process instance) has
// nothing active left once the instances in gone are terminated: no child
// instance and no token other than the ones its children hold.
func scopeEmptied(in *Instance, scope int64, kids map[int64][]*ElemInst, gone map[int64]bool) bool {
	held := 0
	for _, x := range kids[scope] {
		if !gone[x.Key] {
			return false
		}
		if x.LoopCounter == 0 {
			held++
		}
	}
	if scope == 0 {
		return in.tokens <= held
	}
	s := in.elems[scope]
	if s == nil {
		return false
	}
	if s.Body != nil {
		return true
	}
	return s.Tokens <= held
}

// applyActivation creates the missing flow scope instances, sets the
// variables and activates the element.
func (p *Partition) applyActivation(c *Command, fx *effects, in *Instance, a activation, created map[int64]int64) {
	if len(a.global) > 0 {
		p.mergePropagate(in, 0, a.global)
	}
	scope := int64(0)
	for _, s := range a.chain {
		k := s.key
		if k < 0 {
			if real, ok := created[k]; ok {
				k = real
			} else {
				k = p.createFlowScope(c, fx, in, s.el, scope, a.scoped[s.el.ID])
				created[s.key] = k
				scope = k
				continue
			}
		}
		if doc := a.scoped[s.el.ID]; len(doc) > 0 {
			if e := p.elem(k); e != nil {
				p.setLocal(e, doc)
			}
		}
		scope = k
	}
	if p.elem(scope) == nil && scope != 0 {
		return // the flow scope ended while its inputs failed
	}
	if a.el.IsActivity() && a.el.MI == nil {
		p.run(c, fx, in, p.activateActivity(c, fx, in, a.el, scope, a.locals, 0, nil))
		return
	}
	before := map[int64]bool{}
	for k := range in.elems {
		before[k] = true
	}
	*p.tokens(in, scope)++
	p.run(c, fx, in, []step{{el: a.el, scope: scope}})
	if len(a.locals) == 0 {
		return
	}
	var first *ElemInst
	for k, e := range in.elems {
		if !before[k] && e.Element == a.el && e.ScopeKey == scope && (first == nil || k < first.Key) {
			first = e
		}
	}
	if first != nil {
		p.setLocal(first, a.locals)
	}
}

// createFlowScope activates an instance of subprocess el in flow scope
// scope without taking its start event (the element to activate inside it
// follows): its local variables, input mappings and boundary events.
func (p *Partition) createFlowScope(c *Command, fx *effects, in *Instance, el *bpmn.Element, scope int64, local vars.Doc) int64 {
	e := &ElemInst{Key: p.st.nextKey(), InstanceKey: in.Key, Element: el, ScopeKey: scope}
	p.addElem(in, e)
	*p.tokens(in, scope)++
	if len(local) > 0 {
		p.setLocal(e, local)
	}
	if len(el.Inputs) > 0 {
		doc, err := evalMappings(el.Inputs, p.lookupAt(in, e))
		if err != nil {
			e.Stage = stageInput
			p.st.dirtyElem(e.Key)
			p.incidentOn(in, e, "IO_MAPPING_ERROR", "Failed to apply the input mappings of '"+el.ID+"': "+err.Error())
			return e.Key
		}
		p.setLocal(e, doc)
	}
	p.openActivityBoundaries(c, fx, in, e, stageInput)
	return e.Key
}

// terminateCascade terminates an element instance and then every flow
// scope instance it leaves empty (unless an activation needs it), up to
// the process instance.
func (p *Partition) terminateCascade(c *Command, fx *effects, in *Instance, e *ElemInst, required map[int64]bool, created map[int64]int64, activating bool) {
	need := map[int64]bool{}
	for k := range required {
		if k < 0 {
			k = created[k]
		}
		need[k] = true
	}
	for {
		scope := e.ScopeKey
		p.terminateHeld(c, fx, in, e)
		if need[scope] {
			return
		}
		if scope == 0 {
			if in.tokens == 0 && len(in.elems) == 0 && !activating {
				p.cancelInstance(c, fx, in)
			}
			return
		}
		s := p.elem(scope)
		if s == nil || !p.scopeIdle(in, s) {
			return
		}
		e = s
	}
}

// scopeIdle reports whether a subprocess or multi-instance body instance
// has nothing active inside it.
func (p *Partition) scopeIdle(in *Instance, s *ElemInst) bool {
	for _, x := range in.elems {
		if x.ScopeKey == s.Key {
			return false
		}
	}
	if s.Body != nil {
		return true
	}
	return s.Tokens == 0
}

// terminateHeld terminates an element instance and gives back the token it
// held in its flow scope (an inner instance of a multi-instance body is
// counted by its body instead).
func (p *Partition) terminateHeld(c *Command, fx *effects, in *Instance, e *ElemInst) {
	p.terminate(c, fx, in, e)
	if e.LoopCounter > 0 {
		if body := p.elem(e.ScopeKey); body != nil && body.Body != nil {
			body.Body.Active--
			p.st.dirtyElem(body.Key)
		}
		return
	}
	*p.tokens(in, e.ScopeKey)--
}

func itoa(k int64) string { return strconv.FormatInt(k, 10) }
