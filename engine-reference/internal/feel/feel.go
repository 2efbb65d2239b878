// Package feel is a tiny evaluator for the FEEL-like expressions jobwire's
// BPMN subset allows: literals, variable paths, comparisons, arithmetic and
// and/or/not. Numbers are exact (big.Rat) so large integers compare
// correctly; the engine never goes through float64.
package feel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"unicode"
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

// Eval evaluates the expression. Values: nil, bool, *big.Rat, string,
// map[string]any / []any (from JSON).
func (e *Expr) Eval(vars Lookup) (any, error) { return e.root.eval(vars) }

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
		return fmt.Sprintf("string %q", x)
	default:
		return fmt.Sprintf("%T", v)
	}
}

// ---- lexer ----

type token struct {
	kind byte // 'n' number, 's' string, 'i' identifier, 'o' operator
	text string
	off  int
}

func lex(s string) ([]token, error) {
	var out []token
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c >= '0' && c <= '9' || (c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9'):
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
				j++
			}
			out = append(out, token{'n', s[i:j], i})
			i = j
		case c == '"':
			var b strings.Builder
			j := i + 1
			closed := false
			for j < len(s) {
				if s[j] == '\\' && j+1 < len(s) {
					switch s[j+1] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					default:
						b.WriteByte(s[j+1])
					}
					j += 2
					continue
				}
				if s[j] == '"' {
					closed = true
					break
				}
				b.WriteByte(s[j])
				j++
			}
			if !closed {
				return nil, fmt.Errorf("unterminated string at offset %d", i)
			}
			out = append(out, token{'s', b.String(), i})
			i = j + 1
		case c == '_' || c >= 0x80 || unicode.IsLetter(rune(c)):
			j := i
			for j < len(s) && (s[j] == '_' || s[j] >= 0x80 || unicode.IsLetter(rune(s[j])) || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			out = append(out, token{'i', s[i:j], i})
			i = j
		default:
			two := ""
			if i+1 < len(s) {
				two = s[i : i+2]
			}
			if two == "!=" || two == "<=" || two == ">=" || two == "==" {
				out = append(out, token{'o', two, i})
				i += 2
				continue
			}
			if strings.IndexByte("=<>+-*/().", c) >= 0 {
				out = append(out, token{'o', string(c), i})
				i++
				continue
			}
			return nil, fmt.Errorf("unexpected character %q at offset %d", c, i)
		}
	}
	return out, nil
}

// ---- parser ----

type parser struct {
	toks []token
	pos  int
}

func (p *parser) peek() *token {
	if p.pos < len(p.toks) {
		return &p.toks[p.pos]
	}
	return nil
}

func (p *parser) isOp(text string) bool {
	t := p.peek()
	return t != nil && t.kind == 'o' && t.text == text
}

func (p *parser) isWord(w string) bool {
	t := p.peek()
	return t != nil && t.kind == 'i' && t.text == w
}

func (p *parser) expr() (node, error) { return p.or() }

func (p *parser) or() (node, error) {
	l, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.isWord("or") {
		p.pos++
		r, err := p.and()
		if err != nil {
			return nil, err
		}
		l = &logic{and: false, l: l, r: r}
	}
	return l, nil
}

func (p *parser) and() (node, error) {
	l, err := p.not()
	if err != nil {
		return nil, err
	}
	for p.isWord("and") {
		p.pos++
		r, err := p.not()
		if err != nil {
			return nil, err
		}
		l = &logic{and: true, l: l, r: r}
	}
	return l, nil
}

func (p *parser) not() (node, error) {
	if p.isWord("not") {
		p.pos++
		x, err := p.not()
		if err != nil {
			return nil, err
		}
		return &notNode{x}, nil
	}
	return p.cmp()
}

func (p *parser) cmp() (node, error) {
	l, err := p.add()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t != nil && t.kind == 'o' {
		switch t.text {
		case "=", "==", "!=", "<", "<=", ">", ">=":
			p.pos++
			r, err := p.add()
			if err != nil {
				return nil, err
			}
			op := t.text
			if op == "==" {
				op = "="
			}
			return &compare{op: op, l: l, r: r}, nil
		}
	}
	return l, nil
}

func (p *parser) add() (node, error) {
	l, err := p.mul()
	if err != nil {
		return nil, err
	}
	for p.isOp("+") || p.isOp("-") {
		op := p.peek().text
		p.pos++
		r, err := p.mul()
		if err != nil {
			return nil, err
		}
		l = &arith{op: op[0], l: l, r: r}
	}
	return l, nil
}

func (p *parser) mul() (node, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.isOp("*") || p.isOp("/") {
		op := p.peek().text
		p.pos++
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		l = &arith{op: op[0], l: l, r: r}
	}
	return l, nil
}

func (p *parser) unary() (node, error) {
	if p.isOp("-") {
		p.pos++
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &arith{op: '-', l: lit{new(big.Rat)}, r: x}, nil
	}
	return p.primary()
}

func (p *parser) primary() (node, error) {
	t := p.peek()
	if t == nil {
		return nil, fmt.Errorf("unexpected end of expression")
	}
	p.pos++
	switch t.kind {
	case 'n':
		r, ok := new(big.Rat).SetString(t.text)
		if !ok {
			return nil, fmt.Errorf("invalid number %q at offset %d", t.text, t.off)
		}
		return lit{r}, nil
	case 's':
		return lit{t.text}, nil
	case 'i':
		switch t.text {
		case "true":
			return lit{true}, nil
		case "false":
			return lit{false}, nil
		case "null":
			return lit{nil}, nil
		case "and", "or":
			return nil, fmt.Errorf("unexpected %q at offset %d", t.text, t.off)
		}
		path := []string{t.text}
		for p.isOp(".") {
			p.pos++
			n := p.peek()
			if n == nil || n.kind != 'i' {
				return nil, fmt.Errorf("expected a name after '.' at offset %d", t.off)
			}
			p.pos++
			path = append(path, n.text)
		}
		return &varRef{path}, nil
	case 'o':
		if t.text == "(" {
			n, err := p.expr()
			if err != nil {
				return nil, err
			}
			if !p.isOp(")") {
				return nil, fmt.Errorf("missing ')' for '(' at offset %d", t.off)
			}
			p.pos++
			return n, nil
		}
	}
	return nil, fmt.Errorf("unexpected %q at offset %d", t.text, t.off)
}

// ---- evaluation ----

type node interface {
	eval(Lookup) (any, error)
}

type lit struct{ v any }

func (l lit) eval(Lookup) (any, error) { return l.v, nil }

type varRef struct{ path []string }

func (v *varRef) eval(vars Lookup) (any, error) {
	raw, ok := vars(v.path[0])
	if !ok {
		return nil, nil // FEEL: unknown variable is null
	}
	val, err := decodeJSON(raw)
	if err != nil {
		return nil, err
	}
	for _, seg := range v.path[1:] {
		m, ok := val.(map[string]any)
		if !ok {
			return nil, nil
		}
		val = m[seg]
	}
	return val, nil
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
func (n *logic) eval(vars Lookup) (any, error) {
	a, err := n.l.eval(vars)
	if err != nil {
		return nil, err
	}
	b, err := n.r.eval(vars)
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

type notNode struct{ x node }

func (n *notNode) eval(vars Lookup) (any, error) {
	v, err := n.x.eval(vars)
	if err != nil {
		return nil, err
	}
	if b, ok := v.(bool); ok {
		return !b, nil
	}
	return nil, nil
}

type compare struct {
	op   string
	l, r node
}

func (c *compare) eval(vars Lookup) (any, error) {
	a, err := c.l.eval(vars)
	if err != nil {
		return nil, err
	}
	b, err := c.r.eval(vars)
	if err != nil {
		return nil, err
	}
	if c.op == "=" || c.op == "!=" {
		eq := equal(a, b)
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

func (n *arith) eval(vars Lookup) (any, error) {
	a, err := n.l.eval(vars)
	if err != nil {
		return nil, err
	}
	b, err := n.r.eval(vars)
	if err != nil {
		return nil, err
	}
	if n.op == '+' {
		if x, ok := a.(string); ok {
			if y, ok := b.(string); ok {
				return x + y, nil
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
		r.Mul(x, y)
	case '/':
		if y.Sign() == 0 {
			return nil, nil
		}
		r.Quo(x, y)
	}
	return r, nil
}
