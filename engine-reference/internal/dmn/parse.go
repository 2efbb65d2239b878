// Package dmn parses DMN decision requirements graphs (the DMN 1.1–1.5 XML
// that Camunda Modeler writes) and evaluates their decisions as Zeebe does
// (dmn-scala): decision tables with the hit policies UNIQUE, FIRST,
// PRIORITY, ANY, COLLECT (plain or with SUM, MIN, MAX, COUNT), RULE ORDER
// and OUTPUT ORDER; literal expressions; required decisions, whose results
// are visible to the decisions that require them under their variable
// name (or their id without one). Expressions and input entries are FEEL
// (internal/feel), compiled at deploy time, so a deployment with a broken
// expression is refused with the decision and its line.
package dmn

import (
	"encoding/json"
	"fmt"
	"github.com/jobwire/jobwire/engine-reference/internal/xmltree"
	"strings"

	"github.com/jobwire/jobwire/engine-reference/internal/feel"
)

// Namespaces of the DMN versions Zeebe accepts.
var namespaces = map[string]string{
	"http://www.omg.org/spec/DMN/20151101/dmn.xsd":  "1.1",
	"http://www.omg.org/spec/DMN/20180521/MODEL/":   "1.2",
	"https://www.omg.org/spec/DMN/20191111/MODEL/":  "1.3",
	"https://www.omg.org/spec/DMN/20211108/MODEL/":  "1.4",
	"https://www.omg.org/spec/DMN/20230324/MODEL/":  "1.5",
	"http://www.omg.org/spec/DMN/20191111/MODEL/":   "1.3",
	"http://www.omg.org/spec/DMN/20211108/MODEL/":   "1.4",
	"http://www.omg.org/spec/DMN/20230324/MODEL/":   "1.5",
	"https://www.omg.org/spec/DMN/20180521/MODEL/":  "1.2",
	"https://www.omg.org/spec/DMN/20151101/dmn.xsd": "1.1",
}

// Limits on one resource (beyond the FEEL limits of every expression).
const (
	MaxDecisions = 1000
	MaxRules     = 10000 // per table
	MaxColumns   = 500   // inputs or outputs per table
	maxXMLDepth  = 64
)

// Hit policies.
const (
	Unique      = "UNIQUE"
	First       = "FIRST"
	Priority    = "PRIORITY"
	Any         = "ANY"
	Collect     = "COLLECT"
	RuleOrder   = "RULE ORDER"
	OutputOrder = "OUTPUT ORDER"
)

// Decision types as Zeebe reports them.
const (
	TypeTable   = "DECISION_TABLE"
	TypeLiteral = "LITERAL_EXPRESSION"
)

// Definitions is a parsed DMN resource: one decision requirements graph.
type Definitions struct {
	ID, Name  string
	Version   string // DMN version of the namespace
	Decisions []*Decision
	byID      map[string]*Decision
}

// Decision returns the decision with an id, or nil.
func (d *Definitions) Decision(id string) *Decision { return d.byID[id] }

// Decision is one decision of the graph.
type Decision struct {
	ID, Name string
	// ResultName: the name its result has in requiring decisions (the
	// variable's name, else the id).
	ResultName string
	Requires   []string // required decisions, in document order
	Table      *Table
	Literal    *feel.Expr
	Line       int
}

// Type is DECISION_TABLE or LITERAL_EXPRESSION.
func (d *Decision) Type() string {
	if d.Table != nil {
		return TypeTable
	}
	return TypeLiteral
}

// Table is a decision table.
type Table struct {
	HitPolicy   string
	Aggregation string // COLLECT only: SUM, MIN, MAX, COUNT or ""
	Inputs      []Input
	Outputs     []Output
	Rules       []Rule
}

// Input is a table input column.
type Input struct {
	ID, Label string
	Expr      *feel.Expr
}

// Output is a table output column.
type Output struct {
	ID, Name, Label string
	// Values: the output values in priority order (PRIORITY, OUTPUT ORDER).
	Values []any
}

// Rule is a row.
type Rule struct {
	ID    string
	Index int // 1-based
	In    []*feel.UnaryTests
	Out   []*feel.Expr // nil: empty entry (null)
}

// Error is a validation error; Parse's errors name the resource, the
// decision and the line.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Parse reads a DMN resource.
func Parse(resource string, data []byte) (*Definitions, error) {
	root, err := parseTree(data)
	if err != nil {
		return nil, &Error{fmt.Sprintf("'%s': %v", resource, err)}
	}
	ver, ok := namespaces[root.Name.Space]
	if root.Name.Local != "definitions" || !ok {
		return nil, &Error{fmt.Sprintf("'%s': not a DMN file: the root element is {%s}%s (line %d); expected <definitions> in a DMN 1.1–1.5 namespace",
			resource, root.Name.Space, root.Name.Local, root.Line)}
	}
	defs := &Definitions{ID: root.Attr("id"), Name: root.Attr("name"), Version: ver, byID: map[string]*Decision{}}
	if defs.ID == "" {
		return nil, &Error{fmt.Sprintf("'%s': <definitions> has no id (line %d)", resource, root.Line)}
	}
	if defs.Name == "" {
		defs.Name = defs.ID
	}
	ns := root.Name.Space
	for _, c := range root.Children {
		if c.Name.Space != ns || c.Name.Local != "decision" {
			continue // inputData, knowledge sources, diagram interchange, extensions
		}
		d, err := parseDecision(ns, c)
		if err != nil {
			return nil, &Error{fmt.Sprintf("'%s': %v", resource, err)}
		}
		if defs.byID[d.ID] != nil {
			return nil, &Error{fmt.Sprintf("'%s': decision id '%s' is used twice (line %d)", resource, d.ID, c.Line)}
		}
		if len(defs.Decisions) >= MaxDecisions {
			return nil, &Error{fmt.Sprintf("'%s': more than %d decisions", resource, MaxDecisions)}
		}
		defs.byID[d.ID] = d
		defs.Decisions = append(defs.Decisions, d)
	}
	if len(defs.Decisions) == 0 {
		return nil, &Error{fmt.Sprintf("'%s': the DMN file has no decision", resource)}
	}
	for _, d := range defs.Decisions {
		for _, r := range d.Requires {
			if defs.byID[r] == nil {
				return nil, &Error{fmt.Sprintf("'%s': decision '%s' (line %d) requires decision '%s', which is not in the file", resource, d.ID, d.Line, r)}
			}
		}
	}
	if err := checkCycles(defs); err != nil {
		return nil, &Error{fmt.Sprintf("'%s': %v", resource, err)}
	}
	return defs, nil
}

func checkCycles(defs *Definitions) error {
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(d *Decision, path []string) error
	visit = func(d *Decision, path []string) error {
		switch state[d.ID] {
		case 1:
			return fmt.Errorf("the required decisions form a cycle: %s -> %s", strings.Join(path, " -> "), d.ID)
		case 2:
			return nil
		}
		state[d.ID] = 1
		for _, r := range d.Requires {
			if err := visit(defs.byID[r], append(path, d.ID)); err != nil {
				return err
			}
		}
		state[d.ID] = 2
		return nil
	}
	for _, d := range defs.Decisions {
		if err := visit(d, nil); err != nil {
			return err
		}
	}
	return nil
}

func parseDecision(ns string, n *xnode) (*Decision, error) {
	d := &Decision{ID: n.Attr("id"), Name: n.Attr("name"), Line: n.Line}
	if d.ID == "" {
		return nil, fmt.Errorf("a decision has no id (line %d)", n.Line)
	}
	if d.Name == "" {
		d.Name = d.ID
	}
	d.ResultName = d.ID
	where := func(format string, a ...any) error {
		return fmt.Errorf("decision '%s': %s", d.ID, fmt.Sprintf(format, a...))
	}
	for _, c := range n.Children {
		if c.Name.Space != ns {
			continue
		}
		switch c.Name.Local {
		case "variable":
			if v := c.Attr("name"); v != "" {
				d.ResultName = v
			}
		case "informationRequirement":
			for _, r := range c.Children {
				if r.Name.Space == ns && r.Name.Local == "requiredDecision" {
					href := strings.TrimPrefix(r.Attr("href"), "#")
					if href == "" {
						return nil, where("a requiredDecision without href (line %d)", r.Line)
					}
					d.Requires = append(d.Requires, href)
				}
			}
		case "decisionTable":
			if d.Table != nil || d.Literal != nil {
				return nil, where("more than one decision logic (line %d)", c.Line)
			}
			t, err := parseTable(ns, c)
			if err != nil {
				return nil, where("%v", err)
			}
			d.Table = t
		case "literalExpression":
			if d.Table != nil || d.Literal != nil {
				return nil, where("more than one decision logic (line %d)", c.Line)
			}
			text := c.Child(ns, "text")
			if text == nil || strings.TrimSpace(text.Text.String()) == "" {
				return nil, where("the literal expression has no text (line %d)", c.Line)
			}
			e, err := feel.Compile(text.Text.String())
			if err != nil {
				return nil, where("failed to parse the literal expression '%s' (line %d): %v", clip(text.Text.String()), text.Line, err)
			}
			d.Literal = e
		case "context", "invocation", "relation", "list", "functionDefinition":
			return nil, where("the decision logic <%s> is not supported by jobwire-engine (line %d); use a decision table or a literal expression", c.Name.Local, c.Line)
		}
	}
	if d.Table == nil && d.Literal == nil {
		return nil, where("no decision logic: expected a decisionTable or a literalExpression (line %d)", n.Line)
	}
	return d, nil
}

func parseTable(ns string, n *xnode) (*Table, error) {
	t := &Table{HitPolicy: n.Attr("hitPolicy"), Aggregation: n.Attr("aggregation")}
	if t.HitPolicy == "" {
		t.HitPolicy = Unique
	}
	switch t.HitPolicy {
	case Unique, First, Priority, Any, Collect, RuleOrder, OutputOrder:
	default:
		return nil, fmt.Errorf("unknown hit policy '%s' (line %d)", t.HitPolicy, n.Line)
	}
	switch t.Aggregation {
	case "":
	case "SUM", "MIN", "MAX", "COUNT":
		if t.HitPolicy != Collect {
			return nil, fmt.Errorf("aggregation '%s' needs the hit policy COLLECT, not %s (line %d)", t.Aggregation, t.HitPolicy, n.Line)
		}
	default:
		return nil, fmt.Errorf("unknown aggregation '%s' (line %d)", t.Aggregation, n.Line)
	}
	for _, c := range n.Children {
		if c.Name.Space != ns {
			continue
		}
		switch c.Name.Local {
		case "input":
			in := Input{ID: c.Attr("id"), Label: c.Attr("label")}
			ie := c.Child(ns, "inputExpression")
			var text *xnode
			if ie != nil {
				text = ie.Child(ns, "text")
			}
			if text == nil || strings.TrimSpace(text.Text.String()) == "" {
				return nil, fmt.Errorf("input '%s' has no input expression (line %d)", in.ID, c.Line)
			}
			e, err := feel.Compile(text.Text.String())
			if err != nil {
				return nil, fmt.Errorf("failed to parse the input expression '%s' (line %d): %v", clip(text.Text.String()), text.Line, err)
			}
			in.Expr = e
			if in.Label == "" {
				in.Label = strings.TrimSpace(text.Text.String())
			}
			t.Inputs = append(t.Inputs, in)
		case "output":
			out := Output{ID: c.Attr("id"), Name: c.Attr("name"), Label: c.Attr("label")}
			if ov := c.Child(ns, "outputValues"); ov != nil {
				if text := ov.Child(ns, "text"); text != nil && strings.TrimSpace(text.Text.String()) != "" {
					e, err := feel.Compile("[" + text.Text.String() + "]")
					if err != nil {
						return nil, fmt.Errorf("failed to parse the output values of '%s' (line %d): %v", out.ID, text.Line, err)
					}
					v, err := e.Eval(func(string) (json.RawMessage, bool) { return nil, false })
					if err != nil {
						return nil, fmt.Errorf("output values of '%s' (line %d): %v", out.ID, text.Line, err)
					}
					out.Values, _ = v.([]any)
				}
			}
			t.Outputs = append(t.Outputs, out)
		case "rule":
			if len(t.Rules) >= MaxRules {
				return nil, fmt.Errorf("more than %d rules (line %d)", MaxRules, c.Line)
			}
			r := Rule{ID: c.Attr("id"), Index: len(t.Rules) + 1}
			for _, e := range c.Children {
				if e.Name.Space != ns {
					continue
				}
				text := ""
				if tx := e.Child(ns, "text"); tx != nil {
					text = tx.Text.String()
				}
				switch e.Name.Local {
				case "inputEntry":
					u, err := feel.CompileUnaryTests(text)
					if err != nil {
						return nil, fmt.Errorf("rule '%s': failed to parse the input entry '%s' (line %d): %v", r.ID, clip(text), e.Line, err)
					}
					r.In = append(r.In, u)
				case "outputEntry":
					if strings.TrimSpace(text) == "" {
						r.Out = append(r.Out, nil)
						continue
					}
					x, err := feel.Compile(text)
					if err != nil {
						return nil, fmt.Errorf("rule '%s': failed to parse the output entry '%s' (line %d): %v", r.ID, clip(text), e.Line, err)
					}
					r.Out = append(r.Out, x)
				}
			}
			t.Rules = append(t.Rules, r)
		}
	}
	if len(t.Outputs) == 0 {
		return nil, fmt.Errorf("the decision table has no output (line %d)", n.Line)
	}
	if len(t.Inputs) > MaxColumns || len(t.Outputs) > MaxColumns {
		return nil, fmt.Errorf("more than %d inputs or outputs (line %d)", MaxColumns, n.Line)
	}
	if len(t.Outputs) > 1 {
		for _, o := range t.Outputs {
			if o.Name == "" {
				return nil, fmt.Errorf("output '%s' has no name; a table with several outputs needs a name for each (line %d)", o.ID, n.Line)
			}
		}
		if t.Aggregation != "" {
			return nil, fmt.Errorf("aggregation '%s' needs a single output, the table has %d (line %d)", t.Aggregation, len(t.Outputs), n.Line)
		}
	}
	for _, r := range t.Rules {
		if len(r.In) != len(t.Inputs) || len(r.Out) != len(t.Outputs) {
			return nil, fmt.Errorf("rule '%s' has %d input and %d output entries; the table has %d inputs and %d outputs",
				r.ID, len(r.In), len(r.Out), len(t.Inputs), len(t.Outputs))
		}
	}
	return t, nil
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// ---- XML tree with lines ----

type xnode = xmltree.Node

func parseTree(data []byte) (*xnode, error) { return xmltree.Parse(data, maxXMLDepth) }
