package bpmn

import (
	"strings"

	"github.com/jobwire/jobwire/engine-reference/internal/feel"
)

// Signal events, event-based gateways, throw events, catch-event variable
// mappings and zeebe:formDefinition, as Zeebe 8.8 has them:
//
//   - signal start events (bpmn:signalEventDefinition on a process's start
//     event; the name must be a literal), intermediate signal catch events,
//     signal boundary events (interrupting or not), signal intermediate throw
//     events and signal end events. A catch or throw event's signal name may
//     be a FEEL expression (`=...`), evaluated when the event is entered.
//   - bpmn:intermediateThrowEvent without a definition (a pass-through).
//   - bpmn:eventBasedGateway: every outgoing flow (no conditions, at least
//     two) leads to an intermediate catch event (message, timer or signal)
//     with that gateway as its only incoming flow; the first event wins.
//   - zeebe:ioMapping on events: output mappings on catch events (start
//     events with a definition, intermediate catch events, boundary events);
//     input and output mappings on intermediate throw events, input mappings
//     on end events. A signal throw event broadcasts its input-mapped (local)
//     variables, as Zeebe's signal behaviour does.
//   - zeebe:formDefinition (formId, formKey or externalReference) on a none
//     start event of a process: kept as metadata.

// EventSignal is the signal definition type.
const EventSignal = "signal"

// Kinds added by this file (numbered apart from the others).
const (
	IntermediateThrowEvent Kind = 110
	EventBasedGateway      Kind = 111
)

// FormRef is a zeebe:formDefinition: exactly one of FormID, FormKey and
// ExternalReference is set.
type FormRef struct {
	FormID            string
	FormKey           string
	ExternalReference string
	BindingType       string
}

const (
	attrSigName = "\x00jobwire-signal-name"
	attrSigOK   = "\x00jobwire-signal-ok"
)

// resolveSignalRefs copies the name of each bpmn:signal onto the signal
// event definitions that reference it.
func resolveSignalRefs(root *xnode) {
	sigs := map[string]string{}
	for _, c := range root.Children {
		if c.Name.Space == nsBPMN && c.Name.Local == "signal" {
			sigs[c.Attr("id")] = c.Attr("name")
		}
	}
	var walk func(n *xnode)
	walk = func(n *xnode) {
		if n.Name.Space == nsBPMN && n.Name.Local == "signalEventDefinition" {
			if name, ok := sigs[n.Attr("signalRef")]; ok {
				n.Attrs = append(n.Attrs, xmlAttr(attrSigName, name), xmlAttr(attrSigOK, "1"))
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(root)
}

// parseSignalRef builds a signal event definition from the bpmn:signal a
// signalEventDefinition references.
func parseSignalRef(res, what string, el *Element, n *xnode, literal bool) (*EventDef, error) {
	if n.Attr(attrSigOK) == "" {
		return nil, errf("'%s': %s '%s' at line %d must reference a bpmn:signal (signalRef '%s' is not defined)", res, what, el.ID, n.Line, n.Attr("signalRef"))
	}
	name := strings.TrimSpace(n.Attr(attrSigName))
	if name == "" {
		return nil, errf("'%s': %s '%s' at line %d: the referenced bpmn:signal '%s' must have a name", res, what, el.ID, n.Line, n.Attr("signalRef"))
	}
	d := &EventDef{Type: EventSignal, SignalName: name}
	if strings.HasPrefix(name, "=") {
		if literal {
			return nil, errf("'%s': %s '%s' at line %d: the signal name must be a literal (it is needed at deploy time)", res, what, el.ID, n.Line)
		}
		x, err := feel.Compile(name)
		if err != nil {
			return nil, errf("'%s': %s '%s' at line %d: invalid signal name expression '%s': %v", res, what, el.ID, n.Line, name, err)
		}
		d.SignalNameExpr = x
	}
	return d, nil
}

// parseSignalElement handles signal events, throw events and event-based
// gateways; handled is false for anything else.
func parseSignalElement(res string, c *xnode, el *Element, eventDefs []*xnode) (handled bool, err error) {
	isSignal := len(eventDefs) == 1 && eventDefs[0].Name.Local == "signalEventDefinition"
	switch c.Name.Local {
	case "startEvent":
		if !isSignal {
			return false, nil
		}
		el.Kind = StartEvent
		el.Event, err = parseSignalRef(res, "signal start event", el, eventDefs[0], true)
		return true, err
	case "intermediateCatchEvent":
		if !isSignal {
			return false, nil
		}
		el.Kind = IntermediateCatchEvent
		el.Event, err = parseSignalRef(res, "intermediate signal catch event", el, eventDefs[0], false)
		return true, err
	case "boundaryEvent":
		if !isSignal {
			return false, nil
		}
		el.Kind = BoundaryEvent
		el.AttachedTo = c.Attr("attachedToRef")
		el.Interrupting = c.Attr("cancelActivity") != "false"
		el.Event, err = parseSignalRef(res, "signal boundary event", el, eventDefs[0], false)
		return true, err
	case "intermediateThrowEvent":
		el.Kind = IntermediateThrowEvent
		switch {
		case len(eventDefs) == 0:
			return true, nil
		case isSignal:
			el.Event, err = parseSignalRef(res, "intermediate signal throw event", el, eventDefs[0], false)
			return true, err
		}
		return true, errf("'%s': bpmn:intermediateThrowEvent '%s' at line %d: %s is not supported (supported: none, signal)", res, el.ID, c.Line, prefixed(eventDefs[0]))
	case "endEvent":
		if !isSignal {
			return false, nil
		}
		el.Kind = EndEvent
		el.Event, err = parseSignalRef(res, "signal end event", el, eventDefs[0], false)
		return true, err
	case "eventBasedGateway":
		if len(eventDefs) > 0 {
			return true, unsupported(res, eventDefs[0])
		}
		el.Kind = EventBasedGateway
		return true, nil
	}
	return false, nil
}

// parseEventExtensions reads the zeebe extension elements of an event
// element or event-based gateway: zeebe:ioMapping where Zeebe accepts it
// (see the top of this file) and zeebe:formDefinition on a none start
// event; other vendors' extensions and zeebe:properties do not change
// execution; anything else is refused.
func parseEventExtensions(res string, c *xnode, el *Element, ext *xnode) error {
	if ext == nil {
		return nil
	}
	for _, e := range ext.Children {
		if e.Name.Space != nsZeebe || e.Name.Local == "properties" {
			continue
		}
		switch {
		case e.Name.Local == "ioMapping" && el.Kind != EventBasedGateway && el.Kind != ReceiveTask && !(el.Kind == StartEvent && el.Event == nil):
			if err := parseIOMapping(res, el, e); err != nil {
				return err
			}
			catch := el.Kind == StartEvent || el.Kind == IntermediateCatchEvent || el.Kind == BoundaryEvent
			if catch && len(el.Inputs) > 0 {
				return errf("'%s': zeebe:input at line %d on %s '%s': input mappings are not supported on catch events (Zeebe accepts output mappings there)", res, e.Line, prefixed(c), el.ID)
			}
			if el.Kind == EndEvent && len(el.Outputs) > 0 {
				return errf("'%s': zeebe:output at line %d on %s '%s': output mappings are not supported on end events (Zeebe accepts input mappings there)", res, e.Line, prefixed(c), el.ID)
			}
		case e.Name.Local == "ioMapping" && el.Kind == ReceiveTask:
			if err := parseIOMapping(res, el, e); err != nil {
				return err
			}
		case e.Name.Local == "formDefinition" && el.Kind == StartEvent && el.Event == nil:
			f, err := parseFormDefinition(res, el, e)
			if err != nil {
				return err
			}
			el.Form = f
		default:
			return errf("'%s': %s at line %d on %s '%s' is not supported", res, prefixed(e), e.Line, prefixed(c), el.ID)
		}
	}
	return nil
}

// parseFormDefinition reads zeebe:formDefinition: one of formId (a linked
// form deployed as a .form resource), formKey (an embedded or custom form
// key) and externalReference (a form outside Camunda).
func parseFormDefinition(res string, el *Element, e *xnode) (*FormRef, error) {
	f := &FormRef{FormID: strings.TrimSpace(e.Attr("formId")), FormKey: strings.TrimSpace(e.Attr("formKey")),
		ExternalReference: strings.TrimSpace(e.Attr("externalReference")), BindingType: strings.TrimSpace(e.Attr("bindingType"))}
	n := 0
	for _, v := range []string{f.FormID, f.FormKey, f.ExternalReference} {
		if v != "" {
			n++
		}
	}
	if n != 1 {
		return nil, errf("'%s': zeebe:formDefinition of '%s' at line %d must have exactly one of formId, formKey and externalReference (found %d)", res, el.ID, e.Line, n)
	}
	switch f.BindingType {
	case "", "latest", "deployment", "versionTag":
	default:
		return nil, errf("'%s': zeebe:formDefinition of '%s' at line %d: bindingType '%s' must be latest, deployment or versionTag", res, el.ID, e.Line, f.BindingType)
	}
	return f, nil
}

// checkEventGateway validates an event-based gateway as Zeebe does: at
// least two outgoing flows, none with a condition, each leading to an
// intermediate message, timer or signal catch event whose only incoming
// flow it is.
func checkEventGateway(res string, p *Process, el *Element) error {
	if len(el.Outgoing) < 2 {
		return errf("'%s': event-based gateway '%s' at line %d must have at least 2 outgoing sequence flows", res, el.ID, el.Line)
	}
	for _, f := range el.Outgoing {
		if f.Condition != nil {
			return errf("'%s': sequence flow '%s' at line %d leaves event-based gateway '%s' and must not have a condition", res, f.ID, f.Line, el.ID)
		}
		t := p.Elements[f.Target]
		if t == nil || t.Kind != IntermediateCatchEvent || t.Event == nil {
			return errf("'%s': event-based gateway '%s' at line %d: sequence flow '%s' must lead to an intermediate message, timer or signal catch event", res, el.ID, el.Line, f.ID)
		}
		if len(t.Incoming) != 1 {
			return errf("'%s': intermediate catch event '%s' at line %d follows event-based gateway '%s' and must have no other incoming sequence flow", res, t.ID, t.Line, el.ID)
		}
	}
	return nil
}

// userTaskRefusal is the refusal of a bpmn:userTask.
func userTaskRefusal(res string, n *xnode) error {
	return errf("'%s': element bpmn:userTask (id '%s') at line %d is not supported by jobwire-engine; forms can be deployed "+
		"(.form resources, answered as form metadata) and linked with zeebe:formDefinition on a none start event, "+
		"but no user task runs: model the human step as a bpmn:serviceTask handled by a job worker", res, n.Attr("id"), n.Line)
}
