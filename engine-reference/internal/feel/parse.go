package feel

import (
	"fmt"
	"math/big"
	"strings"
)

// Parser: tokens to an expression tree (recursive descent, depth-bounded).

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
