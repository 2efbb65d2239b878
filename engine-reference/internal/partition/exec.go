package partition

import (
	"fmt"

	"github.com/jobwire/jobwire/engine-reference/internal/bpmn"
	"github.com/jobwire/jobwire/engine-reference/internal/vars"
)

// step is a token about to enter an element (via a sequence flow) in a
// flow scope: 0 is the process instance, otherwise the key of the embedded
// subprocess instance the element is in.
type step struct {
	el    *bpmn.Element
	via   *bpmn.Flow
	scope int64
	// doc: the variables of the event that a start or boundary event with
	// output mappings was triggered by (signals.go, enterMappedEvent).
	doc vars.Doc
}

// Token accounting: in.tokens counts tokens that are in flight (queued
// steps) or held (waiting service tasks, gateways with incidents, arrivals
// waiting at a parallel join). The instance completes when it reaches 0.

// MaxStepsPerCommand is the step budget of one command: how many element
// entries (taken or queued) one command may cause in an instance. A process
// can loop without a wait state (two exclusive gateways pointing at each
// other); without a budget such an instance would spin its partition
// forever and stall every instance on it. Over the budget, every token
// still moving is held by a STEP_LIMIT_EXCEEDED incident on the element it
// was about to enter: the instance stops, the partition goes on, and
// resolving the incident lets the token continue (with a fresh budget).
var MaxStepsPerCommand = 1000

// maxQueuedSteps bounds the tokens queued at once in one command (a
// parallel fork in a loop would otherwise grow the queue faster than the
// step budget is spent); a parallel multi-instance subprocess queues one
// per item.
const maxQueuedSteps = 4 * MaxMultiInstanceItems

// StepsPerWait is the step budget a command gains for every job it
// creates: a wait state is progress, not a loop, so a parallel
// multi-instance activity over thousands of items (each inner instance a
// few steps up to its job) is not mistaken for a loop, while a loop
// without a wait state still exhausts the budget.
const StepsPerWait = 8

// IncidentStepLimit is the incident type of an exhausted step budget.
const IncidentStepLimit = "STEP_LIMIT_EXCEEDED"

// run executes steps until every token waits or ends: one command runs the
// instance to its next wait state.
func (p *Partition) run(c *Command, fx *effects, in *Instance, steps []step) {
	for i := 0; i < len(steps); i++ {
		if c.steps+i > MaxStepsPerCommand || len(steps)-i > maxQueuedSteps {
			c.steps += len(steps)
			p.stepLimit(c, in, steps[i:])
			return
		}
		s := steps[i]
		if s.scope != 0 && p.elem(s.scope) == nil {
			continue // its subprocess was terminated (a caught error) meanwhile
		}
		*p.tokens(in, s.scope)--
		steps = p.enter(c, fx, in, s, steps, steps[i+1:])
		if in.State != InstActive {
			return
		}
		if s.scope != 0 {
			steps = p.scopeDone(c, fx, in, s.scope, steps)
		}
	}
	c.steps += len(steps)
	p.checkDone(c, fx, in)
}

// stepLimit holds every pending token with an incident (one per element).
func (p *Partition) stepLimit(c *Command, in *Instance, pending []step) {
	type at struct {
		el    *bpmn.Element
		scope int64
	}
	held := map[at]bool{}
	for _, s := range pending {
		if s.scope != 0 && p.elem(s.scope) == nil {
			continue
		}
		*p.tokens(in, s.scope)-- // the step's token is now held by the incident (or merged into one)
		if held[at{s.el, s.scope}] {
			continue
		}
		held[at{s.el, s.scope}] = true
		p.elementIncident(c, in, s.el, s.scope, IncidentStepLimit, fmt.Sprintf(
			"Expected element '%s' to be entered, but the command took more than %d steps in process instance '%d' without reaching a wait state (a loop without a service task?)",
			s.el.ID, MaxStepsPerCommand, in.Key))
	}
}

func (p *Partition) follow(in *Instance, scope int64, steps []step, flows []*bpmn.Flow) []step {
	for _, f := range flows {
		*p.tokens(in, scope)++
		steps = append(steps, step{el: in.proc.Elements[f.Target], via: f, scope: scope})
	}
	return steps
}

func (p *Partition) enter(c *Command, fx *effects, in *Instance, s step, steps, rest []step) []step {
	el := s.el
	switch el.Kind {
	case bpmn.StartEvent, bpmn.BoundaryEvent:
		if len(el.Outputs) > 0 {
			return p.enterMappedEvent(c, fx, in, s, steps) // signals.go
		}
		return p.follow(in, s.scope, steps, el.Outgoing)
	case bpmn.IntermediateThrowEvent:
		return p.enterThrowEvent(c, fx, in, s, steps) // signals.go
	case bpmn.EventBasedGateway:
		p.enterEventGateway(c, fx, in, el, s.scope) // signals.go
		return steps
	case bpmn.EndEvent:
		if el.Event != nil || len(el.Inputs) > 0 {
			return p.enterThrowEvent(c, fx, in, s, steps) // a signal end event (signals.go)
		}
		if el.ThrowsError {
			// The error is caught by the nearest error boundary event of an
			// enclosing subprocess (or call activity); when none matches, as
			// in Zeebe, the instance gets an UNHANDLED_ERROR_EVENT incident
			// at the end event.
			if more, ok := p.throwFrom(c, fx, in, nil, s.scope, el.ErrorCode, steps, nil); ok {
				return more
			}
			p.elementIncident(c, in, el, s.scope, "UNHANDLED_ERROR_EVENT", fmt.Sprintf(
				"Expected to throw an error event with the code '%s', but it was not caught. No error events are available in the scope.", el.ErrorCode))
		}
		return steps
	case bpmn.ServiceTask, bpmn.SubProcess, bpmn.CallActivity, bpmn.BusinessRuleTask:
		if el.MI != nil {
			return p.activateBody(c, fx, in, el, s.scope, steps)
		}
		return p.activateActivity(c, fx, in, el, s.scope, nil, 0, steps)
	case bpmn.IntermediateCatchEvent, bpmn.ReceiveTask:
		p.enterEventElement(c, fx, in, el, s.scope)
		return steps
	case bpmn.ExclusiveGateway:
		return p.exclusive(c, in, el, s.scope, steps)
	case bpmn.InclusiveGateway:
		return p.inclusive(c, in, s, steps, rest)
	case bpmn.ParallelGateway:
		if len(el.Incoming) <= 1 || s.via == nil {
			return p.follow(in, s.scope, steps, el.Outgoing)
		}
		arr := p.joinArrivals(in, s.scope, el.ID)
		arr[s.via.ID]++
		*p.tokens(in, s.scope)++ // held at the join
		for _, f := range el.Incoming {
			if arr[f.ID] == 0 {
				return steps
			}
		}
		for _, f := range el.Incoming {
			arr[f.ID]--
		}
		*p.tokens(in, s.scope) -= len(el.Incoming)
		return p.follow(in, s.scope, steps, el.Outgoing)
	}
	return steps
}

func (p *Partition) exclusive(c *Command, in *Instance, el *bpmn.Element, scope int64, steps []step) []step {
	if len(el.Outgoing) == 1 && el.Outgoing[0].Condition == nil {
		return p.follow(in, scope, steps, el.Outgoing)
	}
	var def *bpmn.Flow
	look := p.lookupScope(in, scope)
	for _, f := range el.Outgoing {
		if f.ID == el.DefaultFlow {
			def = f
			continue
		}
		if f.Condition == nil {
			continue
		}
		ok, err := f.Condition.EvalBool(look)
		if err != nil {
			p.elementIncident(c, in, el, scope, "CONDITION_ERROR", fmt.Sprintf("Failed to evaluate expression '%s' of sequence flow '%s': %v", f.Condition, f.ID, err))
			return steps
		}
		if ok {
			return p.follow(in, scope, steps, []*bpmn.Flow{f})
		}
	}
	if def != nil {
		return p.follow(in, scope, steps, []*bpmn.Flow{def})
	}
	p.elementIncident(c, in, el, scope, "CONDITION_ERROR", fmt.Sprintf("Expected at least one condition to evaluate to true, or to have a default flow, but none of the conditions of exclusive gateway '%s' was true", el.ID))
	return steps
}

// elementIncident holds a token at an element until the incident is
// resolved; resolving re-enters the element in its scope.
func (p *Partition) elementIncident(c *Command, in *Instance, el *bpmn.Element, scope int64, typ, msg string) {
	e := &ElemInst{Key: p.st.nextKey(), InstanceKey: in.Key, Element: el, ScopeKey: scope}
	p.addElem(in, e)
	*p.tokens(in, scope)++
	p.incidentOn(in, e, typ, msg)
}

// incidentOn opens an incident on an element instance (no job).
func (p *Partition) incidentOn(in *Instance, e *ElemInst, typ, msg string) {
	inc := &Incident{Key: p.st.nextKey(), InstanceKey: in.Key, ElemKey: e.Key, Type: typ, Message: msg}
	e.IncidentKey = inc.Key
	p.st.dirtyElem(e.Key)
	p.st.Incidents[inc.Key] = inc
	p.st.dirtyInc(inc.Key)
	p.st.dirtyInst(inc.InstanceKey)
	p.st.dirtyElem(e.Key)
	in.Incidents++
	p.st.dirtyInst(in.Key)
}

// startTask creates the job of a service task instance (input mappings
// already applied). A job type or retries expression that fails holds the
// instance with an incident; resolving it tries again.
func (p *Partition) startTask(c *Command, fx *effects, in *Instance, e *ElemInst) {
	el := e.Element
	look := p.lookupAt(in, e)
	typ := el.JobType
	if el.JobTypeExpr != nil {
		t, err := el.JobTypeExpr.EvalString(look)
		if err != nil || t == "" {
			e.Stage = stageStart
			p.st.dirtyElem(e.Key)
			p.incidentOn(in, e, "EXTRACT_VALUE_ERROR", fmt.Sprintf("Expected job type of '%s' to be a non-empty string: %v", el.ID, err))
			return
		}
		typ = t
	}
	retries := el.Retries
	if el.RetriesExpr != nil {
		r, err := el.RetriesExpr.EvalInt(look)
		if err != nil {
			e.Stage = stageStart
			p.st.dirtyElem(e.Key)
			p.incidentOn(in, e, "EXTRACT_VALUE_ERROR", fmt.Sprintf("Expected retries of '%s' to be an integer: %v", el.ID, err))
			return
		}
		retries = r
	}
	e.Stage = 0
	p.st.dirtyElem(e.Key)
	j := &Job{Key: p.st.nextKey(), InstanceKey: in.Key, ElemKey: e.Key, DefKey: in.DefKey,
		BpmnProcessID: in.BpmnProcessID, ElementID: el.ID, Version: in.Version, Type: typ,
		Headers: vars.StringMapJSON(el.Headers), Retries: int32(retries), TenantID: DefaultTenant}
	e.JobKey = j.Key
	p.st.dirtyElem(e.Key)
	p.st.Jobs[j.Key] = j
	p.st.dirtyJob(j.Key)
	c.steps -= StepsPerWait
	if retries <= 0 {
		p.st.setJobState(j, JobIncident)
		p.jobIncident(in, j, "JOB_NO_RETRIES", "No more retries left.")
		return
	}
	p.makeAvailable(c, fx, j, true)
}

func (p *Partition) checkDone(c *Command, fx *effects, in *Instance) {
	if in.State != InstActive || in.tokens > 0 {
		return
	}
	in.State = InstCompleted
	p.st.dirtyInst(in.Key)
	in.Completions++
	p.st.dirtyInst(in.Key)
	in.joins = nil
	p.st.dirtyInst(in.Key)
	p.st.activeInstances--
	p.answerWaiters(fx, in, nil)
	p.st.finishInstance(in)
	p.instanceEnded(c, fx, in) // buffered message start events (messages_correlate.go)
	p.childCompleted(c, fx, in)
}

// inclusive is the inclusive gateway. As a join (more than one incoming
// flow) it waits until no token of its scope can still arrive: none is
// queued, waiting or held at an element from which the gateway is
// reachable. Then (or as a plain fork) it takes every outgoing flow whose
// condition is true, the default flow when none is, and raises an incident
// when there is neither.
func (p *Partition) inclusive(c *Command, in *Instance, s step, steps, rest []step) []step {
	el := s.el
	if len(el.Incoming) > 1 && s.via != nil {
		arr := p.joinArrivals(in, s.scope, el.ID)
		arr[s.via.ID]++
		*p.tokens(in, s.scope)++
		if p.canArrive(in, s.scope, el, rest) {
			return steps
		}
		n := 0
		for _, f := range el.Incoming {
			if arr[f.ID] > 0 {
				arr[f.ID]--
				n++
			}
		}
		*p.tokens(in, s.scope) -= n
	}
	if len(el.Outgoing) == 1 && el.Outgoing[0].Condition == nil {
		return p.follow(in, s.scope, steps, el.Outgoing)
	}
	var def *bpmn.Flow
	var taken []*bpmn.Flow
	look := p.lookupScope(in, s.scope)
	for _, f := range el.Outgoing {
		if f.ID == el.DefaultFlow {
			def = f
			continue
		}
		if f.Condition == nil {
			continue
		}
		ok, err := f.Condition.EvalBool(look)
		if err != nil {
			p.elementIncident(c, in, el, s.scope, "CONDITION_ERROR", fmt.Sprintf("Failed to evaluate expression '%s' of sequence flow '%s': %v", f.Condition, f.ID, err))
			return steps
		}
		if ok {
			taken = append(taken, f)
		}
	}
	if len(taken) == 0 && def != nil {
		taken = []*bpmn.Flow{def}
	}
	if len(taken) == 0 {
		p.elementIncident(c, in, el, s.scope, "CONDITION_ERROR", fmt.Sprintf("Expected at least one condition to evaluate to true, or to have a default flow, but none of the conditions of inclusive gateway '%s' was true", el.ID))
		return steps
	}
	return p.follow(in, s.scope, steps, taken)
}

// canArrive reports whether a token of the scope may still reach the join.
func (p *Partition) canArrive(in *Instance, scope int64, gw *bpmn.Element, rest []step) bool {
	for _, s := range rest {
		if s.scope == scope && (s.el == gw || gw.Reach[s.el.ID]) {
			return true
		}
	}
	for _, e := range in.elems {
		if e.ScopeKey == scope && gw.Reach[e.Element.ID] && e.Element != gw {
			return true
		}
	}
	var joins map[string]map[string]int
	if scope == 0 {
		joins = in.joins
	} else if e := p.elem(scope); e != nil {
		joins = e.Joins
	}
	for id, arr := range joins {
		if id == gw.ID || !gw.Reach[id] {
			continue
		}
		for _, n := range arr {
			if n > 0 {
				return true
			}
		}
	}
	return false
}
