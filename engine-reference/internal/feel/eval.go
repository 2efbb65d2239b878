package feel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

// Evaluation: the expression tree's nodes (variables, logic, comparison,
// arithmetic) under the evaluation budget.

type node interface {
	eval(*env) (any, error)
}

type lit struct{ v any }

func (l lit) eval(*env) (any, error) { return l.v, nil }

type varRef struct{ path []string }

func (v *varRef) eval(e *env) (any, error) {
	val, _, err := v.resolve(e)
	return val, err
}

// resolve returns the value and whether the path exists.
func (v *varRef) resolve(e *env) (any, bool, error) {
	val, ok := e.locals[v.path[0]]
	if !ok {
		raw, found := e.vars(v.path[0])
		if !found {
			return nil, false, nil // FEEL: unknown variable is null
		}
		if err := e.spend(len(raw)); err != nil {
			return nil, false, err
		}
		var err error
		if val, err = decodeJSON(raw); err != nil {
			return nil, false, err
		}
	}
	for _, seg := range v.path[1:] {
		if l, ok := val.([]any); ok { // a path on a list maps over it
			val = pathOf(l, seg)
			continue
		}
		m, ok := val.(map[string]any)
		if !ok {
			return nil, false, nil
		}
		val, ok = m[seg]
		if !ok {
			return nil, false, nil
		}
	}
	return val, true, nil
}

func decodeJSON(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return normalize(v), nil
}

func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		if !reasonableNumber(string(x)) {
			return nil // e.g. 1e999999999 would take unbounded memory as an exact rational
		}
		r, ok := new(big.Rat).SetString(string(x))
		if !ok {
			return nil
		}
		return r
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
		return x
	}
	return v
}

// reasonableNumber bounds the exponent of JSON numbers before exact parsing.
func reasonableNumber(s string) bool {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return len(s) <= 4096
	}
	exp := strings.TrimLeft(s[i+1:], "+-")
	return len(exp) <= 4 && len(s) <= 4096
}

type logic struct {
	and  bool
	l, r node
}

// eval follows FEEL's three-valued logic: false and X = false, true or X = true,
// anything non-boolean otherwise gives null.
func (n *logic) eval(e *env) (any, error) {
	a, err := n.l.eval(e)
	if err != nil {
		return nil, err
	}
	b, err := n.r.eval(e)
	if err != nil {
		return nil, err
	}
	ab, aok := a.(bool)
	bb, bok := b.(bool)
	if n.and {
		if (aok && !ab) || (bok && !bb) {
			return false, nil
		}
		if aok && bok {
			return true, nil
		}
		return nil, nil
	}
	if (aok && ab) || (bok && bb) {
		return true, nil
	}
	if aok && bok {
		return false, nil
	}
	return nil, nil
}

type compare struct {
	op   string
	l, r node
}

func (c *compare) eval(e *env) (any, error) {
	a, err := c.l.eval(e)
	if err != nil {
		return nil, err
	}
	b, err := c.r.eval(e)
	if err != nil {
		return nil, err
	}
	if c.op == "=" || c.op == "!=" {
		// Values of different types do not compare: null (Zeebe 8.8:
		// 5 = "a" is null, so such a condition raises an incident).
		eq, ok := typedEqual(a, b).(bool)
		if !ok {
			return nil, nil
		}
		if c.op == "!=" {
			return !eq, nil
		}
		return eq, nil
	}
	var k int
	switch x := a.(type) {
	case *big.Rat:
		y, ok := b.(*big.Rat)
		if !ok {
			return nil, nil
		}
		k = x.Cmp(y)
	case string:
		y, ok := b.(string)
		if !ok {
			return nil, nil
		}
		k = strings.Compare(x, y)
	case Date:
		y, ok := b.(Date)
		if !ok {
			return nil, nil
		}
		k = x.cmp(y)
	default:
		return nil, nil
	}
	switch c.op {
	case "<":
		return k < 0, nil
	case "<=":
		return k <= 0, nil
	case ">":
		return k > 0, nil
	default:
		return k >= 0, nil
	}
}

func equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case *big.Rat:
		y, ok := b.(*big.Rat)
		return ok && x.Cmp(y) == 0
	case string:
		y, ok := b.(string)
		return ok && x == y
	case Date:
		y, ok := b.(Date)
		return ok && x == y
	default:
		xa, _ := json.Marshal(a)
		yb, _ := json.Marshal(b)
		return bytes.Equal(xa, yb)
	}
}

type arith struct {
	op   byte
	l, r node
}

func (n *arith) eval(e *env) (any, error) {
	a, err := n.l.eval(e)
	if err != nil {
		return nil, err
	}
	b, err := n.r.eval(e)
	if err != nil {
		return nil, err
	}
	if n.op == '+' {
		if x, ok := a.(string); ok {
			if y, ok := b.(string); ok {
				return checkString(e, x+y)
			}
			return nil, nil
		}
	}
	x, ok1 := a.(*big.Rat)
	y, ok2 := b.(*big.Rat)
	if !ok1 || !ok2 {
		return nil, nil
	}
	r := new(big.Rat)
	switch n.op {
	case '+':
		r.Add(x, y)
	case '-':
		r.Sub(x, y)
	case '*':
		if x.Num().BitLen()+x.Denom().BitLen()+y.Num().BitLen()+y.Denom().BitLen() > 2*MaxNumberBits {
			return nil, fmt.Errorf("number too large (more than %d bits)", MaxNumberBits)
		}
		r.Mul(x, y)
	case '/':
		if y.Sign() == 0 {
			return nil, nil
		}
		r.Quo(x, y)
	}
	return checkNumber(e, r)
}

func checkNumber(e *env, r *big.Rat) (any, error) {
	bits := r.Num().BitLen() + r.Denom().BitLen()
	if bits > MaxNumberBits {
		return nil, fmt.Errorf("number too large (more than %d bits)", MaxNumberBits)
	}
	if err := e.spend(bits / 8); err != nil {
		return nil, err
	}
	return r, nil
}

func checkString(e *env, s string) (any, error) {
	if len(s) > MaxStringBytes {
		return nil, fmt.Errorf("string too long (more than %d bytes)", MaxStringBytes)
	}
	if err := e.spend(len(s)); err != nil {
		return nil, err
	}
	return s, nil
}
