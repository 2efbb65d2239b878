package feel

import (
	"fmt"
	"strings"
)

// Unary tests are the input entries of decision table rules: "-" (any
// value), comparisons ("< 5", ">= 10"), ranges ("[1..10]", "(1..10]"),
// values and expressions ("\"gold\"", "odd(n)", "? > 3"), lists of them
// separated by commas (a disjunction: "\"a\",\"b\""), and not(...) of such a
// list. An expression test holds when its value equals the input, is true,
// or is a list or range the input is in.

// UnaryTests is a compiled input entry.
type UnaryTests struct {
	src   string
	any   bool // "-" or empty
	neg   bool // not(...)
	tests []unaryTest
}

type unaryTest struct {
	op   string // comparison against val
	val  node
	rng  *rangeNode
	expr node
	q    bool // expr uses '?': its boolean value is the test
}

// String returns the source text.
func (u *UnaryTests) String() string { return u.src }

// CompileUnaryTests parses an input entry under the limits of Compile.
func CompileUnaryTests(src string) (*UnaryTests, error) {
	if len(src) > MaxLength {
		return nil, fmt.Errorf("unary tests are %d bytes long; the limit is %d bytes", len(src), MaxLength)
	}
	s := strings.TrimSpace(src)
	u := &UnaryTests{src: src}
	if s == "" || s == "-" {
		u.any = true
		return u, nil
	}
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	if len(toks) > 2 && toks[0].kind == 'i' && toks[0].text == "not" && toks[1].kind == 'o' && toks[1].text == "(" &&
		toks[len(toks)-1].kind == 'o' && toks[len(toks)-1].text == ")" {
		p.pos = 2
		tests, err := p.positiveTests()
		if err == nil && p.pos == len(toks)-1 {
			u.neg, u.tests = true, tests
			return u, nil
		}
		p.pos = 0 // e.g. "not(a) and b": an expression, parsed below
	}
	if u.tests, err = p.positiveTests(); err != nil {
		return nil, err
	}
	if p.pos < len(p.toks) {
		return nil, fmt.Errorf("unexpected %q at offset %d", p.toks[p.pos].text, p.toks[p.pos].off)
	}
	return u, nil
}

// Test applies the tests to an input value (a value as Eval returns it).
func (u *UnaryTests) Test(input any, vars Lookup) (bool, error) {
	if u.any {
		return true, nil
	}
	e := &env{vars: vars, budget: evalBudget}
	ok, err := anyTest(e, u.tests, input)
	if err != nil {
		return false, err
	}
	return ok != u.neg, nil
}

func (p *parser) positiveTests() ([]unaryTest, error) {
	var out []unaryTest
	for {
		t, err := p.positiveTest()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
		if !p.isOp(",") {
			return out, nil
		}
		p.pos++
	}
}

func (p *parser) positiveTest() (unaryTest, error) {
	if err := p.enter(); err != nil {
		return unaryTest{}, err
	}
	defer p.leave()
	if t := p.peek(); t != nil && t.kind == 'o' {
		switch t.text {
		case "<", "<=", ">", ">=", "=", "!=":
			p.pos++
			v, err := p.add()
			if err != nil {
				return unaryTest{}, err
			}
			return unaryTest{op: t.text, val: v}, nil
		}
	}
	q0 := p.q
	n, err := p.expr()
	if err != nil {
		return unaryTest{}, err
	}
	if r, ok := n.(*rangeNode); ok {
		return unaryTest{rng: r}, nil
	}
	return unaryTest{expr: n, q: p.q > q0}, nil
}

// anyTest reports whether one of the tests holds for v.
func anyTest(e *env, tests []unaryTest, v any) (bool, error) {
	for _, t := range tests {
		ok, err := t.holds(e, v)
		if err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

func (t unaryTest) holds(e *env, v any) (bool, error) {
	saved := e.locals
	e.locals = withLocal(saved, "?", v)
	defer func() { e.locals = saved }()
	switch {
	case t.op != "":
		x, err := t.val.eval(e)
		if err != nil {
			return false, err
		}
		r, err := (&compare{op: t.op, l: lit{v}, r: lit{x}}).eval(e)
		b, _ := r.(bool)
		return b, err
	case t.rng != nil:
		r, err := t.rng.eval(e)
		if err != nil {
			return false, err
		}
		b, _ := r.(*Range).Contains(v).(bool)
		return b, nil
	}
	x, err := t.expr.eval(e)
	if err != nil {
		return false, err
	}
	if b, ok := x.(bool); ok && t.q {
		return b, nil
	}
	return matches(x, v), nil
}

// matches: the value of an expression test against the input. A boolean
// that is not the input's value is the test's outcome (odd(n)), except for
// a boolean input, which is compared (input false, entry true: no match).
func matches(x, v any) bool {
	if equal(x, v) {
		return true
	}
	switch y := x.(type) {
	case bool:
		_, boolInput := v.(bool)
		return y && !boolInput
	case *Range:
		b, _ := y.Contains(v).(bool)
		return b
	case []any:
		for _, el := range y {
			if r, ok := el.(*Range); ok {
				if b, _ := r.Contains(v).(bool); b {
					return true
				}
			} else if equal(el, v) {
				return true
			}
		}
	}
	return false
}
