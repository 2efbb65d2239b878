package partition

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/jobwire/jobwire/engine-reference/internal/bpmn"
	"github.com/jobwire/jobwire/engine-reference/internal/feel"
	"github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"github.com/jobwire/jobwire/engine-reference/internal/vars"
)

// Signals, as Zeebe 8.8 broadcasts them.
//
// BroadcastSignal reaches one partition (OpSignal). That partition takes the
// signal's key, triggers its own signal subscriptions (intermediate catch
// events, boundary events, event-based gateways) and starts one instance of
// the latest version of every process whose signal start event has the
// name, answers with the key, and distributes the signal to every other
// partition (OpSignalDist), which triggers its own subscriptions only (no
// start events there, as in Zeebe, so a broadcast starts each process once).
// A signal throw or end event broadcasts from inside an instance: its
// partition distributes the signal to every partition, itself included, and
// starts the processes when the copy to itself is processed (Zeebe writes a
// follow-up BROADCAST command).
//
// Distribution survives crashes: the sending partition keeps the signal
// (SignalOut) with the partitions that have not acknowledged it, sends it
// again after a restart, and forgets it once every one has; a receiving
// partition remembers a signal it processed (SignalSeen) until the sender
// says it has the acknowledgement (OpSignalForget), so a copy sent again is
// only acknowledged again, never triggered twice.

// Signal commands.
const (
	OpSignal       = "signal"       // BroadcastSignal (from a gateway)
	OpSignalDist   = "signaldist"   // a signal distributed to a partition
	OpSignalAck    = "signalack"    // receiving partition → sender: processed
	OpSignalForget = "signalforget" // sender → receiving partition: acknowledgement received
)

func init() {
	intents[OpSignal] = "BROADCAST"
	intents[OpSignalDist] = "BROADCAST"
	intents[OpSignalAck] = "ACKNOWLEDGE"
	intents[OpSignalForget] = "FINISH"
	// The gateway sends OpSignal; a cluster gateway relays the others
	// between the partitions of different brokers.
	WireOps[OpSignal] = true
	WireOps[OpSignalDist] = true
	WireOps[OpSignalAck] = true
	WireOps[OpSignalForget] = true
}

// SignalSub is an instance's signal subscription (on its partition).
type SignalSub struct {
	Key          int64  `json:"key"`
	InstanceKey  int64  `json:"inst"`
	ElemKey      int64  `json:"elem"` // the waiting catch event or event-based gateway, or the boundary's host
	ElementID    string `json:"el"`   // the event that catches the signal
	Name         string `json:"name"`
	Interrupting bool   `json:"int"`
}

// SignalOut is a signal this partition distributes, with the partitions
// that have not acknowledged it yet.
type SignalOut struct {
	Key     int64   `json:"key"`
	Name    string  `json:"name"`
	Vars    string  `json:"vars,omitempty"`
	Pending []int32 `json:"pending"`
}

func evSigs(t *resultsTracker) map[int64]struct{} { return t.sigs }

// dispatchSignals handles the signal commands; ok is false for others.
func (p *Partition) dispatchSignals(c *Command, fx *effects) (resp any, err error, ok bool) {
	switch c.Op {
	case OpSignal:
		resp, err = p.broadcastSignal(c, fx)
	case OpSignalDist:
		resp, err = p.signalDist(c, fx)
	case OpSignalAck:
		resp, err = p.signalAck(c, fx)
	case OpSignalForget:
		resp, err = p.signalForget(c)
	default:
		return nil, nil, false
	}
	return resp, err, true
}

// broadcastSignal is BroadcastSignal on the partition that received it.
func (p *Partition) broadcastSignal(c *Command, fx *effects) (any, error) {
	if c.Name == "" {
		return nil, reject(c.Op, RejInvalidArgument, "Expected to broadcast a signal with a name, but the name was empty")
	}
	doc, err := vars.Parse(c.Variables)
	if err != nil {
		return nil, reject(c.Op, RejInvalidArgument, "Property 'variables' is invalid: %v", err)
	}
	enc := ""
	if len(doc) > 0 {
		enc = vars.Encode(doc)
	}
	key := p.st.nextKey()
	p.triggerSignal(c, fx, c.Name, enc, true)
	var others []int32
	for pid := int32(1); pid <= p.cfg.Count; pid++ {
		if pid != p.cfg.ID {
			others = append(others, pid)
		}
	}
	p.distributeSignal(fx, &SignalOut{Key: key, Name: c.Name, Vars: enc, Pending: others})
	return &gatewaypb.BroadcastSignalResponse{Key: key, TenantId: DefaultTenant}, nil
}

// throwSignal broadcasts a signal from a throw event of an instance on this
// partition: distributed to every partition, this one included.
func (p *Partition) throwSignal(fx *effects, name string, doc vars.Doc) {
	enc := ""
	if len(doc) > 0 {
		enc = vars.Encode(doc)
	}
	all := make([]int32, 0, p.cfg.Count)
	for pid := int32(1); pid <= max(p.cfg.Count, 1); pid++ {
		all = append(all, pid)
	}
	p.distributeSignal(fx, &SignalOut{Key: p.st.nextKey(), Name: name, Vars: enc, Pending: all})
}

func (p *Partition) distributeSignal(fx *effects, out *SignalOut) {
	if len(out.Pending) == 0 {
		return
	}
	ev := p.st.evs()
	ev.SignalOut[out.Key] = out
	p.st.dirtyEv(evSigs, out.Key)
	for _, pid := range out.Pending {
		fx.forward(pid, p.signalDistCommand(out))
	}
}

func (p *Partition) signalDistCommand(out *SignalOut) *Command {
	return &Command{Op: OpSignalDist, Key: out.Key, From: p.cfg.ID, Name: out.Name, Variables: out.Vars}
}

// signalResends: every distribution not acknowledged yet (after a restart).
func (p *Partition) signalResends() []forward {
	ev := p.st.events
	if ev == nil {
		return nil
	}
	keys := make([]int64, 0, len(ev.SignalOut))
	for k := range ev.SignalOut {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, k int) bool { return keys[i] < keys[k] })
	var out []forward
	for _, k := range keys {
		s := ev.SignalOut[k]
		for _, pid := range s.Pending {
			out = append(out, forward{pid, p.signalDistCommand(s)})
		}
	}
	return out
}

// signalDist processes a distributed signal.
func (p *Partition) signalDist(c *Command, fx *effects) (any, error) {
	ev := p.st.evs()
	if c.From == p.cfg.ID {
		// A signal thrown by an instance here: processed once, while this
		// partition is still pending; it starts the processes.
		out := ev.SignalOut[c.Key]
		if out == nil || !out.pending(p.cfg.ID) {
			return nil, reject(c.Op, RejNotFound, "Expected to broadcast signal '%d', but it was already broadcast", c.Key)
		}
		out.drop(p.cfg.ID)
		p.st.dirtyEv(evSigs, out.Key)
		if len(out.Pending) == 0 {
			delete(ev.SignalOut, out.Key)
		}
		p.triggerSignal(c, fx, c.Name, c.Variables, true)
		return nil, nil
	}
	if _, seen := ev.SignalSeen[c.Key]; !seen {
		p.triggerSignal(c, fx, c.Name, c.Variables, false)
		ev.SignalSeen[c.Key] = c.From
		p.st.dirtyEv(evSigs, c.Key)
	}
	fx.forward(c.From, &Command{Op: OpSignalAck, Key: c.Key, From: p.cfg.ID})
	return nil, nil
}

// signalAck: partition c.From processed signal c.Key.
func (p *Partition) signalAck(c *Command, fx *effects) (any, error) {
	ev := p.st.evs()
	out := ev.SignalOut[c.Key]
	if out != nil && out.pending(c.From) {
		out.drop(c.From)
		p.st.dirtyEv(evSigs, out.Key)
		if len(out.Pending) == 0 {
			delete(ev.SignalOut, out.Key)
		}
	}
	fx.forward(c.From, &Command{Op: OpSignalForget, Key: c.Key, From: p.cfg.ID})
	return nil, nil
}

func (p *Partition) signalForget(c *Command) (any, error) {
	ev := p.st.evs()
	if _, ok := ev.SignalSeen[c.Key]; !ok {
		return nil, reject(c.Op, RejNotFound, "Expected to finish the distribution of signal '%d', but it is not known", c.Key)
	}
	delete(ev.SignalSeen, c.Key)
	p.st.dirtyEv(evSigs, c.Key)
	return nil, nil
}

func (s *SignalOut) pending(pid int32) bool {
	for _, x := range s.Pending {
		if x == pid {
			return true
		}
	}
	return false
}

func (s *SignalOut) drop(pid int32) {
	out := s.Pending[:0:0]
	for _, x := range s.Pending {
		if x != pid {
			out = append(out, x)
		}
	}
	s.Pending = out
}

// triggerSignal triggers every signal subscription of this partition with
// the name (oldest first), and with start, the signal start events.
func (p *Partition) triggerSignal(c *Command, fx *effects, name, variables string, start bool) {
	ev := p.st.evs()
	var keys []int64
	for k, s := range ev.SignalSubs {
		if s.Name == name {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, k int) bool { return keys[i] < keys[k] })
	for _, k := range keys {
		s := ev.SignalSubs[k]
		if s == nil {
			continue // ended by a subscription triggered before it
		}
		in := p.inst(s.InstanceKey)
		e := p.elem(s.ElemKey)
		if in == nil || e == nil || in.State != InstActive {
			continue
		}
		el := in.proc.Elements[s.ElementID]
		if el == nil {
			continue
		}
		if s.Interrupting {
			p.dropSignalSub(s)
		}
		doc, _ := vars.Parse(variables)
		p.triggerEventVars(c, fx, in, e, el, doc)
	}
	if !start {
		return
	}
	seen := map[string]bool{}
	var ids []string
	for _, d := range p.st.defs.All() {
		if !seen[d.BpmnProcessID] {
			seen[d.BpmnProcessID] = true
			ids = append(ids, d.BpmnProcessID)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		d := p.st.defs.Version(id, -1)
		if d == nil {
			continue
		}
		for _, el := range d.Process.SignalStarts {
			if el.Event.SignalName == name {
				p.startByEvent(c, fx, d, el, variables)
				break
			}
		}
	}
}

// startByEvent creates an instance of d at a start event with the event's
// variables: they become the instance's, or, when the start event has
// output mappings, only what the mappings produce.
func (p *Partition) startByEvent(c *Command, fx *effects, d *Def, el *bpmn.Element, variables string) {
	if len(el.Outputs) == 0 {
		in := p.newInstance(c, d, variables)
		p.run(c, fx, in, []step{{el: el}})
		return
	}
	in := p.newInstance(c, d, "")
	doc, _ := vars.Parse(variables)
	p.run(c, fx, in, []step{{el: el, doc: doc}})
}

func (p *Partition) dropSignalSub(s *SignalSub) {
	ev := p.st.evs()
	delete(ev.SignalSubs, s.Key)
	ev.unindex(s.ElemKey, s.Key)
	p.st.dirtyEv(evSigs, s.Key)
}

// openSignalSub subscribes element instance elemKey to a signal for the
// event el (catch event, boundary event, event after a gateway).
func (p *Partition) openSignalSub(in *Instance, el *bpmn.Element, elemKey int64, name string) {
	ev := p.st.evs()
	s := &SignalSub{Key: p.st.nextKey(), InstanceKey: in.Key, ElemKey: elemKey, ElementID: el.ID, Name: name,
		Interrupting: el.Kind != bpmn.BoundaryEvent || el.Interrupting}
	ev.SignalSubs[s.Key] = s
	ev.ByElem[elemKey] = append(ev.ByElem[elemKey], s.Key)
	p.st.dirtyEv(evSigs, s.Key)
}

// evalSignalName is a signal definition's name as seen through look.
func evalSignalName(def *bpmn.EventDef, look feel.Lookup) (string, error) {
	if def.SignalNameExpr == nil {
		return def.SignalName, nil
	}
	name, err := def.SignalNameExpr.EvalString(look)
	if err != nil {
		return "", fmt.Errorf("Failed to evaluate the signal name '%s': %v", def.SignalName, err)
	}
	if name == "" {
		return "", fmt.Errorf("Expected the signal name '%s' to be a non-empty string", def.SignalName)
	}
	return name, nil
}

// triggerEventVars continues an instance when the event el fires for
// element instance e with the event's variables doc (a message's, a
// signal's; nil for a timer). Without output mappings on el, the variables
// are merged as before (the catch event's scope, propagated) and
// triggerEvent moves the token. With output mappings, the catch event
// completes through them (completeActivity: the variables are the event's
// local ones, only the mapped targets reach the flow scope; a failing
// mapping holds the token with an IO_MAPPING_ERROR incident).
func (p *Partition) triggerEventVars(c *Command, fx *effects, in *Instance, e *ElemInst, el *bpmn.Element, doc vars.Doc) {
	if len(el.Outputs) == 0 {
		if len(doc) > 0 {
			if el.Kind != bpmn.BoundaryEvent {
				p.mergePropagate(in, e.Key, doc)
			} else {
				p.mergePropagate(in, e.ScopeKey, doc)
			}
		}
		p.triggerEvent(c, fx, in, e, el)
		return
	}
	if p.st.touched != nil {
		p.st.touched.instance(in.Key)
	}
	scope := e.ScopeKey
	switch {
	case el.Kind != bpmn.BoundaryEvent && e.Element == el:
		p.run(c, fx, in, p.completeActivity(c, fx, in, e, doc, nil))
	case el.Kind != bpmn.BoundaryEvent:
		// The event after an event-based gateway: the gateway's instance
		// ends (its other subscriptions and timers with it) and the event
		// takes over its token.
		p.removeElem(fx, in, e)
		b := &ElemInst{Key: p.st.nextKey(), InstanceKey: in.Key, Element: el, ScopeKey: scope}
		p.addElem(in, b)
		p.run(c, fx, in, p.completeActivity(c, fx, in, b, doc, nil))
	case el.Interrupting:
		p.terminate(c, fx, in, e)
		p.run(c, fx, in, []step{{el: el, scope: scope, doc: doc}})
	default:
		*p.tokens(in, scope)++
		p.run(c, fx, in, []step{{el: el, scope: scope, doc: doc}})
	}
}

// enterMappedEvent runs a start or boundary event with output mappings
// that a step entered with its event's variables: the event is an element
// instance for a moment, completed through its mappings.
func (p *Partition) enterMappedEvent(c *Command, fx *effects, in *Instance, s step, steps []step) []step {
	b := &ElemInst{Key: p.st.nextKey(), InstanceKey: in.Key, Element: s.el, ScopeKey: s.scope}
	p.addElem(in, b)
	*p.tokens(in, s.scope)++ // the step's token, held by the event until it completes
	return p.completeActivity(c, fx, in, b, s.doc, steps)
}

// enterThrowEvent runs an intermediate throw event or an end event with
// input mappings or a signal: the inputs become the event's local
// variables, a signal is broadcast with them, and an intermediate throw
// event completes through its output mappings.
func (p *Partition) enterThrowEvent(c *Command, fx *effects, in *Instance, s step, steps []step) []step {
	el := s.el
	look := p.lookupScope(in, s.scope)
	var local vars.Doc
	if len(el.Inputs) > 0 {
		var err error
		if local, err = evalMappings(el.Inputs, look); err != nil {
			p.elementIncident(c, in, el, s.scope, "IO_MAPPING_ERROR", fmt.Sprintf("Failed to apply the input mappings of '%s': %v", el.ID, err))
			return steps
		}
	}
	if el.Event != nil && el.Event.Type == bpmn.EventSignal {
		name, err := evalSignalName(el.Event, localLookup(local, look))
		if err != nil {
			p.elementIncident(c, in, el, s.scope, "EXTRACT_VALUE_ERROR", err.Error())
			return steps
		}
		p.throwSignal(fx, name, local)
	}
	if el.Kind == bpmn.EndEvent {
		return steps
	}
	if len(el.Outputs) == 0 {
		return p.follow(in, s.scope, steps, el.Outgoing)
	}
	b := &ElemInst{Key: p.st.nextKey(), InstanceKey: in.Key, Element: el, ScopeKey: s.scope}
	p.addElem(in, b)
	*p.tokens(in, s.scope)++
	p.setLocal(b, local)
	return p.completeActivity(c, fx, in, b, nil, steps)
}

// localLookup sees doc first, then look.
func localLookup(doc vars.Doc, look feel.Lookup) feel.Lookup {
	if len(doc) == 0 {
		return look
	}
	return func(name string) (json.RawMessage, bool) {
		if v, ok := doc[name]; ok {
			return v, true
		}
		return look(name)
	}
}

// enterEventGateway runs an event-based gateway: the token waits in the
// gateway's element instance, subscribed to the message, timer or signal
// of every event after it; the first that fires wins (triggerEventVars),
// which ends the gateway's instance and with it the other subscriptions.
func (p *Partition) enterEventGateway(c *Command, fx *effects, in *Instance, el *bpmn.Element, scope int64) {
	look := p.lookupScope(in, scope)
	type opening struct {
		ev        *bpmn.Element
		name, key string
	}
	var opens []opening
	for _, f := range el.Outgoing {
		t := in.proc.Elements[f.Target]
		o := opening{ev: t}
		var err error
		switch t.Event.Type {
		case bpmn.EventMessage:
			o.name, o.key, err = evalMessage(t.Event, look)
		case bpmn.EventSignal:
			o.name, err = evalSignalName(t.Event, look)
		default:
			if _, terr := timerDue(t.Event, look, c.Now); terr != nil {
				err = fmt.Errorf("Expected a valid %s for timer event '%s', but: %v", t.Event.TimerKind, t.ID, terr)
			}
		}
		if err != nil {
			p.elementIncident(c, in, el, scope, "EXTRACT_VALUE_ERROR", err.Error())
			return
		}
		opens = append(opens, o)
	}
	e := &ElemInst{Key: p.st.nextKey(), InstanceKey: in.Key, Element: el, ScopeKey: scope}
	p.addElem(in, e)
	*p.tokens(in, scope)++
	for _, o := range opens {
		switch o.ev.Event.Type {
		case bpmn.EventMessage:
			p.openSubscription(c, fx, in, o.ev, e.Key, o.name, o.key)
		case bpmn.EventSignal:
			p.openSignalSub(in, o.ev, e.Key, o.name)
		default:
			_ = p.openTimer(c, in, o.ev, e.Key) // evaluated above
		}
	}
}
