// Package feel is a small evaluator for the FEEL expressions jobwire's BPMN
// subset allows: literals, variable paths, comparisons, arithmetic,
// and/or, and the built-in functions most used in gateway conditions
// (not(), string length(), contains(), is defined(), number functions, ...).
// Numbers are exact (big.Rat) so large integers compare correctly; the
// engine never goes through float64.
//
// Like Zeebe's FEEL engine it rejects syntax that is not FEEL ("==", "&&",
// "||", "!", prefix "not" without parentheses). Every expression is bounded
// at compile time (MaxLength, MaxDepth) and at evaluation time (number and
// string sizes, an allocation budget), so no expression can crash or stall
// the partition that evaluates it.
package feel

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

// Limits. A condition is a line of text in a BPMN file; these are far above
// anything written by hand and far below what could hurt the engine.
const (
	// MaxLength bounds an expression's source text in bytes.
	MaxLength = 16 << 10
	// MaxDepth bounds nesting: parentheses, function arguments, not(),
	// unary minus.
	MaxDepth = 64
	// MaxNumberBits bounds numerator+denominator bits of any intermediate
	// number (about 20,000 decimal digits).
	MaxNumberBits = 1 << 16
	// MaxStringBytes bounds any intermediate string.
	MaxStringBytes = 1 << 20
	// evalBudget bounds the bytes an evaluation may produce in total.
	evalBudget = 32 << 20
)

// Expr is a compiled expression.
type Expr struct {
	src  string
	root node
}

// String returns the source text.
func (e *Expr) String() string { return e.src }

// Compile parses an expression. A leading "=" (Zeebe's marker) is optional.
func Compile(src string) (*Expr, error) {
	if len(src) > MaxLength {
		return nil, fmt.Errorf("expression is %d bytes long; the limit is %d bytes", len(src), MaxLength)
	}
	s := strings.TrimSpace(src)
	s = strings.TrimPrefix(s, "=")
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.toks) {
		return nil, fmt.Errorf("unexpected %q at offset %d", p.toks[p.pos].text, p.toks[p.pos].off)
	}
	return &Expr{src: src, root: n}, nil
}

// Lookup resolves a top-level variable to its raw JSON value.
type Lookup func(name string) (json.RawMessage, bool)

// env is one evaluation: the variables and what is left of the budget.
type env struct {
	vars   Lookup
	budget int
	// locals are values bound by the expression itself or its caller
	// (a filter's item, a unary test's ?, context entries); they shadow vars.
	locals map[string]any
}

func (e *env) spend(n int) error {
	e.budget -= n
	if e.budget < 0 {
		return fmt.Errorf("expression evaluation exceeds its budget of %d bytes", evalBudget)
	}
	return nil
}

// Eval evaluates the expression. Values: nil, bool, *big.Rat, string,
// map[string]any / []any (from JSON).
func (e *Expr) Eval(vars Lookup) (any, error) {
	return e.root.eval(&env{vars: vars, budget: evalBudget})
}

// EvalBool evaluates a condition; anything but a boolean is an error (Zeebe
// raises an incident when a condition does not yield a boolean).
func (e *Expr) EvalBool(vars Lookup) (bool, error) {
	v, err := e.Eval(vars)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("expected condition '%s' to be a boolean, but was %s", e.src, describe(v))
	}
	return b, nil
}

// EvalString evaluates to a string (job types given as expressions).
func (e *Expr) EvalString(vars Lookup) (string, error) {
	v, err := e.Eval(vars)
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("expected '%s' to be a string, but was %s", e.src, describe(v))
	}
	return s, nil
}

// EvalInt evaluates to an integer (retries given as expressions).
func (e *Expr) EvalInt(vars Lookup) (int64, error) {
	v, err := e.Eval(vars)
	if err != nil {
		return 0, err
	}
	r, ok := v.(*big.Rat)
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return 0, fmt.Errorf("expected '%s' to be an integer, but was %s", e.src, describe(v))
	}
	return r.Num().Int64(), nil
}

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return fmt.Sprintf("boolean %v", x)
	case *big.Rat:
		return "number " + x.RatString()
	case string:
		if len(x) > 64 {
			return fmt.Sprintf("string %q...", x[:64])
		}
		return fmt.Sprintf("string %q", x)
	default:
		return fmt.Sprintf("%T", v)
	}
}
