package bpmn

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/jobwire/jobwire/engine-reference/internal/feel"
)

// Error is a deployment validation error; the message names the element and
// its line.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errf(format string, a ...any) error { return &Error{Msg: fmt.Sprintf(format, a...)} }

// MaxResourceSize bounds what the parser will look at.
const MaxResourceSize = 4 << 20

// MaxElements bounds the flow nodes plus sequence flows of one process.
const MaxElements = 10_000

// Parse parses a BPMN 2.0 XML resource and returns its executable processes.
func Parse(resourceName string, data []byte) ([]*Process, error) {
	if len(data) > MaxResourceSize {
		return nil, errf("'%s': resource is larger than %d bytes", resourceName, MaxResourceSize)
	}
	root, err := parseTree(data)
	if err != nil {
		return nil, errf("'%s': %v", resourceName, err)
	}
	if root.Name.Space != nsBPMN || root.Name.Local != "definitions" {
		return nil, errf("'%s': expected root element bpmn:definitions (namespace %s), but found %s at line %d", resourceName, nsBPMN, prefixed(root), root.Line)
	}
	resolveMessageRefs(root)
	resolveSignalRefs(root)
	errorsByID := map[string]string{}
	var procNodes []*xnode
	for _, c := range root.Children {
		if c.Name.Space != nsBPMN {
			continue // diagram interchange, vendor extensions
		}
		switch c.Name.Local {
		case "process":
			procNodes = append(procNodes, c)
		case "error":
			errorsByID[c.Attr("id")] = c.Attr("errorCode")
		case "documentation", "extensionElements", "message", "signal":
		default:
			return nil, unsupported(resourceName, c)
		}
	}
	var out []*Process
	for _, pn := range procNodes {
		if pn.Attr("isExecutable") == "false" {
			continue
		}
		p, err := parseProcess(resourceName, pn, errorsByID)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, errf("'%s': no executable bpmn:process found", resourceName)
	}
	return out, nil
}

func unsupported(res string, n *xnode) error {
	if n.Name.Space == nsBPMN && n.Name.Local == "userTask" {
		return userTaskRefusal(res, n)
	}
	id := n.Attr("id")
	idPart := ""
	if id != "" {
		idPart = fmt.Sprintf(" (id '%s')", id)
	}
	return errf("'%s': element %s%s at line %d is not supported by jobwire-engine; supported: bpmn:startEvent (none; message, timer, signal), bpmn:endEvent (none, error, signal), bpmn:serviceTask, bpmn:businessRuleTask, bpmn:receiveTask, bpmn:subProcess (embedded), bpmn:callActivity, bpmn:multiInstanceLoopCharacteristics (on service tasks, subprocesses, call activities), bpmn:sequenceFlow, bpmn:exclusiveGateway, bpmn:inclusiveGateway, bpmn:parallelGateway, bpmn:eventBasedGateway, bpmn:intermediateCatchEvent (message, timer, signal), bpmn:intermediateThrowEvent (none, signal), bpmn:boundaryEvent (error; message, timer, signal: interrupting or not)", res, prefixed(n), idPart, n.Line)
}

func parseProcess(res string, pn *xnode, errorsByID map[string]string) (*Process, error) {
	p := &Process{ID: pn.Attr("id"), Name: pn.Attr("name"), Elements: map[string]*Element{}, Flows: map[string]*Flow{}}
	if p.ID == "" {
		return nil, errf("'%s': bpmn:process at line %d has no id", res, pn.Line)
	}
	count := 0
	start, err := parseScope(res, p, pn, nil, errorsByID, &count, 0)
	if err != nil {
		return nil, err
	}
	p.Start = start
	return p, nil
}

// maxScopeDepth bounds the nesting of embedded subprocesses.
const maxScopeDepth = 32

// parseScope parses the flow nodes and sequence flows of a process or of an
// embedded subprocess (parent) and returns the scope's none start event.
func parseScope(res string, p *Process, sn *xnode, parent *Element, errorsByID map[string]string, count *int, depth int) (*Element, error) {
	if depth > maxScopeDepth {
		return nil, errf("'%s': subprocesses nested deeper than %d levels at line %d", res, maxScopeDepth, sn.Line)
	}
	var flowNodes []*xnode
	var flows []*Flow
	for _, c := range sn.Children {
		if c.Name.Space != nsBPMN {
			return nil, unsupported(res, c)
		}
		if *count++; *count > MaxElements {
			return nil, errf("'%s': process '%s' has more than %d elements (flow nodes and sequence flows); the limit is %d", res, p.ID, MaxElements, MaxElements)
		}
		switch c.Name.Local {
		case "documentation", "extensionElements", "laneSet":
			continue
		case "incoming", "outgoing", "multiInstanceLoopCharacteristics":
			if parent != nil {
				continue // the subprocess's own children, read by parseElement
			}
			return nil, unsupported(res, c)
		case "sequenceFlow":
			f := &Flow{ID: c.Attr("id"), Source: c.Attr("sourceRef"), Target: c.Attr("targetRef"), Line: c.Line}
			for _, cc := range c.Children {
				if cc.Name.Space == nsBPMN && cc.Name.Local == "conditionExpression" {
					expr, err := feel.Compile(strings.TrimSpace(cc.Text.String()))
					if err != nil {
						return nil, errf("'%s': sequence flow '%s' at line %d: invalid condition '%s': %v", res, f.ID, c.Line, strings.TrimSpace(cc.Text.String()), err)
					}
					f.Condition = expr
				}
			}
			if f.ID == "" {
				return nil, errf("'%s': bpmn:sequenceFlow at line %d has no id", res, c.Line)
			}
			if _, dup := p.Flows[f.ID]; dup {
				return nil, errf("'%s': duplicate id '%s' at line %d", res, f.ID, c.Line)
			}
			if _, dup := p.Elements[f.ID]; dup {
				return nil, errf("'%s': duplicate id '%s' at line %d", res, f.ID, c.Line)
			}
			p.Flows[f.ID] = f
			flows = append(flows, f)
		default:
			flowNodes = append(flowNodes, c)
		}
	}
	for _, c := range flowNodes {
		el, err := parseElement(res, c, errorsByID)
		if err != nil {
			return nil, err
		}
		if el.ID == "" {
			return nil, errf("'%s': %s at line %d has no id", res, prefixed(c), c.Line)
		}
		if _, dup := p.Elements[el.ID]; dup {
			return nil, errf("'%s': duplicate id '%s' at line %d", res, el.ID, c.Line)
		}
		if _, dup := p.Flows[el.ID]; dup {
			return nil, errf("'%s': duplicate id '%s' at line %d", res, el.ID, c.Line)
		}
		el.Parent = parent
		p.Elements[el.ID] = el
		if el.Kind == SubProcess {
			start, err := parseScope(res, p, c, el, errorsByID, count, depth+1)
			if err != nil {
				return nil, err
			}
			el.Start = start
		}
	}
	return link(res, p, parent, flows, flowNodes)
}

func parseElement(res string, c *xnode, errorsByID map[string]string) (*Element, error) {
	el := &Element{ID: c.Attr("id"), Name: c.Attr("name"), Line: c.Line}
	if c.Name.Local == "subProcess" && c.Attr("triggeredByEvent") == "true" {
		return nil, errf("'%s': event subprocess '%s' at line %d is not supported by jobwire-engine (embedded subprocesses are)", res, el.ID, c.Line)
	}
	var eventDefs []*xnode
	var ext, loop *xnode
	for _, cc := range c.Children {
		switch {
		case cc.Name.Space == nsBPMN && (cc.Name.Local == "incoming" || cc.Name.Local == "outgoing" || cc.Name.Local == "documentation"):
		case cc.Name.Space == nsBPMN && cc.Name.Local == "extensionElements":
			ext = cc
		case cc.Name.Space == nsBPMN && strings.HasSuffix(cc.Name.Local, "EventDefinition"):
			eventDefs = append(eventDefs, cc)
		case cc.Name.Space == nsBPMN && cc.Name.Local == "multiInstanceLoopCharacteristics" &&
			(c.Name.Local == "serviceTask" || c.Name.Local == "subProcess" || c.Name.Local == "callActivity" || c.Name.Local == "businessRuleTask"):
			loop = cc
		case c.Name.Space == nsBPMN && c.Name.Local == "subProcess":
			// the subprocess's flow nodes and flows: parsed as its scope
		default:
			return nil, unsupported(res, cc)
		}
	}
	if handled, err := parseEventElement(res, c, el, eventDefs); handled {
		if err != nil {
			return nil, err
		}
		return el, parseEventExtensions(res, c, el, ext)
	}
	switch c.Name.Local {
	case "endEvent":
		el.Kind = EndEvent
		if len(eventDefs) == 1 && eventDefs[0].Name.Local == "errorEventDefinition" {
			// Error end event: throws an error with a fixed code. As in
			// Zeebe, the error must be defined and have a non-empty code.
			ref := eventDefs[0].Attr("errorRef")
			code, ok := errorsByID[ref]
			if ref == "" || !ok {
				return nil, errf("'%s': error end event '%s' at line %d must reference a defined bpmn:error (errorRef '%s')", res, el.ID, c.Line, ref)
			}
			if code == "" {
				return nil, errf("'%s': error end event '%s' at line %d: bpmn:error '%s' must have a non-empty errorCode", res, el.ID, c.Line, ref)
			}
			el.ThrowsError, el.ErrorCode = true, code
			break
		}
		if len(eventDefs) > 0 {
			return nil, errf("'%s': %s '%s' at line %d has a %s; only none and error end events are supported", res, prefixed(c), el.ID, c.Line, prefixed(eventDefs[0]))
		}
	case "startEvent":
		if len(eventDefs) > 0 {
			return nil, errf("'%s': %s '%s' at line %d has a %s; only none start and end events are supported", res, prefixed(c), el.ID, c.Line, prefixed(eventDefs[0]))
		}
		el.Kind = StartEvent
	case "serviceTask":
		el.Kind = ServiceTask
		el.Retries = 3
		if err := parseTaskExtensions(res, el, ext); err != nil {
			return nil, err
		}
		if len(eventDefs) > 0 {
			return nil, unsupported(res, eventDefs[0])
		}
	case "businessRuleTask":
		if err := parseBusinessRuleTask(res, el, ext); err != nil {
			return nil, err
		}
		if len(eventDefs) > 0 {
			return nil, unsupported(res, eventDefs[0])
		}
	case "exclusiveGateway":
		el.Kind = ExclusiveGateway
		el.DefaultFlow = c.Attr("default")
	case "inclusiveGateway":
		el.Kind = InclusiveGateway
		el.DefaultFlow = c.Attr("default")
	case "subProcess":
		el.Kind = SubProcess
		if len(eventDefs) > 0 {
			return nil, unsupported(res, eventDefs[0])
		}
		if err := parseActivityExtensions(res, el, ext); err != nil {
			return nil, err
		}
	case "callActivity":
		el.Kind = CallActivity
		if len(eventDefs) > 0 {
			return nil, unsupported(res, eventDefs[0])
		}
		if err := parseActivityExtensions(res, el, ext); err != nil {
			return nil, err
		}
	case "parallelGateway":
		el.Kind = ParallelGateway
	case "boundaryEvent":
		el.Kind = BoundaryEvent
		el.AttachedTo = c.Attr("attachedToRef")
		if c.Attr("cancelActivity") == "false" {
			return nil, errf("'%s': bpmn:boundaryEvent '%s' at line %d: non-interrupting boundary events are not supported", res, el.ID, c.Line)
		}
		if len(eventDefs) != 1 || eventDefs[0].Name.Local != "errorEventDefinition" {
			return nil, errf("'%s': bpmn:boundaryEvent '%s' at line %d: only error boundary events (one bpmn:errorEventDefinition) are supported", res, el.ID, c.Line)
		}
		ref := eventDefs[0].Attr("errorRef")
		if ref == "" {
			el.CatchAll = true
		} else {
			code, ok := errorsByID[ref]
			if !ok {
				return nil, errf("'%s': bpmn:boundaryEvent '%s' at line %d references error '%s', which is not defined (add <bpmn:error id=\"%s\" errorCode=\"...\"/>)", res, el.ID, c.Line, ref, ref)
			}
			if code == "" {
				el.CatchAll = true
			}
			el.ErrorCode = code
		}
	default:
		return nil, unsupported(res, c)
	}
	if loop != nil {
		if err := parseLoop(res, el, loop); err != nil {
			return nil, err
		}
	}
	if (el.Kind == StartEvent || el.Kind == EndEvent || el.Kind == BoundaryEvent) && ext != nil {
		// zeebe:formDefinition on a none start event, zeebe:ioMapping
		// (output mappings of an error boundary event, input mappings of
		// an end event), as Zeebe accepts them (parse_signals.go)
		if err := parseEventExtensions(res, c, el, ext); err != nil {
			return nil, err
		}
		ext = nil
	}
	if !el.IsActivity() && el.Kind != BusinessRuleTask && ext != nil {
		for _, e := range ext.Children {
			if e.Name.Space == nsZeebe && e.Name.Local != "properties" {
				return nil, errf("'%s': %s at line %d on %s '%s' is not supported", res, prefixed(e), e.Line, prefixed(c), el.ID)
			}
		}
	}
	return el, nil
}

func parseTaskExtensions(res string, el *Element, ext *xnode) error {
	if ext != nil {
		for _, e := range ext.Children {
			if e.Name.Space != nsZeebe {
				continue // other vendors' extensions do not change execution
			}
			switch e.Name.Local {
			case "taskDefinition":
				t := strings.TrimSpace(e.Attr("type"))
				if strings.HasPrefix(t, "=") {
					x, err := feel.Compile(t)
					if err != nil {
						return errf("'%s': zeebe:taskDefinition of '%s' at line %d: invalid type expression '%s': %v", res, el.ID, e.Line, t, err)
					}
					el.JobTypeExpr = x
				}
				el.JobType = t
				r := strings.TrimSpace(e.Attr("retries"))
				switch {
				case r == "":
				case strings.HasPrefix(r, "="):
					x, err := feel.Compile(r)
					if err != nil {
						return errf("'%s': zeebe:taskDefinition of '%s' at line %d: invalid retries expression '%s': %v", res, el.ID, e.Line, r, err)
					}
					el.RetriesExpr = x
				default:
					n, err := strconv.ParseInt(r, 10, 32)
					if err != nil || n < 0 {
						return errf("'%s': zeebe:taskDefinition of '%s' at line %d: retries '%s' is not a non-negative integer", res, el.ID, e.Line, r)
					}
					el.Retries = n
				}
			case "taskHeaders":
				el.Headers = map[string]string{}
				for _, h := range e.Children {
					if h.Name.Space == nsZeebe && h.Name.Local == "header" {
						el.Headers[h.Attr("key")] = h.Attr("value")
					}
				}
			case "ioMapping":
				if err := parseIOMapping(res, el, e); err != nil {
					return err
				}
			case "properties":
			default:
				return errf("'%s': %s at line %d on service task '%s' is not supported (supported: zeebe:taskDefinition, zeebe:taskHeaders, zeebe:ioMapping)", res, prefixed(e), e.Line, el.ID)
			}
		}
	}
	if el.JobType == "" {
		return errf("'%s': bpmn:serviceTask '%s' at line %d must have a zeebe:taskDefinition with a non-empty type", res, el.ID, el.Line)
	}
	return nil
}

// link wires the flows of one scope (the process, or the embedded
// subprocess parent) to its nodes, checks the scope's graph and returns its
// start event.
func link(res string, p *Process, parent *Element, flows []*Flow, nodes []*xnode) (*Element, error) {
	for _, f := range flows {
		src, ok := p.Elements[f.Source]
		if !ok {
			return nil, errf("'%s': sequence flow '%s' at line %d: sourceRef '%s' is not a flow node of process '%s'", res, f.ID, f.Line, f.Source, p.ID)
		}
		dst, ok := p.Elements[f.Target]
		if !ok {
			return nil, errf("'%s': sequence flow '%s' at line %d: targetRef '%s' is not a flow node of process '%s'", res, f.ID, f.Line, f.Target, p.ID)
		}
		if src.Parent != parent || dst.Parent != parent {
			return nil, errf("'%s': sequence flow '%s' at line %d connects '%s' and '%s', which are not in the same (sub)process", res, f.ID, f.Line, f.Source, f.Target)
		}
		src.Outgoing = append(src.Outgoing, f)
		dst.Incoming = append(dst.Incoming, f)
	}
	var scopeEls []*Element
	for _, n := range nodes {
		scopeEls = append(scopeEls, p.Elements[n.Attr("id")])
	}
	// Keep document order of outgoing flows: exclusive gateways evaluate
	// conditions in that order, and execution must be deterministic.
	for _, el := range scopeEls {
		sortFlows(el.Outgoing)
		sortFlows(el.Incoming)
	}
	var starts []*Element
	for _, el := range scopeEls {
		switch el.Kind {
		case StartEvent:
			switch {
			case el.Event != nil && parent != nil:
				return nil, errf("'%s': start event '%s' at line %d in subprocess '%s' must be a none start event (event subprocesses are not supported)", res, el.ID, el.Line, parent.ID)
			case el.Event == nil:
				starts = append(starts, el)
			case el.Event.Type == EventMessage:
				p.MessageStarts = append(p.MessageStarts, el)
			case el.Event.Type == EventSignal:
				p.SignalStarts = append(p.SignalStarts, el)
			default:
				p.TimerStarts = append(p.TimerStarts, el)
			}
			if len(el.Incoming) > 0 {
				return nil, errf("'%s': start event '%s' at line %d must not have incoming sequence flows", res, el.ID, el.Line)
			}
		case EndEvent:
			if len(el.Outgoing) > 0 {
				return nil, errf("'%s': end event '%s' at line %d must not have outgoing sequence flows", res, el.ID, el.Line)
			}
		case BoundaryEvent:
			host, ok := p.Elements[el.AttachedTo]
			if !ok || !(host.IsActivity() || host.Kind == ReceiveTask) || host.Parent != parent {
				return nil, errf("'%s': boundary event '%s' at line %d must be attached to a service task, receive task, subprocess or call activity of the same scope (attachedToRef '%s')", res, el.ID, el.Line, el.AttachedTo)
			}
			if len(el.Incoming) > 0 {
				return nil, errf("'%s': boundary event '%s' at line %d must not have incoming sequence flows", res, el.ID, el.Line)
			}
			if len(el.Outgoing) == 0 {
				return nil, errf("'%s': boundary event '%s' at line %d needs an outgoing sequence flow", res, el.ID, el.Line)
			}
			host.Boundaries = append(host.Boundaries, el)
		case ExclusiveGateway, InclusiveGateway:
			if el.DefaultFlow != "" {
				f, ok := p.Flows[el.DefaultFlow]
				if !ok || f.Source != el.ID {
					return nil, errf("'%s': %s '%s' at line %d: default flow '%s' is not one of its outgoing sequence flows", res, kindName(el.Kind), el.ID, el.Line, el.DefaultFlow)
				}
			}
			if len(el.Outgoing) > 1 || el.Kind == InclusiveGateway {
				for _, f := range el.Outgoing {
					if f.Condition == nil && f.ID != el.DefaultFlow && (len(el.Outgoing) > 1) {
						return nil, errf("'%s': sequence flow '%s' at line %d leaves %s '%s' without a condition and is not its default flow", res, f.ID, f.Line, kindName(el.Kind), el.ID)
					}
				}
			}
		}
		if el.Kind == EventBasedGateway {
			if err := checkEventGateway(res, p, el); err != nil {
				return nil, err
			}
		}
		if el.Kind != ExclusiveGateway && el.Kind != InclusiveGateway {
			for _, f := range el.Outgoing {
				if f.Condition != nil {
					return nil, errf("'%s': sequence flow '%s' at line %d has a condition but does not leave an exclusive or inclusive gateway (conditional flows are not supported)", res, f.ID, f.Line)
				}
			}
		}
		if el.Kind != StartEvent && el.Kind != BoundaryEvent && len(el.Incoming) == 0 {
			return nil, errf("'%s': %s '%s' at line %d has no incoming sequence flow", res, kindName(el.Kind), el.ID, el.Line)
		}
		if el.Kind != EndEvent && len(el.Outgoing) == 0 {
			return nil, errf("'%s': %s '%s' at line %d has no outgoing sequence flow (end the path with a bpmn:endEvent)", res, kindName(el.Kind), el.ID, el.Line)
		}
	}
	for _, el := range scopeEls {
		if el.Kind == InclusiveGateway && len(el.Incoming) > 1 {
			el.Reach = reachers(p, el)
		}
	}
	if parent != nil {
		if len(starts) != 1 {
			return nil, errf("'%s': subprocess '%s' at line %d must have exactly one none start event, found %d", res, parent.ID, parent.Line, len(starts))
		}
		return starts[0], nil
	}
	if len(starts) > 1 || len(starts)+len(p.MessageStarts)+len(p.TimerStarts)+len(p.SignalStarts) == 0 {
		return nil, errf("'%s': process '%s' must have exactly one none start event (or message/timer/signal start events), found %d", res, p.ID, len(starts))
	}
	var start *Element
	if len(starts) == 1 {
		start = starts[0]
	}
	return start, checkMessageStarts(res, p)
}

// reachers returns the elements of the gateway's scope from which a token
// can still arrive at it (following sequence flows backwards; a boundary
// event's host reaches whatever the boundary event reaches).
func reachers(p *Process, gw *Element) map[string]bool {
	seen := map[string]bool{}
	queue := []*Element{}
	for _, f := range gw.Incoming {
		queue = append(queue, p.Elements[f.Source])
	}
	for len(queue) > 0 {
		el := queue[0]
		queue = queue[1:]
		if seen[el.ID] {
			continue
		}
		seen[el.ID] = true
		for _, f := range el.Incoming {
			queue = append(queue, p.Elements[f.Source])
		}
		if el.Kind == BoundaryEvent {
			if host := p.Elements[el.AttachedTo]; host != nil {
				queue = append(queue, host)
			}
		}
	}
	return seen
}

func sortFlows(fs []*Flow) {
	// by line then id: deterministic order
	sort.Slice(fs, func(i, j int) bool { return less(fs[i], fs[j]) })
}

func less(a, b *Flow) bool {
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.ID < b.ID
}

func kindName(k Kind) string {
	switch k {
	case StartEvent:
		return "start event"
	case EndEvent:
		return "end event"
	case ServiceTask:
		return "service task"
	case ExclusiveGateway:
		return "exclusive gateway"
	case ParallelGateway:
		return "parallel gateway"
	case BoundaryEvent:
		return "boundary event"
	case SubProcess:
		return "subprocess"
	case CallActivity:
		return "call activity"
	case InclusiveGateway:
		return "inclusive gateway"
	case IntermediateCatchEvent:
		return "intermediate catch event"
	case ReceiveTask:
		return "receive task"
	case IntermediateThrowEvent:
		return "intermediate throw event"
	case EventBasedGateway:
		return "event-based gateway"
	}
	return "element"
}
