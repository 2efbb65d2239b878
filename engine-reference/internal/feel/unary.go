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
	// simple: expr is a literal, a name or a list literal (a value the
	// input is compared with, never a test by its boolean value).
	simple bool
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

// result: a positive list holds when a test is true; not(...) holds when
// every test is false (a test that cannot compare makes both fail).
func (u *UnaryTests) result(e *env, input any) (bool, error) {
	r, err := anyTest(e, u.tests, input)
	if err != nil {
		return false, err
	}
	if u.neg {
		return r == false, nil
	}
	return r == true, nil
}

// Test applies the tests to an input value (a value as Eval returns it).
func (u *UnaryTests) Test(input any, vars Lookup) (bool, error) {
	if u.any {
		return true, nil
	}
	e := &env{vars: vars, budget: evalBudget}
	return u.result(e, input)
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
		case "=", "!=":
			// Not FEEL unary tests (Zeebe refuses them at deploy): a value
			// alone tests equality, not(...) inequality.
			return unaryTest{}, fmt.Errorf("'%s' at offset %d cannot start an input entry; write the value alone for equality or not(value)", t.text, t.off)
		case "<", "<=", ">", ">=":
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
	simple := false
	switch n.(type) {
	case lit, *varRef, *listNode:
		simple = true
	}
	return unaryTest{expr: n, q: p.q > q0, simple: simple}, nil
}

// anyTest applies a disjunction of tests to v, in FEEL's three-valued
// logic: true when one holds, null (nil) when none holds but one could not
// compare (a value of another type), false otherwise.
func anyTest(e *env, tests []unaryTest, v any) (any, error) {
	var out any = false
	for _, t := range tests {
		r, err := t.holds(e, v)
		if err != nil {
			return nil, err
		}
		if r == true {
			return true, nil
		}
		if r == nil {
			out = nil
		}
	}
	return out, nil
}

func (t unaryTest) holds(e *env, v any) (any, error) {
	saved := e.locals
	e.locals = withLocal(saved, "?", v)
	defer func() { e.locals = saved }()
	switch {
	case t.op != "":
		x, err := t.val.eval(e)
		if err != nil {
			return nil, err
		}
		return (&compare{op: t.op, l: lit{v}, r: lit{x}}).eval(e)
	case t.rng != nil:
		r, err := t.rng.eval(e)
		if err != nil {
			return nil, err
		}
		return r.(*Range).Contains(v), nil
	}
	x, err := t.expr.eval(e)
	if err != nil {
		return nil, err
	}
	if t.q { // a test written with '?': only true holds
		b, _ := x.(bool)
		return b, nil
	}
	if b, ok := x.(bool); ok && !t.simple {
		// An expression such as odd(n) is the test itself. A literal
		// (true) or a name is a value compared with the input instead.
		if _, boolInput := v.(bool); !boolInput {
			return b, nil
		}
	}
	return matches(x, v), nil
}

// matches: the input against a value: in a range or a list (of values or
// ranges), or equal to it. Values of different types do not compare (nil).
func matches(x, v any) any {
	switch y := x.(type) {
	case *Range:
		return y.Contains(v)
	case []any:
		if _, isList := v.([]any); !isList {
			var out any = false
			for _, el := range y {
				r := matches(el, v)
				if r == true {
					return true
				}
				if r == nil {
					out = nil
				}
			}
			return out
		}
	}
	return typedEqual(x, v)
}

// typedEqual is FEEL's =: null equals only null, values of different types
// give null.
func typedEqual(a, b any) any {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if kind(a) != kind(b) {
		return nil
	}
	return equal(a, b)
}

func kind(v any) string {
	switch v.(type) {
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "list"
	case map[string]any:
		return "context"
	case *Range:
		return "range"
	case Date:
		return "date"
	}
	if _, ok := v.(interface{ RatString() string }); ok {
		return "number"
	}
	return fmt.Sprintf("%T", v)
}
