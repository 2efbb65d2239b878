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
//   - not supported here, refused with FAILED_PRECONDITION before anything
//     changes: active elements that wait on an event subscription (message
//     and timer catch events, receive tasks), active elements with message
//     or timer boundary events in the source or the target, and a parallel
//     or inclusive join that holds arrived tokens;
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
		return reject(c.Op, RejInvalidState, "Expected to migrate process instance '%d' but active element with id '%s' has an unsupported type. The migration of a %s is not supported.", in.Key, src.ID, kindName(src))
	}
	if e.LoopCounter == 0 {
		if b := eventBoundary(src); b != nil {
			return reject(c.Op, RejInvalidState, "Expected to migrate process instance '%d' but active element with id '%s' has a message or timer boundary event '%s'. The migration of elements with event subscriptions is not supported.", in.Key, src.ID, b.ID)
		}
		if b := eventBoundary(dst); b != nil {
			return reject(c.Op, RejInvalidState, "Expected to migrate process instance '%d' but target element with id '%s' has a message or timer boundary event '%s'. The migration of elements with event subscriptions is not supported.", in.Key, dst.ID, b.ID)
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

// eventBoundary is a message or timer boundary event of an activity.
func eventBoundary(el *bpmn.Element) *bpmn.Element {
	for _, b := range el.Boundaries {
		if b.Event != nil {
			return b
		}
	}
	return nil
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
