// Package bad has one problem of each kind the checker reports.
package bad

import "context"

// Documented is fine; it names [context.Context] and [Documented.Method].
type Documented struct{}

// Method is documented.
func (Documented) Method() {}

func (Documented) Undocumented() {}

type Bare struct{}

func Plain() {}

// Linked points at [Missing] and at [Documented.Nope].
func Linked(ctx context.Context) {}

const Lonely = 1

// Grouped constants share the group's comment.
const (
	A = 1
	B = 2
)

var (
	// C has its own comment.
	C = 3
	D = 4
)

func unexported() {}
