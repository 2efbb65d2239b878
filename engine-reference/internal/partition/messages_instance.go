package partition

import (
	"fmt"
	"math/big"

	"github.com/jobwire/jobwire/engine-reference/internal/bpmn"
	"github.com/jobwire/jobwire/engine-reference/internal/feel"
	"github.com/jobwire/jobwire/engine-reference/internal/vars"
)

// The instance side of messages (see messages.go): an instance's subscriptions
// (ProcSub), its event-based boundaries, and OpSubCorrelate completing them.

// evalMessage evaluates a message definition's name and correlation key.
func evalMessage(def *bpmn.EventDef, look feel.Lookup) (name, key string, err error) {
	name = def.MessageName
	if def.MessageNameExpr != nil {
		if name, err = def.MessageNameExpr.EvalString(look); err != nil {
			return "", "", fmt.Errorf("Failed to extract the message name: %v", err)
		}
	}
	key = def.CorrelationKey
	if def.CorrelationKeyExpr != nil {
		v, err := def.CorrelationKeyExpr.Eval(look)
		if err != nil {
			return "", "", fmt.Errorf("Failed to extract the correlation key for '%s': %v", def.CorrelationKey, err)
		}
		switch x := v.(type) {
		case string:
			key = x
		case *big.Rat:
			if x.IsInt() {
				key = x.Num().String()
			} else {
				key = x.FloatString(10)
			}
		default:
			return "", "", fmt.Errorf("Failed to extract the correlation key for '%s': The value must be either a string or a number, but was %s", def.CorrelationKey, describeValue(v))
		}
	}
	return name, key, nil
}

func describeValue(v any) string {
	switch v.(type) {
	case nil:
		return "NULL"
	case bool:
		return "BOOLEAN"
	case []any:
		return "LIST"
	case map[string]any:
		return "CONTEXT"
	}
	return fmt.Sprintf("%T", v)
}

// openSubscription registers the instance's subscription for the event el
// (catch event, receive task, boundary) on element instance elemKey and
// asks the message partition to open its side.
func (p *Partition) openSubscription(c *Command, fx *effects, in *Instance, el *bpmn.Element, elemKey int64, name, key string) {
	ev := p.st.evs()
	s := &ProcSub{Key: p.st.nextKey(), InstanceKey: in.Key, ElemKey: elemKey, ElementID: el.ID, Name: name, CorrKey: key,
		MsgPartition: MessagePartition(key, p.cfg.Count), Interrupting: el.Kind != bpmn.BoundaryEvent || el.Interrupting}
	ev.Subs[s.Key] = s
	p.st.dirtyEv(evSubs, s.Key)
	ev.ByElem[elemKey] = append(ev.ByElem[elemKey], s.Key)
	fx.forward(s.MsgPartition, p.subOpenCommand(in, s))
}

func (p *Partition) subOpenCommand(in *Instance, s *ProcSub) *Command {
	pid := ""
	if in != nil {
		pid = in.BpmnProcessID
	}
	return &Command{Op: OpSubOpen, Key: s.Key, From: p.cfg.ID, Inst: s.InstanceKey, Elem: s.ElemKey, BpmnProcessID: pid,
		Name: s.Name, CorrelationKey: s.CorrKey, NonInterrupting: !s.Interrupting}
}

// eventPlan is what entering a task needs for its message/timer boundary
// events, computed before the task starts so a bad expression becomes an
// incident without side effects.
type eventPlan struct {
	el        *bpmn.Element
	name, key string
}

// planBoundaries evaluates the boundary events' messages and timers of an
// activity as seen through look; an error becomes an incident (raised by
// the caller).
func (p *Partition) planBoundaries(c *Command, look feel.Lookup, el *bpmn.Element) ([]eventPlan, error) {
	var out []eventPlan
	for _, b := range el.Boundaries {
		if b.Event == nil {
			continue
		}
		if b.Event.Type == bpmn.EventMessage {
			name, key, err := evalMessage(b.Event, look)
			if err != nil {
				return nil, err
			}
			out = append(out, eventPlan{el: b, name: name, key: key})
			continue
		}
		if b.Event.Type == bpmn.EventSignal {
			name, err := evalSignalName(b.Event, look)
			if err != nil {
				return nil, err
			}
			out = append(out, eventPlan{el: b, name: name})
			continue
		}
		if _, err := timerDue(b.Event, look, c.Now); err != nil {
			return nil, fmt.Errorf("Expected a valid %s for timer event '%s', but: %v", b.Event.TimerKind, b.ID, err)
		}
		out = append(out, eventPlan{el: b})
	}
	return out, nil
}

// openBoundaries opens the planned boundary timers and subscriptions of a
// task that has just been entered.
func (p *Partition) openBoundaries(c *Command, fx *effects, in *Instance, e *ElemInst, plans []eventPlan) {
	for _, pl := range plans {
		if pl.el.Event.Type == bpmn.EventMessage {
			p.openSubscription(c, fx, in, pl.el, e.Key, pl.name, pl.key)
		} else if pl.el.Event.Type == bpmn.EventSignal {
			p.openSignalSub(in, pl.el, e.Key, pl.name)
		} else {
			_ = p.openTimer(c, in, pl.el, e.Key) // validated by planBoundaries
		}
	}
}

// closeElemEvents ends every timer and subscription of an element instance
// that is left (completed, canceled, interrupted).
func (p *Partition) closeElemEvents(fx *effects, elemKey int64) {
	ev := p.st.events
	if ev == nil {
		return
	}
	keys := ev.ByElem[elemKey]
	if len(keys) == 0 {
		return
	}
	delete(ev.ByElem, elemKey)
	for _, k := range keys {
		if t := ev.Timers[k]; t != nil {
			delete(ev.Timers, k)
			p.st.dirtyEv(evTimers, k)
		}
		if s := ev.Subs[k]; s != nil {
			delete(ev.Subs, k)
			p.st.dirtyEv(evSubs, k)
			fx.forward(s.MsgPartition, &Command{Op: OpSubClose, Key: s.Key, From: p.cfg.ID, Consumed: s.consumed()})
		}
		if s := ev.SignalSubs[k]; s != nil {
			delete(ev.SignalSubs, k)
			p.st.dirtyEv(evSigs, k)
		}
	}
}

// enterEventElement runs an intermediate catch event or a receive task in
// a flow scope: the token waits in an element instance until the message
// or timer.
func (p *Partition) enterEventElement(c *Command, fx *effects, in *Instance, el *bpmn.Element, scope int64) {
	var name, key string
	var plans []eventPlan
	look := p.lookupScope(in, scope)
	if el.Event.Type == bpmn.EventMessage {
		var err error
		if name, key, err = evalMessage(el.Event, look); err != nil {
			p.elementIncident(c, in, el, scope, "EXTRACT_VALUE_ERROR", err.Error())
			return
		}
	} else if el.Event.Type == bpmn.EventSignal {
		var err error
		if name, err = evalSignalName(el.Event, look); err != nil {
			p.elementIncident(c, in, el, scope, "EXTRACT_VALUE_ERROR", err.Error())
			return
		}
	} else if _, err := timerDue(el.Event, look, c.Now); err != nil {
		p.elementIncident(c, in, el, scope, "EXTRACT_VALUE_ERROR", fmt.Sprintf("Expected a valid %s for timer event '%s', but: %v", el.Event.TimerKind, el.ID, err))
		return
	}
	if el.Kind == bpmn.ReceiveTask {
		var err error
		if plans, err = p.planBoundaries(c, look, el); err != nil {
			p.elementIncident(c, in, el, scope, "EXTRACT_VALUE_ERROR", err.Error())
			return
		}
	}
	e := &ElemInst{Key: p.st.nextKey(), InstanceKey: in.Key, Element: el, ScopeKey: scope}
	p.addElem(in, e)
	*p.tokens(in, scope)++
	if el.Event.Type == bpmn.EventMessage {
		p.openSubscription(c, fx, in, el, e.Key, name, key)
	} else if el.Event.Type == bpmn.EventSignal {
		p.openSignalSub(in, el, e.Key, name)
	} else {
		_ = p.openTimer(c, in, el, e.Key)
	}
	p.openBoundaries(c, fx, in, e, plans)
}

// triggerEvent continues an instance when the timer or message of element
// el fires for element instance e: a catch event / receive task completes;
// an interrupting boundary event terminates its activity (jobs canceled,
// everything inside it ended) and takes over its token; a non-interrupting
// one starts a new token in the activity's flow scope.
func (p *Partition) triggerEvent(c *Command, fx *effects, in *Instance, e *ElemInst, el *bpmn.Element) {
	if p.st.touched != nil {
		p.st.touched.instance(in.Key)
	}
	scope := e.ScopeKey
	switch {
	case el.Kind != bpmn.BoundaryEvent:
		p.removeElem(fx, in, e)
		*p.tokens(in, scope)--
		p.run(c, fx, in, p.follow(in, scope, nil, el.Outgoing))
	case el.Interrupting:
		p.terminate(c, fx, in, e)
		p.run(c, fx, in, []step{{el: el, scope: scope}}) // the boundary event takes over the activity's token
	default:
		*p.tokens(in, scope)++
		p.run(c, fx, in, []step{{el: el, scope: scope}})
	}
}

// subCorrelate processes OpSubCorrelate on the instance partition.
func (p *Partition) subCorrelate(c *Command, fx *effects) (any, error) {
	ev := p.st.evs()
	s := ev.Subs[c.Key]
	if s == nil || s.Seen[c.Msg] {
		// Closed meanwhile (the task completed, the instance was canceled)
		// or already correlated (sent again after a restart).
		return nil, reject(c.Op, RejNotFound, "Expected to correlate message '%d' to subscription '%d', but it is closed or already correlated", c.Msg, c.Key)
	}
	in := p.inst(s.InstanceKey)
	e := p.elem(s.ElemKey)
	if in == nil || e == nil || in.State != InstActive {
		return nil, reject(c.Op, RejNotFound, "Expected to correlate message '%d' to subscription '%d', but its element is no longer active", c.Msg, c.Key)
	}
	p.st.dirtyEv(evSubs, s.Key)
	el := in.proc.Elements[s.ElementID]
	doc, _ := vars.Parse(c.Variables)
	if s.Interrupting {
		delete(ev.Subs, s.Key)
		ev.unindex(s.ElemKey, s.Key)
		fx.forward(s.MsgPartition, &Command{Op: OpSubClose, Key: s.Key, From: p.cfg.ID, Consumed: []int64{c.Msg}})
	} else {
		if s.Seen == nil {
			s.Seen = map[int64]bool{}
		}
		s.Seen[c.Msg] = true
	}
	// As Zeebe without output mappings: the message variables are set on
	// the event's scope and propagated; each updates the nearest scope that
	// defines it, otherwise the process instance. With output mappings only
	// what they produce (signals.go).
	p.triggerEventVars(c, fx, in, e, el, doc)
	return nil, nil
}
