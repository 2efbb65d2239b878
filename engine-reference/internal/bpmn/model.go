// Package bpmn parses and validates the BPMN subset jobwire-engine executes:
// none start event, end event, service task (zeebe:taskDefinition,
// zeebe:taskHeaders), sequence flows, exclusive gateway with conditions and
// default flow, parallel gateway, and error boundary events on service tasks.
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
)

// Process is one executable process of a deployed resource.
type Process struct {
	ID       string
	Name     string
	Elements map[string]*Element
	Flows    map[string]*Flow
	Start    *Element
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

	// Exclusive gateway.
	DefaultFlow string

	// Business rule task calling a decision (parse_decision.go).
	Decision *CalledDecision
}

// Flow is a sequence flow.
type Flow struct {
	ID        string
	Source    string
	Target    string
	Condition *feel.Expr
	Line      int
}
