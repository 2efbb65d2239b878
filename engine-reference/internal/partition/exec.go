package partition

import (
	"encoding/json"
	"fmt"

	"github.com/jobwire/jobwire/engine-reference/internal/bpmn"
	"github.com/jobwire/jobwire/engine-reference/internal/vars"
)

// step is a token about to enter an element (via a sequence flow).
type step struct {
	el  *bpmn.Element
	via *bpmn.Flow
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

// IncidentStepLimit is the incident type of an exhausted step budget.
const IncidentStepLimit = "STEP_LIMIT_EXCEEDED"

// run executes steps until every token waits or ends: one command runs the
// instance to its next wait state.
func (p *Partition) run(c *Command, fx *effects, in *Instance, steps []step) {
	for i := 0; i < len(steps); i++ {
		if c.steps+len(steps) > MaxStepsPerCommand {
			c.steps += len(steps)
			p.stepLimit(c, in, steps[i:])
			return
		}
		s := steps[i]
		in.tokens--
		steps = p.enter(c, fx, in, s, steps)
		if in.State != InstActive {
			return
		}
	}
	c.steps += len(steps)
	p.checkDone(fx, in)
	if in.State != InstActive {
		p.instanceEnded(c, fx, in) // buffered message start events (messages.go)
	}
}

// stepLimit holds every pending token with an incident (one per element).
func (p *Partition) stepLimit(c *Command, in *Instance, pending []step) {
	held := map[*bpmn.Element]bool{}
	for _, s := range pending {
		in.tokens-- // the step's token is now held by the incident (or merged into one)
		if held[s.el] {
			continue
		}
		held[s.el] = true
		p.elementIncident(c, in, s.el, IncidentStepLimit, fmt.Sprintf(
			"Expected element '%s' to be entered, but the command took more than %d steps in process instance '%d' without reaching a wait state (a loop without a service task?)",
			s.el.ID, MaxStepsPerCommand, in.Key))
	}
}

func (p *Partition) follow(in *Instance, steps []step, flows []*bpmn.Flow) []step {
	for _, f := range flows {
		in.tokens++
		steps = append(steps, step{el: in.proc.Elements[f.Target], via: f})
	}
	return steps
}

func (p *Partition) enter(c *Command, fx *effects, in *Instance, s step, steps []step) []step {
	el := s.el
	switch el.Kind {
	case bpmn.StartEvent, bpmn.BoundaryEvent:
		return p.follow(in, steps, el.Outgoing)
	case bpmn.EndEvent:
		if el.ThrowsError {
			// No element of the subset can catch an error thrown by an end
			// event (no subprocesses), so, as in Zeebe when no catch event
			// matches, the instance gets an UNHANDLED_ERROR_EVENT incident
			// at the end event.
			p.elementIncident(c, in, el, "UNHANDLED_ERROR_EVENT", fmt.Sprintf(
				"Expected to throw an error event with the code '%s', but it was not caught. No error events are available in the scope.", el.ErrorCode))
		}
		return steps
	case bpmn.ServiceTask:
		p.startTask(c, fx, in, el)
		return steps
	case bpmn.IntermediateCatchEvent, bpmn.ReceiveTask:
		p.enterEventElement(c, fx, in, el)
		return steps
	case bpmn.ExclusiveGateway:
		return p.exclusive(c, in, el, steps)
	case bpmn.ParallelGateway:
		if len(el.Incoming) <= 1 || s.via == nil {
			return p.follow(in, steps, el.Outgoing)
		}
		if in.joins == nil {
			in.joins = map[string]map[string]int{}
		}
		arr := in.joins[el.ID]
		if arr == nil {
			arr = map[string]int{}
			in.joins[el.ID] = arr
		}
		arr[s.via.ID]++
		in.tokens++ // held at the join
		for _, f := range el.Incoming {
			if arr[f.ID] == 0 {
				return steps
			}
		}
		for _, f := range el.Incoming {
			arr[f.ID]--
		}
		in.tokens -= len(el.Incoming)
		return p.follow(in, steps, el.Outgoing)
	}
	return steps
}

// lookup resolves variables visible to an element: root scope, shadowed by
// the element's local scope.
func lookup(in *Instance, local vars.Doc) func(string) (json.RawMessage, bool) {
	return func(name string) (json.RawMessage, bool) {
		if v, ok := local[name]; ok {
			return v, true
		}
		v, ok := in.Vars[name]
		return v, ok
	}
}

func (p *Partition) exclusive(c *Command, in *Instance, el *bpmn.Element, steps []step) []step {
	if len(el.Outgoing) == 1 && el.Outgoing[0].Condition == nil {
		return p.follow(in, steps, el.Outgoing)
	}
	var def *bpmn.Flow
	for _, f := range el.Outgoing {
		if f.ID == el.DefaultFlow {
			def = f
			continue
		}
		if f.Condition == nil {
			continue
		}
		ok, err := f.Condition.EvalBool(lookup(in, nil))
		if err != nil {
			p.elementIncident(c, in, el, "CONDITION_ERROR", fmt.Sprintf("Failed to evaluate expression '%s' of sequence flow '%s': %v", f.Condition, f.ID, err))
			return steps
		}
		if ok {
			return p.follow(in, steps, []*bpmn.Flow{f})
		}
	}
	if def != nil {
		return p.follow(in, steps, []*bpmn.Flow{def})
	}
	p.elementIncident(c, in, el, "CONDITION_ERROR", fmt.Sprintf("Expected at least one condition to evaluate to true, or to have a default flow, but none of the conditions of exclusive gateway '%s' was true", el.ID))
	return steps
}

// elementIncident holds a token at an element until the incident is resolved.
func (p *Partition) elementIncident(c *Command, in *Instance, el *bpmn.Element, typ, msg string) {
	e := &ElemInst{Key: p.st.nextKey(), InstanceKey: in.Key, Element: el}
	inc := &Incident{Key: p.st.nextKey(), InstanceKey: in.Key, ElemKey: e.Key, Type: typ, Message: msg}
	e.IncidentKey = inc.Key
	in.elems[e.Key] = e
	p.st.Elems[e.Key] = e
	p.st.Incidents[inc.Key] = inc
	in.Incidents++
	in.tokens++
}

func (p *Partition) startTask(c *Command, fx *effects, in *Instance, el *bpmn.Element) {
	typ := el.JobType
	if el.JobTypeExpr != nil {
		t, err := el.JobTypeExpr.EvalString(lookup(in, nil))
		if err != nil || t == "" {
			p.elementIncident(c, in, el, "EXTRACT_VALUE_ERROR", fmt.Sprintf("Expected job type of '%s' to be a non-empty string: %v", el.ID, err))
			return
		}
		typ = t
	}
	retries := el.Retries
	if el.RetriesExpr != nil {
		r, err := el.RetriesExpr.EvalInt(lookup(in, nil))
		if err != nil {
			p.elementIncident(c, in, el, "EXTRACT_VALUE_ERROR", fmt.Sprintf("Expected retries of '%s' to be an integer: %v", el.ID, err))
			return
		}
		retries = r
	}
	plans, ok := p.planBoundaries(c, in, el) // message/timer boundary events
	if !ok {
		return
	}
	e := &ElemInst{Key: p.st.nextKey(), InstanceKey: in.Key, Element: el}
	j := &Job{Key: p.st.nextKey(), InstanceKey: in.Key, ElemKey: e.Key, DefKey: in.DefKey,
		BpmnProcessID: in.BpmnProcessID, ElementID: el.ID, Version: in.Version, Type: typ,
		Headers: vars.StringMapJSON(el.Headers), Retries: int32(retries), TenantID: DefaultTenant}
	e.JobKey = j.Key
	in.elems[e.Key] = e
	p.st.Elems[e.Key] = e
	p.st.Jobs[j.Key] = j
	in.tokens++
	p.openBoundaries(c, fx, in, e, plans)
	if retries <= 0 {
		p.st.setJobState(j, JobIncident)
		p.jobIncident(in, j, "JOB_NO_RETRIES", "No more retries left.")
		return
	}
	p.makeAvailable(c, fx, j, true)
}

// leaveTask ends a waiting service task and moves its token on.
func (p *Partition) leaveTask(c *Command, fx *effects, in *Instance, e *ElemInst, flows []*bpmn.Flow) {
	p.closeElemEvents(fx, e.Key)
	delete(in.elems, e.Key)
	delete(p.st.Elems, e.Key)
	in.tokens--
	steps := p.follow(in, nil, flows)
	p.run(c, fx, in, steps)
}

func (p *Partition) checkDone(fx *effects, in *Instance) {
	if in.State != InstActive || in.tokens > 0 {
		return
	}
	in.State = InstCompleted
	in.Completions++
	in.joins = nil
	p.st.activeInstances--
	p.answerWaiters(fx, in, nil)
	p.st.finishInstance(in)
}
