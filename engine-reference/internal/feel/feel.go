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
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"unicode"
	"unicode/utf8"
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

// ---- lexer ----

type token struct {
	kind byte // 'n' number, 's' string, 'i' identifier, 'o' operator
	text string
	off  int
}

// notFEEL names operators from other languages that FEEL does not have,
// with what to write instead.
var notFEEL = map[string]string{
	"==": "'==' is not FEEL; use '=' for equality",
	"&&": "'&&' is not FEEL; use 'and'",
	"||": "'||' is not FEEL; use 'or'",
	"!":  "'!' is not FEEL; use not(...) or '!=' ",
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
			dot := false
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' ||
				s[j] == '.' && !dot && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9') {
				dot = dot || s[j] == '.'
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
			if msg, bad := notFEEL[two]; bad {
				return nil, fmt.Errorf("%s (offset %d)", msg, i)
			}
			if two == "!=" || two == "<=" || two == ">=" || two == ".." {
				out = append(out, token{'o', two, i})
				i += 2
				continue
			}
			if msg, bad := notFEEL[string(c)]; bad {
				return nil, fmt.Errorf("%s (offset %d)", msg, i)
			}
			if strings.IndexByte("=<>+-*/().,[]{}:?", c) >= 0 {
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
	toks  []token
	pos   int
	depth int
	q     int // '?' seen (unary tests)
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

// enter counts one level of nesting; leave undoes it.
func (p *parser) enter() error {
	p.depth++
	if p.depth > MaxDepth {
		off := 0
		if t := p.peek(); t != nil {
			off = t.off
		}
		return fmt.Errorf("expression is nested more than %d levels deep (offset %d)", MaxDepth, off)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

func (p *parser) expr() (node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	return p.or()
}

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
	l, err := p.cmp()
	if err != nil {
		return nil, err
	}
	for p.isWord("and") {
		p.pos++
		r, err := p.cmp()
		if err != nil {
			return nil, err
		}
		l = &logic{and: true, l: l, r: r}
	}
	return l, nil
}

func (p *parser) cmp() (node, error) {
	l, err := p.add()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t != nil && t.kind == 'o' {
		switch t.text {
		case "=", "!=", "<", "<=", ">", ">=":
			p.pos++
			r, err := p.add()
			if err != nil {
				return nil, err
			}
			return &compare{op: t.text, l: l, r: r}, nil
		}
	}
	return p.cmpWords(l)
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
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		p.pos++
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &arith{op: '-', l: lit{new(big.Rat)}, r: x}, nil
	}
	return p.primary()
}

// callName reports whether the tokens at pos (the first already consumed,
// at pos-1) spell a known function name followed by "(", and how many
// tokens the name has. FEEL function names may contain spaces
// ("string length").
func (p *parser) callName() (string, int) {
	first := p.pos - 1
	for words := 3; words >= 1; words-- {
		if first+words >= len(p.toks) {
			continue
		}
		parts := make([]string, 0, words)
		ok := true
		for k := 0; k < words; k++ {
			t := p.toks[first+k]
			if t.kind != 'i' {
				ok = false
				break
			}
			parts = append(parts, t.text)
		}
		next := p.toks[first+words]
		if !ok || next.kind != 'o' || next.text != "(" {
			continue
		}
		name := strings.Join(parts, " ")
		if _, known := builtins[name]; known {
			return name, words
		}
		if words == 1 {
			return name, 1 // unknown single-word function: reported by the caller
		}
	}
	return "", 0
}

func (p *parser) primary() (node, error) {
	n, err := p.primaryBase()
	if err != nil {
		return nil, err
	}
	return p.postfix(n)
}

func (p *parser) primaryBase() (node, error) {
	if n, ok, err := p.extendedPrimary(); ok || err != nil {
		return n, err
	}
	t := p.peek()
	if t == nil {
		return nil, fmt.Errorf("unexpected end of expression")
	}
	p.pos++
	switch t.kind {
	case 'n':
		if len(t.text) > 4096 {
			return nil, fmt.Errorf("number at offset %d has more than 4096 digits", t.off)
		}
		r, ok := new(big.Rat).SetString(t.text)
		if !ok {
			return nil, fmt.Errorf("invalid number %q at offset %d", t.text, t.off)
		}
		return lit{r}, nil
	case 's':
		return lit{t.text}, nil
	case 'i':
		if name, words := p.callName(); words > 0 {
			return p.call(name, words, t)
		}
		switch t.text {
		case "true":
			return lit{true}, nil
		case "false":
			return lit{false}, nil
		case "null":
			return lit{nil}, nil
		case "not":
			return nil, fmt.Errorf("prefix 'not' at offset %d is not FEEL; use the function not(...)", t.off)
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
			if p.isOp("..") {
				return p.rangeRest(n, false, t)
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

// call parses a function invocation; the name's first token is consumed.
func (p *parser) call(name string, words int, first *token) (node, error) {
	b, known := builtins[name]
	if !known {
		return nil, fmt.Errorf("unknown function '%s' at offset %d", name, first.off)
	}
	p.pos += words // rest of the name and "("
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	var args []node
	if !p.isOp(")") {
		for {
			a, err := p.expr()
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			if p.isOp(",") {
				p.pos++
				continue
			}
			break
		}
	}
	if !p.isOp(")") {
		return nil, fmt.Errorf("missing ')' for the call of '%s' at offset %d", name, first.off)
	}
	p.pos++
	if len(args) < b.min || (b.max >= 0 && len(args) > b.max) {
		want := fmt.Sprintf("%d", b.min)
		switch {
		case b.max < 0:
			want = fmt.Sprintf("at least %d", b.min)
		case b.max != b.min:
			want = fmt.Sprintf("%d to %d", b.min, b.max)
		}
		return nil, fmt.Errorf("function '%s' at offset %d takes %s arguments, but got %d", name, first.off, want, len(args))
	}
	return &callNode{name: name, fn: b.fn, args: args}, nil
}

// ---- evaluation ----

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

// ---- built-in functions ----

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
