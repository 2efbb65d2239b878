// Package bpmn parses and validates the BPMN subset jobwire-engine executes:
// none start event, end event (none, error), service task
// (zeebe:taskDefinition, zeebe:taskHeaders), embedded subprocess, call
// activity (zeebe:calledElement), zeebe:ioMapping input and output mappings
// on activities, multi-instance activities (bpmn:multiInstanceLoopCharacteristics
// with zeebe:loopCharacteristics, parallel and sequential), sequence flows,
// exclusive and inclusive gateways with conditions and default flow, parallel
// gateway, and error boundary events on activities; message start events,
// timer start events (date, cycle), intermediate message and timer catch
// events, receive tasks, and message and timer boundary events (interrupting
// or not) on activities (parse_events.go; ISO-8601 durations, dates and
// R[n]/ cycles).
// Everything else is rejected at deploy time with the element and its line,
// because silently ignoring an element would run a different process than
// the one the user drew.
package bpmn

import "github.com/jobwire/jobwire/engine-reference/internal/feel"

// Kind is the type of a flow node.
type Kind int

// Flow node kinds in the subset.
const (
	StartEvent Kind = iota + 1
	EndEvent
	ServiceTask
	ExclusiveGateway
	ParallelGateway
	BoundaryEvent
	SubProcess
	CallActivity
	InclusiveGateway
	IntermediateCatchEvent
	ReceiveTask
)

// Process is one executable process of a deployed resource.
type Process struct {
	ID       string
	Name     string
	Elements map[string]*Element
	Flows    map[string]*Flow
	Start    *Element // the none start event; nil when the process has only event starts
	// Message and timer start events.
	MessageStarts, TimerStarts []*Element
	// Signal start events (parse_signals.go).
	SignalStarts []*Element
}

// Element is a flow node.
type Element struct {
	ID       string
	Name     string
	Kind     Kind
	Line     int
	Incoming []*Flow
	Outgoing []*Flow

	// Service task.
	JobType     string     // static type, when JobTypeExpr is nil
	JobTypeExpr *feel.Expr // type given as "= expression"
	Retries     int64
	RetriesExpr *feel.Expr
	Headers     map[string]string
	Boundaries  []*Element

	// Boundary event; error end event (ThrowsError, ErrorCode).
	AttachedTo  string
	ErrorCode   string // empty with CatchAll
	CatchAll    bool
	ThrowsError bool

	// Message or timer definition (start, intermediate catch, boundary
	// events; receive tasks); nil otherwise.
	Event *EventDef
	// Boundary event: cancelActivity (false = non-interrupting).
	Interrupting bool

	// Exclusive and inclusive gateway.
	DefaultFlow string

	// Scope: the embedded subprocess the element is in (nil: the process).
	Parent *Element
	// Embedded subprocess: its none start event.
	Start *Element

	// Activities (service task, subprocess, call activity): zeebe:ioMapping.
	Inputs  []Mapping
	Outputs []Mapping
	// Multi-instance activity (nil when the activity is not one).
	MI *MultiInstance

	// Call activity (zeebe:calledElement).
	CalledProcessID    string
	CalledProcessExpr  *feel.Expr
	PropagateAllChild  bool
	PropagateAllParent bool

	// Inclusive gateway joins: the elements of the same scope from which a
	// token can still reach the gateway (computed at deploy).
	Reach map[string]bool

	// Business rule task calling a decision (parse_decision.go).
	Decision *CalledDecision

	// None start event: its zeebe:formDefinition (parse_signals.go).
	Form *FormRef
}

// Mapping is one zeebe:input or zeebe:output: the FEEL source expression
// (a static value is a FEEL literal) and the target variable name, possibly
// a path (a.b.c) into a context.
type Mapping struct {
	Source *feel.Expr
	Target []string
}

// MultiInstance is bpmn:multiInstanceLoopCharacteristics with
// zeebe:loopCharacteristics.
type MultiInstance struct {
	Sequential       bool
	InputCollection  *feel.Expr
	InputElement     string
	OutputCollection string
	OutputElement    *feel.Expr
	// OutputVariable is the outputElement's variable when it is a plain
	// variable name (Zeebe then creates it on each inner instance).
	OutputVariable string
}

// IsActivity reports whether the element is an activity (it can carry
// mappings, boundary events and multi-instance).
func (e *Element) IsActivity() bool {
	return e.Kind == ServiceTask || e.Kind == SubProcess || e.Kind == CallActivity || e.Kind == BusinessRuleTask
}

// Flow is a sequence flow.
type Flow struct {
	ID        string
	Source    string
	Target    string
	Condition *feel.Expr
	Line      int
}
