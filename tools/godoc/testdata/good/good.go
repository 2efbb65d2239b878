// Package good is fully documented; its links resolve ([Thing], [Thing.Do], [context.Context]).
package good

import "context"

// Thing does things.
type Thing struct{}

// Do does it with [context.Context] and a [Thing].
func (Thing) Do(ctx context.Context) {}

// New returns a [Thing].
func New() Thing { return Thing{} }

// Limits of a [Thing].
const (
	Min = 1
	Max = 2 // Max: also fine with a line comment
)
