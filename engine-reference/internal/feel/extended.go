package feel

import (
	"fmt"
	"math/big"
)

// The parts of FEEL that decision tables and variable mappings use beyond
// gateway conditions: list literals `[1, 2]`, context literals `{a: 1}`,
// ranges `[1..10]` / `(1..10]` as values, `x in <tests>`, `x between a and
// b`, `if c then a else b`, path access on any value (`{a: 1}.a`, and on a
// list of contexts `orders.id`), filters and indexes (`xs[item > 1]`,
// `xs[1]`, `xs[-1]`), and `?` (the input value of a unary test).

// Range is a FEEL range value: [lo..hi], (lo..hi), ... An end that is nil
// is open (a unary comparison such as `< 5` is a range with one end).
type Range struct {
	Lo, Hi         any
	LoIncl, HiIncl bool
}

// Contains reports whether v lies in the range (nil when it cannot be
// compared with the ends, as FEEL's null).
func (r *Range) Contains(v any) any {
	if r.Lo != nil {
		k, ok := order(v, r.Lo)
		if !ok {
			return nil
		}
		if k < 0 || (k == 0 && !r.LoIncl) {
			return false
		}
	}
	if r.Hi != nil {
		k, ok := order(v, r.Hi)
		if !ok {
			return nil
		}
		if k > 0 || (k == 0 && !r.HiIncl) {
			return false
		}
	}
	return true
}

// order compares two numbers or two strings.
func order(a, b any) (int, bool) {
	switch x := a.(type) {
	case *big.Rat:
		if y, ok := b.(*big.Rat); ok {
			return x.Cmp(y), true
		}
	case string:
		if y, ok := b.(string); ok {
			switch {
			case x < y:
				return -1, true
			case x > y:
				return 1, true
			}
			return 0, true
		}
	case Date:
		if y, ok := b.(Date); ok {
			return x.cmp(y), true
		}
	}
	return 0, false
}

// extendedPrimary parses the primaries that start with [, {, ?, or the
// word if. ok is false when none of them is next.
func (p *parser) extendedPrimary() (node, bool, error) {
	t := p.peek()
	if t == nil {
		return nil, false, nil
	}
	switch {
	case t.kind == 'o' && t.text == "[":
		p.pos++
		if err := p.enter(); err != nil {
			return nil, true, err
		}
		defer p.leave()
		if p.isOp("]") {
			p.pos++
			return &listNode{}, true, nil
		}
		first, err := p.expr()
		if err != nil {
			return nil, true, err
		}
		if p.isOp("..") {
			n, err := p.rangeRest(first, true, t)
			return n, true, err
		}
		items := []node{first}
		for p.isOp(",") {
			p.pos++
			n, err := p.expr()
			if err != nil {
				return nil, true, err
			}
			items = append(items, n)
		}
		if !p.isOp("]") {
			return nil, true, fmt.Errorf("missing ']' for '[' at offset %d", t.off)
		}
		p.pos++
		return &listNode{items: items}, true, nil
	case t.kind == 'o' && t.text == "{":
		p.pos++
		if err := p.enter(); err != nil {
			return nil, true, err
		}
		defer p.leave()
		c := &contextNode{}
		for !p.isOp("}") {
			k := p.peek()
			if k == nil || (k.kind != 'i' && k.kind != 's') {
				return nil, true, fmt.Errorf("expected a context key at offset %d", t.off)
			}
			p.pos++
			key := k.text
			// Unquoted keys may have several words ("first name").
			for k.kind == 'i' && p.peek() != nil && p.peek().kind == 'i' {
				key += " " + p.peek().text
				p.pos++
			}
			if !p.isOp(":") {
				return nil, true, fmt.Errorf("expected ':' after context key %q at offset %d", key, k.off)
			}
			p.pos++
			v, err := p.expr()
			if err != nil {
				return nil, true, err
			}
			c.keys = append(c.keys, key)
			c.vals = append(c.vals, v)
			if p.isOp(",") {
				p.pos++
				continue
			}
			if !p.isOp("}") {
				return nil, true, fmt.Errorf("missing '}' for '{' at offset %d", t.off)
			}
		}
		p.pos++
		return c, true, nil
	case t.kind == 'o' && t.text == "?":
		p.pos++
		p.q++
		return &varRef{path: []string{"?"}}, true, nil
	case t.kind == 'i' && t.text == "if":
		p.pos++
		if err := p.enter(); err != nil {
			return nil, true, err
		}
		defer p.leave()
		c, err := p.expr()
		if err != nil {
			return nil, true, err
		}
		if !p.isWord("then") {
			return nil, true, fmt.Errorf("expected 'then' for the 'if' at offset %d", t.off)
		}
		p.pos++
		a, err := p.expr()
		if err != nil {
			return nil, true, err
		}
		if !p.isWord("else") {
			return nil, true, fmt.Errorf("expected 'else' for the 'if' at offset %d", t.off)
		}
		p.pos++
		b, err := p.expr()
		if err != nil {
			return nil, true, err
		}
		return &ifNode{c, a, b}, true, nil
	}
	return nil, false, nil
}

// rangeRest parses "..hi]" or "..hi)" after the low end.
func (p *parser) rangeRest(lo node, loIncl bool, open *token) (node, error) {
	p.pos++ // ..
	hi, err := p.expr()
	if err != nil {
		return nil, err
	}
	switch {
	case p.isOp("]"):
		p.pos++
		return &rangeNode{lo: lo, hi: hi, loIncl: loIncl, hiIncl: true}, nil
	case p.isOp(")"):
		p.pos++
		return &rangeNode{lo: lo, hi: hi, loIncl: loIncl}, nil
	}
	return nil, fmt.Errorf("missing ']' or ')' closing the range at offset %d", open.off)
}

// postfix parses path access and filters after a primary.
func (p *parser) postfix(n node) (node, error) {
	for {
		switch {
		case p.isOp("."):
			t := p.peek()
			p.pos++
			k := p.peek()
			if k == nil || k.kind != 'i' {
				return nil, fmt.Errorf("expected a name after '.' at offset %d", t.off)
			}
			p.pos++
			n = &pathNode{of: n, key: k.text}
		case p.isOp("["):
			t := p.peek()
			p.pos++
			if err := p.enter(); err != nil {
				return nil, err
			}
			f, err := p.expr()
			p.leave()
			if err != nil {
				return nil, err
			}
			if !p.isOp("]") {
				return nil, fmt.Errorf("missing ']' for the filter at offset %d", t.off)
			}
			p.pos++
			n = &filterNode{of: n, cond: f}
		default:
			return n, nil
		}
	}
}

// cmpWords parses `x in tests` and `x between a and b` after an operand.
func (p *parser) cmpWords(l node) (node, error) {
	switch {
	case p.isWord("in"):
		t := p.peek()
		p.pos++
		if p.isOp("(") {
			// `x in (a, b)`: a parenthesised list of tests; otherwise a
			// single test that happens to start with '(' (a range, (a + b)).
			save := p.pos
			p.pos++
			tests, err := p.positiveTests()
			if err == nil && p.isOp(")") && len(tests) > 1 {
				p.pos++
				return &inNode{x: l, tests: tests}, nil
			}
			p.pos = save
		}
		u, err := p.positiveTest()
		if err != nil {
			return nil, fmt.Errorf("%v (after 'in' at offset %d)", err, t.off)
		}
		return &inNode{x: l, tests: []unaryTest{u}}, nil
	case p.isWord("between"):
		p.pos++
		lo, err := p.add()
		if err != nil {
			return nil, err
		}
		if !p.isWord("and") {
			return nil, fmt.Errorf("expected 'and' after 'between'")
		}
		p.pos++
		hi, err := p.add()
		if err != nil {
			return nil, err
		}
		return &inNode{x: l, tests: []unaryTest{{rng: &rangeNode{lo: lo, hi: hi, loIncl: true, hiIncl: true}}}}, nil
	}
	return l, nil
}

type listNode struct{ items []node }

func (n *listNode) eval(e *env) (any, error) {
	if err := e.spend(16 * (len(n.items) + 1)); err != nil {
		return nil, err
	}
	out := make([]any, len(n.items))
	for i, it := range n.items {
		v, err := it.eval(e)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

type contextNode struct {
	keys []string
	vals []node
}

// eval builds the context; later entries see earlier ones by name.
func (n *contextNode) eval(e *env) (any, error) {
	if err := e.spend(32 * (len(n.keys) + 1)); err != nil {
		return nil, err
	}
	out := make(map[string]any, len(n.keys))
	saved := e.locals
	defer func() { e.locals = saved }()
	for i, k := range n.keys {
		v, err := n.vals[i].eval(e)
		if err != nil {
			return nil, err
		}
		out[k] = v
		e.locals = withLocal(e.locals, k, v)
	}
	return out, nil
}

func withLocal(m map[string]any, k string, v any) map[string]any {
	c := make(map[string]any, len(m)+1)
	for a, b := range m {
		c[a] = b
	}
	c[k] = v
	return c
}

type rangeNode struct {
	lo, hi         node
	loIncl, hiIncl bool
}

func (n *rangeNode) eval(e *env) (any, error) {
	r := &Range{LoIncl: n.loIncl, HiIncl: n.hiIncl}
	var err error
	if n.lo != nil {
		if r.Lo, err = n.lo.eval(e); err != nil {
			return nil, err
		}
	}
	if n.hi != nil {
		if r.Hi, err = n.hi.eval(e); err != nil {
			return nil, err
		}
	}
	return r, nil
}

type ifNode struct{ c, a, b node }

// eval: a condition that is not true (false or null) takes the else branch.
func (n *ifNode) eval(e *env) (any, error) {
	c, err := n.c.eval(e)
	if err != nil {
		return nil, err
	}
	if b, ok := c.(bool); ok && b {
		return n.a.eval(e)
	}
	return n.b.eval(e)
}

type pathNode struct {
	of  node
	key string
}

func (n *pathNode) eval(e *env) (any, error) {
	v, err := n.of.eval(e)
	if err != nil {
		return nil, err
	}
	return pathOf(v, n.key), nil
}

// pathOf: a context's entry; on a list, the entry of every element.
func pathOf(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		return x[key]
	case []any:
		out := make([]any, len(x))
		for i, el := range x {
			out[i] = pathOf(el, key)
		}
		return out
	case Date:
		switch key {
		case "year":
			return big.NewRat(int64(x.Y), 1)
		case "month":
			return big.NewRat(int64(x.M), 1)
		case "day":
			return big.NewRat(int64(x.D), 1)
		case "weekday":
			wd := int64(x.time().Weekday())
			if wd == 0 {
				wd = 7
			}
			return big.NewRat(wd, 1)
		}
	case *Range:
		switch key {
		case "start":
			return x.Lo
		case "end":
			return x.Hi
		case "start included":
			return x.LoIncl
		case "end included":
			return x.HiIncl
		}
	}
	return nil
}

type filterNode struct{ of, cond node }

// eval: a number selects an element (1-based; negative from the end), a
// boolean keeps the elements for which it holds. The element is `item`, and
// a context element's entries are visible by name.
func (n *filterNode) eval(e *env) (any, error) {
	v, err := n.of.eval(e)
	if err != nil {
		return nil, err
	}
	list, ok := v.([]any)
	if !ok {
		if v == nil {
			return nil, nil
		}
		list = []any{v} // FEEL: a single value is a list of one
	}
	saved := e.locals
	defer func() { e.locals = saved }()
	var out []any
	for i, el := range list {
		loc := withLocal(saved, "item", el)
		if m, ok := el.(map[string]any); ok {
			for k, x := range m {
				if k != "item" {
					loc[k] = x
				}
			}
		}
		e.locals = loc
		c, err := n.cond.eval(e)
		if err != nil {
			return nil, err
		}
		if idx, ok := c.(*big.Rat); ok && i == 0 {
			return index(list, idx), nil
		}
		if b, ok := c.(bool); ok && b {
			out = append(out, el)
		}
	}
	if out == nil {
		out = []any{}
	}
	return out, nil
}

func index(list []any, r *big.Rat) any {
	if !r.IsInt() || !r.Num().IsInt64() {
		return nil
	}
	i := r.Num().Int64()
	switch {
	case i > 0 && i <= int64(len(list)):
		return list[i-1]
	case i < 0 && -i <= int64(len(list)):
		return list[int64(len(list))+i]
	}
	return nil
}

type inNode struct {
	x     node
	tests []unaryTest
}

func (n *inNode) eval(e *env) (any, error) {
	v, err := n.x.eval(e)
	if err != nil {
		return nil, err
	}
	return anyTest(e, n.tests, v)
}
