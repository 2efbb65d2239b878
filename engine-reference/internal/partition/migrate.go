package partition

import (
	"fmt"
	"sort"
	"strings"

	"github.com/jobwire/jobwire/engine-reference/internal/bpmn"
	"github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
)

// MigrateProcessInstance, following Zeebe 8.8's process instance migration
// (the docs' "Process instance migration" page and the facts of its
// ProcessInstanceMigration processor and preconditions):
//
//   - the target is any deployed process definition (NOT_FOUND when there
//     is none with that key); the instance must be active (NOT_FOUND) and
//     not created by a call activity (FAILED_PRECONDITION);
//   - each mapping instruction names an element of the instance's process
//     and one of the target; an unknown one, or a source mapped twice, is
//     INVALID_ARGUMENT;
//   - every active element instance must be mapped (FAILED_PRECONDITION
//     otherwise) to an element of the same type (a multi-instance activity
//     to a multi-instance activity) in the same flow scope, that is inside
//     the element its flow scope is mapped to (FAILED_PRECONDITION);
//   - boundary events of active activities: see checkBoundaryMappings;
//   - an active message, timer or signal catch event or receive task mapped
//     to one of the same kind listening to the same message or signal keeps
//     its subscription (a timer its due time);
//   - not supported here, refused with FAILED_PRECONDITION before anything
//     changes: an active event-based gateway and a parallel or inclusive
//     join that holds arrived tokens;
//   - the instance then belongs to the target: every element instance moves
//     to its mapped element, keeping its key, variables and incidents, and
//     each job keeps its key, type, retries and state and shows the target's
//     processDefinitionKey, bpmnProcessId, version and elementId.

func (p *Partition) migrate(c *Command, fx *effects) (any, error) {
	in := p.inst(c.Key)
	if in == nil || in.State != InstActive {
		return nil, reject(c.Op, RejNotFound, "Expected to migrate process instance but no process instance found with key '%d'", c.Key)
	}
	args := c.Ops
	if args == nil {
		args = &OpsArgs{}
	}
	target := p.st.defs.ByKey(args.TargetDefKey)
	if target == nil {
		return nil, reject(c.Op, RejNotFound, "Expected to migrate process instance to process definition but no process definition found with key '%d'", args.TargetDefKey)
	}
	if in.ParentKey != 0 {
		return nil, reject(c.Op, RejInvalidState, "Expected to migrate process instance '%d' but process instance is a child process instance. Child process instances cannot be migrated.", in.Key)
	}
	mapping := map[string]string{}
	for _, m := range args.Mappings {
		if _, dup := mapping[m.Source]; dup {
			return nil, reject(c.Op, RejInvalidArgument, "Expected to migrate process instance '%d' but the mapping instructions contain duplicate source element ids '%s'.", in.Key, m.Source)
		}
		if in.proc.Elements[m.Source] == nil {
			return nil, reject(c.Op, RejInvalidArgument, "Expected to migrate process instance '%d' but mapping instructions contain a non-existing source element id '%s'. Elements provided in mapping instructions must exist in the source process definition.", in.Key, m.Source)
		}
		if target.Process.Elements[m.Target] == nil {
			return nil, reject(c.Op, RejInvalidArgument, "Expected to migrate process instance '%d' but mapping instructions contain a non-existing target element id '%s'. Elements provided in mapping instructions must exist in the target process definition.", in.Key, m.Target)
		}
		mapping[m.Source] = m.Target
	}
	elems := make([]*ElemInst, 0, len(in.elems))
	for _, e := range in.elems {
		elems = append(elems, e)
	}
	sort.Slice(elems, func(i, k int) bool { return elems[i].Key < elems[k].Key })
	for _, e := range elems {
		if err := p.checkMigratable(c, in, e, target, mapping); err != nil {
			return nil, err
		}
	}
	var bplans []*boundaryPlan
	for _, e := range elems {
		pl, err := p.planBoundaryMigration(c, in, e, target.Process.Elements[mapping[e.Element.ID]], mapping)
		if err != nil {
			return nil, err
		}
		if pl != nil {
			bplans = append(bplans, pl)
		}
	}
	if err := checkJoins(c, in, in.joins); err != nil {
		return nil, err
	}
	for _, e := range elems {
		if err := checkJoins(c, in, e.Joins); err != nil {
			return nil, err
		}
	}
	// Apply.
	if p.st.touched != nil {
		p.st.touched.instance(in.Key)
	}
	in.DefKey, in.BpmnProcessID, in.Version, in.proc = target.Key, target.BpmnProcessID, target.Version, target.Process
	p.st.dirtyInst(in.Key)
	for _, e := range elems {
		e.Element = target.Process.Elements[mapping[e.Element.ID]]
		p.st.dirtyElem(e.Key)
		if j := p.job(e.JobKey); j != nil {
			j.DefKey, j.BpmnProcessID, j.Version, j.ElementID = target.Key, target.BpmnProcessID, target.Version, e.Element.ID
			if p.st.touched != nil {
				p.st.touched.job(j)
			}
		}
	}
	for _, pl := range bplans {
		p.applyBoundaryMigration(c, fx, in, pl)
	}
	return &gatewaypb.MigrateProcessInstanceResponse{}, nil
}

func (p *Partition) checkMigratable(c *Command, in *Instance, e *ElemInst, target *Def, mapping map[string]string) error {
	src := e.Element
	tid, ok := mapping[src.ID]
	if !ok {
		return reject(c.Op, RejInvalidState, "Expected to migrate process instance '%d' but no mapping instruction defined for active element with id '%s'. Elements cannot be migrated without a mapping.", in.Key, src.ID)
	}
	dst := target.Process.Elements[tid]
	if src.Kind != dst.Kind || (src.MI == nil) != (dst.MI == nil) {
		return reject(c.Op, RejInvalidState, "Expected to migrate process instance '%d' but active element with id '%s' and type '%s' is mapped to an element with id '%s' and different type '%s'. Elements must be mapped to elements of the same type.", in.Key, src.ID, kindName(src), dst.ID, kindName(dst))
	}
	if src.Kind == bpmn.IntermediateCatchEvent || src.Kind == bpmn.ReceiveTask {
		// the element's own subscription moves with it: same kind of event,
		// listening to the same message or signal
		if src.Event == nil || dst.Event == nil || src.Event.Type != dst.Event.Type || !sameTrigger(src.Event, dst.Event) {
			return reject(c.Op, RejInvalidState, "Expected to migrate process instance '%d' but active element with id '%s' is mapped to '%s', which does not catch the same %s. Catch events must be mapped to catch events of the same kind and trigger.", in.Key, src.ID, dst.ID, eventKind(src.Event))
		}
	}
	if src.Kind == bpmn.EventBasedGateway {
		return reject(c.Op, RejInvalidState, "Expected to migrate process instance '%d' but active element with id '%s' has an unsupported type. The migration of a %s is not supported.", in.Key, src.ID, kindName(src))
	}
	if e.LoopCounter == 0 {
		if err := checkBoundaryMappings(c, in, src, dst, mapping); err != nil {
			return err
		}
	}
	// The flow scope must stay: the target's flow scope is the element the
	// source's flow scope is mapped to.
	want := ""
	if e.ScopeKey != 0 {
		if s := in.elems[e.ScopeKey]; s != nil {
			want = mapping[s.Element.ID]
		}
	}
	got := ""
	if dst.Parent != nil {
		got = dst.Parent.ID
	}
	if e.LoopCounter > 0 { // an inner instance: its flow scope is its body, the same element
		want, got = "", ""
		if s := in.elems[e.ScopeKey]; s == nil || mapping[s.Element.ID] != dst.ID {
			want, got = "?", dst.ID
		}
	}
	if want != got {
		return reject(c.Op, RejInvalidState, "Expected to migrate process instance '%d' but the flow scope of active element with id '%s' is changed. The flow scope of the active element is expected to be '%s' but was '%s'. The flow scope of an element cannot be changed during migration yet.", in.Key, src.ID, orProcess(want, target), orProcess(got, target))
	}
	return nil
}

func orProcess(id string, d *Def) string {
	if id == "" {
		return d.BpmnProcessID
	}
	return id
}

// Boundary events of migrated activities (Zeebe 8.8's catch event
// migration): a message, timer or signal boundary event of the source
// mapped to one of the target activity (same event type, both interrupting
// or both not) keeps its subscription (a timer its due time, a message
// subscription its name and correlation key); one left unmapped is
// unsubscribed; a target boundary event no source boundary event is mapped
// to is subscribed, its message, signal or timer evaluated as the activity
// sees it then.

func checkBoundaryMappings(c *Command, in *Instance, src, dst *bpmn.Element, mapping map[string]string) error {
	for _, b := range src.Boundaries {
		if b.Event == nil {
			continue
		}
		tid, ok := mapping[b.ID]
		if !ok {
			continue
		}
		var t *bpmn.Element
		for _, x := range dst.Boundaries {
			if x.ID == tid {
				t = x
			}
		}
		if t == nil || t.Event == nil || t.Event.Type != b.Event.Type || t.Interrupting != b.Interrupting {
			return reject(c.Op, RejInvalidState, "Expected to migrate process instance '%d' but boundary event '%s' of active element '%s' is mapped to '%s', which is not a %s boundary event of the same kind (interrupting or not) attached to the target element '%s'.", in.Key, b.ID, src.ID, tid, b.Event.Type, dst.ID)
		}
	}
	return nil
}

// boundaryPlan is what a migrated activity's boundary events become.
type boundaryPlan struct {
	e     *ElemInst
	moved map[int64]string // subscription or timer key → target boundary event id
	drop  []int64          // subscriptions and timers closed
	open  []eventPlan      // target boundary events subscribed
}

// planBoundaryMigration decides, before anything changes, what happens to
// an activity instance's boundary subscriptions (nil: nothing to do); an
// expression of a new target boundary event that fails refuses the
// migration.
func (p *Partition) planBoundaryMigration(c *Command, in *Instance, e *ElemInst, dst *bpmn.Element, mapping map[string]string) (*boundaryPlan, error) {
	if e.LoopCounter > 0 {
		return nil, nil
	}
	pl := &boundaryPlan{e: e, moved: map[int64]string{}}
	mappedTo := map[string]bool{}
	if ev := p.st.events; ev != nil {
		for _, k := range ev.ByElem[e.Key] {
			id := ""
			switch {
			case ev.Timers[k] != nil:
				id = ev.Timers[k].ElementID
			case ev.Subs[k] != nil:
				id = ev.Subs[k].ElementID
			case ev.SignalSubs[k] != nil:
				id = ev.SignalSubs[k].ElementID
			default:
				continue
			}
			if id == e.Element.ID { // a catch event's or receive task's own subscription
				pl.moved[k] = mapping[id]
				continue
			}
			if b := in.proc.Elements[id]; b == nil || b.Kind != bpmn.BoundaryEvent {
				continue
			}
			if t, ok := mapping[id]; ok {
				pl.moved[k] = t
				mappedTo[t] = true
			} else {
				pl.drop = append(pl.drop, k)
			}
		}
	}
	var fresh []*bpmn.Element
	for _, b := range dst.Boundaries {
		if b.Event != nil && !mappedTo[b.ID] {
			fresh = append(fresh, b)
		}
	}
	if len(fresh) > 0 {
		host := *dst
		host.Boundaries = fresh
		plans, err := p.planBoundaries(c, p.lookupAt(in, e), &host)
		if err != nil {
			return nil, reject(c.Op, RejInvalidState, "Expected to migrate process instance '%d' but the boundary events of target element '%s' cannot be subscribed: %v", in.Key, dst.ID, err)
		}
		pl.open = plans
	}
	if len(pl.moved) == 0 && len(pl.drop) == 0 && len(pl.open) == 0 {
		return nil, nil
	}
	sort.Slice(pl.drop, func(i, k int) bool { return pl.drop[i] < pl.drop[k] })
	return pl, nil
}

// applyBoundaryMigration carries out a plan once the instance belongs to
// the target definition.
func (p *Partition) applyBoundaryMigration(c *Command, fx *effects, in *Instance, pl *boundaryPlan) {
	ev := p.st.evs()
	keys := make([]int64, 0, len(pl.moved))
	for k := range pl.moved {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, k int) bool { return keys[i] < keys[k] })
	for _, k := range keys {
		id := pl.moved[k]
		switch {
		case ev.Timers[k] != nil:
			ev.Timers[k].ElementID, ev.Timers[k].DefKey = id, in.DefKey
			p.st.dirtyEv(evTimers, k)
		case ev.Subs[k] != nil:
			ev.Subs[k].ElementID = id
			p.st.dirtyEv(evSubs, k)
		case ev.SignalSubs[k] != nil:
			ev.SignalSubs[k].ElementID = id
			p.st.dirtyEv(evSigs, k)
		}
	}
	if len(pl.drop) > 0 {
		dropped := map[int64]bool{}
		for _, k := range pl.drop {
			dropped[k] = true
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
		ev.ByElem[pl.e.Key] = without(ev.ByElem[pl.e.Key], func(k int64) bool { return dropped[k] })
	}
	p.openBoundaries(c, fx, in, pl.e, pl.open)
}

// sameTrigger: two events of one type listen to the same message or signal
// (the same name, literal or expression; a timer may change).
func sameTrigger(a, b *bpmn.EventDef) bool {
	expr := func(x interface{ String() string }, isNil bool) string {
		if isNil {
			return ""
		}
		return x.String()
	}
	switch a.Type {
	case bpmn.EventMessage:
		return a.MessageName == b.MessageName && expr(a.MessageNameExpr, a.MessageNameExpr == nil) == expr(b.MessageNameExpr, b.MessageNameExpr == nil)
	case bpmn.EventSignal:
		return a.SignalName == b.SignalName && expr(a.SignalNameExpr, a.SignalNameExpr == nil) == expr(b.SignalNameExpr, b.SignalNameExpr == nil)
	}
	return true
}

func eventKind(d *bpmn.EventDef) string {
	if d == nil {
		return "event"
	}
	return d.Type
}

func checkJoins(c *Command, in *Instance, joins map[string]map[string]int) error {
	var held []string
	for gw, arr := range joins {
		for _, n := range arr {
			if n > 0 {
				held = append(held, gw)
				break
			}
		}
	}
	if len(held) == 0 {
		return nil
	}
	sort.Strings(held)
	return reject(c.Op, RejInvalidState, "Expected to migrate process instance '%d' but the joining gateway(s) '%s' hold arrived tokens. The migration of taken sequence flows is not supported.", in.Key, strings.Join(held, "', '"))
}

func kindName(el *bpmn.Element) string {
	if el.MI != nil {
		return "MULTI_INSTANCE_BODY"
	}
	switch el.Kind {
	case bpmn.StartEvent:
		return "START_EVENT"
	case bpmn.EndEvent:
		return "END_EVENT"
	case bpmn.ServiceTask:
		return "SERVICE_TASK"
	case bpmn.ExclusiveGateway:
		return "EXCLUSIVE_GATEWAY"
	case bpmn.ParallelGateway:
		return "PARALLEL_GATEWAY"
	case bpmn.BoundaryEvent:
		return "BOUNDARY_EVENT"
	case bpmn.SubProcess:
		return "SUB_PROCESS"
	case bpmn.CallActivity:
		return "CALL_ACTIVITY"
	case bpmn.InclusiveGateway:
		return "INCLUSIVE_GATEWAY"
	case bpmn.IntermediateCatchEvent:
		return "INTERMEDIATE_CATCH_EVENT"
	case bpmn.ReceiveTask:
		return "RECEIVE_TASK"
	case bpmn.BusinessRuleTask:
		return "BUSINESS_RULE_TASK"
	case bpmn.EventBasedGateway:
		return "EVENT_BASED_GATEWAY"
	}
	return fmt.Sprintf("element kind %d", el.Kind)
}

// rebindProcess links an instance that a results record moved to another
// definition (a migration) to that definition's process.
func (s *State) rebindProcess(in *Instance) error {
	d := s.defs.withDeleted(in.DefKey)
	if d == nil {
		return fmt.Errorf("instance %d was migrated to unknown definition %d", in.Key, in.DefKey)
	}
	in.proc = d.Process
	return nil
}
