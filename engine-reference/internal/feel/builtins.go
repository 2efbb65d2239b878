package feel

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"unicode/utf8"
)

// Built-in functions and the number helpers they share.

type builtin struct {
	min, max int // argument counts; max < 0: variadic
	fn       func(e *env, args []node) (any, error)
}

type callNode struct {
	name string
	fn   func(e *env, args []node) (any, error)
	args []node
}

func (c *callNode) eval(e *env) (any, error) { return c.fn(e, c.args) }

// builtins are FEEL's functions as Camunda documents them; a function given
// arguments of the wrong type returns null, as in FEEL.
var builtins map[string]builtin

func init() {
	builtins = map[string]builtin{
		"not": {1, 1, func(e *env, a []node) (any, error) {
			v, err := a[0].eval(e)
			if b, ok := v.(bool); ok && err == nil {
				return !b, nil
			}
			return nil, err
		}},
		"is defined": {1, 1, func(e *env, a []node) (any, error) {
			if v, ok := a[0].(*varRef); ok {
				_, exists, err := v.resolve(e)
				return exists, err
			}
			_, err := a[0].eval(e)
			return err == nil, err
		}},
		"string length": str1(func(e *env, s string) (any, error) {
			return new(big.Rat).SetInt64(int64(utf8.RuneCountInString(s))), nil
		}),
		"upper case":  str1(func(e *env, s string) (any, error) { return checkString(e, strings.ToUpper(s)) }),
		"lower case":  str1(func(e *env, s string) (any, error) { return checkString(e, strings.ToLower(s)) }),
		"contains":    str2(func(s, t string) any { return strings.Contains(s, t) }),
		"starts with": str2(func(s, t string) any { return strings.HasPrefix(s, t) }),
		"ends with":   str2(func(s, t string) any { return strings.HasSuffix(s, t) }),
		"substring": {2, 3, func(e *env, a []node) (any, error) {
			vs, err := evalAll(e, a)
			if err != nil {
				return nil, err
			}
			s, ok := vs[0].(string)
			start, ok2 := smallInt(vs[1])
			if !ok || !ok2 {
				return nil, nil
			}
			r := []rune(s)
			if start < 0 {
				start = int64(len(r)) + start + 1
			}
			if start < 1 {
				start = 1
			}
			if start > int64(len(r)) {
				return "", nil
			}
			end := int64(len(r))
			if len(vs) == 3 {
				n, ok := smallInt(vs[2])
				if !ok || n < 0 {
					return nil, nil
				}
				if start-1+n < end {
					end = start - 1 + n
				}
			}
			return string(r[start-1 : end]), nil
		}},
		"string": {1, 1, func(e *env, a []node) (any, error) {
			v, err := a[0].eval(e)
			if err != nil {
				return nil, err
			}
			switch x := v.(type) {
			case nil:
				return nil, nil
			case string:
				return x, nil
			case bool:
				return fmt.Sprint(x), nil
			case *big.Rat:
				return checkString(e, ratString(x))
			}
			b, _ := json.Marshal(v)
			return checkString(e, string(b))
		}},
		"number": str1(func(e *env, s string) (any, error) {
			if !reasonableNumber(s) {
				return nil, nil
			}
			r, ok := new(big.Rat).SetString(strings.TrimSpace(s))
			if !ok {
				return nil, nil
			}
			return r, nil
		}),
		"abs":             num1(func(x *big.Rat) *big.Rat { return new(big.Rat).Abs(x) }),
		"floor":           round(floorRat),
		"ceiling":         round(ceilRat),
		"round up":        round(func(x *big.Rat) *big.Int { return awayFromZero(x, ceilRat) }),
		"round down":      round(func(x *big.Rat) *big.Int { return awayFromZero(x, floorRat) }),
		"round half up":   round(func(x *big.Rat) *big.Int { return halfRound(x, true) }),
		"round half down": round(func(x *big.Rat) *big.Int { return halfRound(x, false) }),
		"decimal":         {2, 2, round(halfEven).fn},
		"modulo": {2, 2, func(e *env, a []node) (any, error) {
			vs, err := evalAll(e, a)
			if err != nil {
				return nil, err
			}
			x, ok1 := vs[0].(*big.Rat)
			y, ok2 := vs[1].(*big.Rat)
			if !ok1 || !ok2 || y.Sign() == 0 {
				return nil, nil
			}
			// FEEL: dividend - divisor * floor(dividend / divisor).
			q := new(big.Rat).SetInt(floorRat(new(big.Rat).Quo(x, y)))
			return checkNumber(e, new(big.Rat).Sub(x, q.Mul(q, y)))
		}},
		"odd":  intPred(func(i *big.Int) bool { return i.Bit(0) == 1 }),
		"even": intPred(func(i *big.Int) bool { return i.Bit(0) == 0 }),
		"min":  {1, -1, extreme(-1)},
		"max":  {1, -1, extreme(1)},
		"sum": {1, -1, func(e *env, a []node) (any, error) {
			vs, err := evalAll(e, a)
			if err != nil {
				return nil, err
			}
			s := new(big.Rat)
			for _, v := range spread(vs) {
				x, ok := v.(*big.Rat)
				if !ok {
					return nil, nil
				}
				s.Add(s, x)
				if _, err := checkNumber(e, s); err != nil {
					return nil, err
				}
			}
			return s, nil
		}},
	}
	addCollectionBuiltins()
}

func evalAll(e *env, a []node) ([]any, error) {
	out := make([]any, len(a))
	for i, n := range a {
		v, err := n.eval(e)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func smallInt(v any) (int64, bool) {
	r, ok := v.(*big.Rat)
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return 0, false
	}
	n := r.Num().Int64()
	return n, n > -1<<40 && n < 1<<40
}

func str1(f func(e *env, s string) (any, error)) builtin {
	return builtin{1, 1, func(e *env, a []node) (any, error) {
		v, err := a[0].eval(e)
		if err != nil {
			return nil, err
		}
		s, ok := v.(string)
		if !ok {
			return nil, nil
		}
		return f(e, s)
	}}
}

func str2(f func(s, t string) any) builtin {
	return builtin{2, 2, func(e *env, a []node) (any, error) {
		vs, err := evalAll(e, a)
		if err != nil {
			return nil, err
		}
		s, ok1 := vs[0].(string)
		t, ok2 := vs[1].(string)
		if !ok1 || !ok2 {
			return nil, nil
		}
		return f(s, t), nil
	}}
}

func num1(f func(x *big.Rat) *big.Rat) builtin {
	return builtin{1, 1, func(e *env, a []node) (any, error) {
		v, err := a[0].eval(e)
		if err != nil {
			return nil, err
		}
		x, ok := v.(*big.Rat)
		if !ok {
			return nil, nil
		}
		return checkNumber(e, f(x))
	}}
}

func intPred(f func(i *big.Int) bool) builtin {
	return builtin{1, 1, func(e *env, a []node) (any, error) {
		v, err := a[0].eval(e)
		if err != nil {
			return nil, err
		}
		x, ok := v.(*big.Rat)
		if !ok || !x.IsInt() {
			return nil, nil
		}
		return f(x.Num()), nil
	}}
}

func extreme(sign int) func(e *env, a []node) (any, error) {
	return func(e *env, a []node) (any, error) {
		vs, err := evalAll(e, a)
		if err != nil {
			return nil, err
		}
		vs = spread(vs)
		var best *big.Rat
		for _, v := range vs {
			x, ok := v.(*big.Rat)
			if !ok {
				return nil, nil
			}
			if best == nil || x.Cmp(best) == sign {
				best = x
			}
		}
		return best, nil
	}
}

// round builds floor/ceiling/round*(n[, scale]) from an integer rounding.
func round(toInt func(x *big.Rat) *big.Int) builtin {
	return builtin{1, 2, func(e *env, a []node) (any, error) {
		vs, err := evalAll(e, a)
		if err != nil {
			return nil, err
		}
		x, ok := vs[0].(*big.Rat)
		if !ok {
			return nil, nil
		}
		scale := int64(0)
		if len(vs) == 2 {
			s, ok := smallInt(vs[1])
			if !ok || s < -1000 || s > 1000 {
				return nil, nil
			}
			scale = s
		}
		f := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(abs64(scale)), nil))
		if scale < 0 {
			f.Inv(f)
		}
		scaled := new(big.Rat).Mul(x, f)
		r := new(big.Rat).SetInt(toInt(scaled))
		return checkNumber(e, r.Quo(r, f))
	}}
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

func floorRat(x *big.Rat) *big.Int {
	return new(big.Int).Div(x.Num(), x.Denom()) // Euclidean division: floor for a positive denominator
}

func ceilRat(x *big.Rat) *big.Int {
	n := floorRat(new(big.Rat).Neg(x))
	return n.Neg(n)
}

// awayFromZero applies a rounding to |x| and restores the sign: with
// ceil it is "round up" (away from zero), with floor "round down".
func awayFromZero(x *big.Rat, f func(*big.Rat) *big.Int) *big.Int {
	i := f(new(big.Rat).Abs(x))
	if x.Sign() < 0 {
		i.Neg(i)
	}
	return i
}

var half = big.NewRat(1, 2)

// halfRound rounds to the nearest integer; ties away from zero (up) or
// towards zero (down).
func halfRound(x *big.Rat, up bool) *big.Int {
	a := new(big.Rat).Abs(x)
	var i *big.Int
	if up {
		i = floorRat(a.Add(a, half))
	} else {
		i = ceilRat(a.Sub(a, half))
	}
	if x.Sign() < 0 {
		i.Neg(i)
	}
	return i
}

// halfEven is decimal()'s rounding (banker's rounding).
func halfEven(x *big.Rat) *big.Int {
	i := floorRat(new(big.Rat).Add(x, half))
	if new(big.Rat).Sub(x, new(big.Rat).SetInt(floorRat(x))).Cmp(half) == 0 && i.Bit(0) == 1 {
		i.Sub(i, big.NewInt(1))
	}
	return i
}

func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	// Exact decimal when the denominator has only factors 2 and 5.
	d := new(big.Int).Set(r.Denom())
	digits := 0
	for _, p := range []int64{2, 5} {
		bp := big.NewInt(p)
		m := new(big.Int)
		for {
			q, rem := new(big.Int).QuoRem(d, bp, m)
			if rem.Sign() != 0 {
				break
			}
			d = q
			digits++
		}
	}
	if d.Cmp(big.NewInt(1)) == 0 {
		return strings.TrimRight(strings.TrimRight(r.FloatString(digits), "0"), ".")
	}
	return r.FloatString(34)
}
