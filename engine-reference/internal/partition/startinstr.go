package partition

import "github.com/jobwire/jobwire/engine-reference/internal/bpmn"

// Start instructions of CreateProcessInstance, as Zeebe 8.8 processes them
// (facts of its ProcessInstanceCreation processor): the instance starts
// before the given elements instead of at its none start event (a process
// without one can be created this way); the elements are activated in
// order like an activate instruction of ModifyProcessInstance without an
// ancestor, so enclosing subprocesses are created (once: a second element
// of the same subprocess joins the instance the first one created).
// Refused with INVALID_ARGUMENT: an unknown element, an element inside a
// multi-instance subprocess, a start event, boundary event or sequence
// flow.

func (c *Command) startAt() []string {
	if c.Ops == nil {
		return nil
	}
	return c.Ops.StartAt
}

func checkStartInstructions(c *Command, d *Def) error {
	ids := c.startAt()
	for _, id := range ids {
		if d.Process.Elements[id] == nil && d.Process.Flows[id] == nil {
			return reject(c.Op, RejInvalidArgument, "Expected to create instance of process with start instructions but no element found with id '%s'.", id)
		}
	}
	for _, id := range ids {
		if el := d.Process.Elements[id]; el != nil {
			for s := el.Parent; s != nil; s = s.Parent {
				if s.MI != nil {
					return reject(c.Op, RejInvalidArgument, "Expected to create instance of process with start instructions but the element with id '%s' is inside a multi-instance subprocess. The creation of elements inside a multi-instance subprocess is not supported.", id)
				}
			}
		}
	}
	for _, id := range ids {
		typ := ""
		switch el := d.Process.Elements[id]; {
		case el == nil:
			typ = "SEQUENCE_FLOW"
		case el.Kind == bpmn.StartEvent:
			typ = "START_EVENT"
		case el.Kind == bpmn.BoundaryEvent:
			typ = "BOUNDARY_EVENT"
		}
		if typ != "" {
			return reject(c.Op, RejInvalidArgument, "Expected to create instance of process with start instructions but the element with id '%s' targets unsupported element type '%s'.", id, typ)
		}
	}
	for _, id := range ids {
		if afterEventGateway(d.Process, d.Process.Elements[id]) {
			return reject(c.Op, RejInvalidArgument, "Expected to create instance of process with start instructions but the element with id '%s' belongs to an event-based gateway. The creation of elements belonging to an event-based gateway is not supported.", id)
		}
	}
	return nil
}

// startAt activates the start instructions' elements of a new instance.
func (p *Partition) startAt(c *Command, fx *effects, in *Instance) {
	var instrs []ActivateArg
	for _, id := range c.startAt() {
		instrs = append(instrs, ActivateArg{ElementID: id})
	}
	acts, _, err := p.planActivations(c, in, instrs)
	if err != nil { // validated by checkStartInstructions; a new instance has one instance of each scope
		if p.cfg.Logger != nil {
			p.cfg.Logger.Error("start instructions", "instance", in.Key, "error", err)
		}
		return
	}
	ps, _ := p.prepareActivations(c, fx, in, acts)
	p.activateAll(c, fx, in, ps)
	if in.State == InstActive {
		p.checkDone(c, fx, in)
	}
}
