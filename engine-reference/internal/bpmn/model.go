// Package bpmn parses and validates the BPMN subset jobwire-engine executes:
// none start event, end event, service task (zeebe:taskDefinition,
// zeebe:taskHeaders), sequence flows, exclusive gateway with conditions and
// default flow, parallel gateway, and error boundary events on service tasks;
// message start events, timer start events (date, cycle), intermediate
// message and timer catch events, receive tasks, and message and timer
// boundary events (interrupting or not) on service and receive tasks
// (parse_events.go; ISO-8601 durations, dates and R[n]/ cycles).
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

	// Exclusive gateway.
	DefaultFlow string
}

// Flow is a sequence flow.
type Flow struct {
	ID        string
	Source    string
	Target    string
	Condition *feel.Expr
	Line      int
}
