package dmn

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

const ns13 = "https://www.omg.org/spec/DMN/20191111/MODEL/"

func doc(ns, body string) []byte {
	return []byte(fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="%s" id="d" name="D" namespace="x">
%s
</definitions>`, ns, body))
}

// table builds a one-input decision table; rules are "entry|output" pairs.
func table(id, policy, agg string, outputs []string, rules ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<decision id="%s" name="%s"><decisionTable id="t_%s" hitPolicy="%s" aggregation="%s">`, id, id, id, policy, agg)
	b.WriteString(`<input id="i1" label="X"><inputExpression id="ie1" typeRef="number"><text>x</text></inputExpression></input>`)
	for _, o := range outputs {
		b.WriteString(o)
	}
	for i, r := range rules {
		parts := strings.Split(strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(r), "|")
		fmt.Fprintf(&b, `<rule id="r%d"><inputEntry id="r%da"><text>%s</text></inputEntry>`, i+1, i+1, parts[0])
		for k, o := range parts[1:] {
			fmt.Fprintf(&b, `<outputEntry id="r%do%d"><text>%s</text></outputEntry>`, i+1, k, o)
		}
		b.WriteString(`</rule>`)
	}
	b.WriteString(`</decisionTable></decision>`)
	return strings.ReplaceAll(b.String(), ` aggregation=""`, "")
}

var oneOut = []string{`<output id="o1" name="out" typeRef="number"/>`}

func eval(t *testing.T, defs *Definitions, id, vars string) *Result {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(vars), &m); err != nil {
		t.Fatal(err)
	}
	return defs.Evaluate(id, func(n string) (json.RawMessage, bool) { v, ok := m[n]; return v, ok })
}

func TestHitPolicies(t *testing.T) {
	prio := []string{`<output id="o1" name="level" typeRef="string"><outputValues id="ov"><text>"high","medium","low"</text></outputValues></output>`}
	body := table("unique", "UNIQUE", "", oneOut, "< 5|1", ">= 5|2", "> 8|3") +
		table("first", "FIRST", "", oneOut, "> 1|1", "> 2|2") +
		table("anyeq", "ANY", "", oneOut, "> 1|7", "> 2|7", "> 3|8") +
		table("collect", "COLLECT", "", oneOut, "> 1|1", "> 2|2", "> 3|") +
		table("min", "COLLECT", "MIN", oneOut, "> 1|4", "> 2|2", "> 3|3") +
		table("sum", "COLLECT", "SUM", oneOut, "> 1|4", "> 2|2", "> 3|") +
		table("count", "COLLECT", "COUNT", oneOut, "> 1|4", "> 2|2") +
		table("ruleorder", "RULE ORDER", "", []string{`<output id="o1" name="a"/>`, `<output id="o2" name="b"/>`}, "> 1|1|\"x\"", "> 2|2|\"y\"") +
		table("priority", "PRIORITY", "", prio, `> 1|"low"`, `> 2|"high"`, `> 3|"medium"`) +
		table("outputorder", "OUTPUT ORDER", "", prio, `> 1|"low"`, `> 2|"high"`, `> 3|"medium"`)
	defs, err := Parse("t.dmn", doc(ns13, body))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		id, vars, out string
		rules         int
		failed        bool
	}{
		{"unique", `{"x": 3}`, `1`, 1, false},
		{"unique", `{"x": 9}`, `null`, 2, true},
		{"unique", `{}`, `null`, 0, false}, // null input: no rule matches
		{"first", `{"x": 9}`, `1`, 1, false},
		{"anyeq", `{"x": 3}`, `7`, 2, false},
		{"anyeq", `{"x": 4}`, `null`, 3, true},
		{"collect", `{"x": 9}`, `[1,2,null]`, 3, false},
		{"collect", `{"x": 0}`, `null`, 0, false},
		{"min", `{"x": 9}`, `2`, 3, false},
		{"sum", `{"x": 9}`, `6`, 3, false},
		{"count", `{"x": 9}`, `2`, 2, false},
		{"count", `{"x": 0}`, `null`, 0, false},
		{"ruleorder", `{"x": 9}`, `[{"a":1,"b":"x"},{"a":2,"b":"y"}]`, 2, false},
		{"priority", `{"x": 9}`, `"high"`, 3, false},
		{"outputorder", `{"x": 9}`, `["high","medium","low"]`, 3, false},
	}
	for _, c := range cases {
		r := eval(t, defs, c.id, c.vars)
		if string(r.Output) != c.out || r.Failed() != c.failed || len(r.Evaluated) != 1 || len(r.Evaluated[0].Rules) != c.rules {
			t.Errorf("%s %s: output %s failed %v (%s) rules %d; want %s failed %v rules %d", c.id, c.vars, r.Output, r.Failed(), r.Failure,
				len(r.Evaluated[0].Rules), c.out, c.failed, c.rules)
		}
	}
}

func TestRequiredDecisions(t *testing.T) {
	body := `<decision id="total" name="Total"><variable name="total"/>
  <informationRequirement id="a"><requiredDecision href="#base"/></informationRequirement>
  <informationRequirement id="b"><requiredDecision href="#tax"/></informationRequirement>
  <literalExpression id="l1"><text>base_price + tax</text></literalExpression></decision>
<decision id="tax" name="Tax">
  <informationRequirement id="c"><requiredDecision href="#base"/></informationRequirement>
  <literalExpression id="l2"><text>base_price * 0.2</text></literalExpression></decision>
<decision id="base" name="Base"><variable name="base_price"/><literalExpression id="l3"><text>price * qty</text></literalExpression></decision>`
	defs, err := Parse("t.dmn", doc(ns13, body))
	if err != nil {
		t.Fatal(err)
	}
	r := eval(t, defs, "total", `{"price": 2.5, "qty": 4}`)
	var order []string
	for _, e := range r.Evaluated {
		order = append(order, e.Decision.ID+"="+string(e.Output))
	}
	// base is evaluated once, before the decisions that require it.
	if string(r.Output) != "12" || strings.Join(order, " ") != "base=10 tax=2 total=12" {
		t.Fatalf("output %s, evaluated %v (%s)", r.Output, order, r.Failure)
	}
}

func TestNamespacesAndRefusals(t *testing.T) {
	lit := `<decision id="a" name="A"><literalExpression id="l"><text>1</text></literalExpression></decision>`
	for _, ns := range []string{"http://www.omg.org/spec/DMN/20151101/dmn.xsd", "http://www.omg.org/spec/DMN/20180521/MODEL/",
		ns13, "https://www.omg.org/spec/DMN/20211108/MODEL/", "https://www.omg.org/spec/DMN/20230324/MODEL/"} {
		if _, err := Parse("v.dmn", doc(ns, lit)); err != nil {
			t.Errorf("%s: %v", ns, err)
		}
	}
	bad := map[string]string{
		"not a DMN file":       string(doc("http://example.com/other", lit)),
		"malformed XML":        `<definitions xmlns="` + ns13 + `" id="d"><decision`,
		"has no decision":      string(doc(ns13, ``)),
		"used twice":           string(doc(ns13, lit+lit)),
		"not in the file":      string(doc(ns13, `<decision id="a"><informationRequirement><requiredDecision href="#zz"/></informationRequirement><literalExpression><text>1</text></literalExpression></decision>`)),
		"form a cycle":         string(doc(ns13, `<decision id="a"><informationRequirement><requiredDecision href="#b"/></informationRequirement><literalExpression><text>1</text></literalExpression></decision><decision id="b"><informationRequirement><requiredDecision href="#a"/></informationRequirement><literalExpression><text>1</text></literalExpression></decision>`)),
		"no decision logic":    string(doc(ns13, `<decision id="a"/>`)),
		"not supported":        string(doc(ns13, `<decision id="a"><context/></decision>`)),
		"unknown hit policy":   string(doc(ns13, table("x", "SOMETIMES", "", oneOut, "-|1"))),
		"needs the hit policy": string(doc(ns13, table("x", "FIRST", "SUM", oneOut, "-|1"))),
		"has no output":        string(doc(ns13, table("x", "FIRST", "", nil))),
		"input entry":          string(doc(ns13, table("x", "FIRST", "", oneOut, "[1..|1"))),
		"output entry":         string(doc(ns13, table("x", "FIRST", "", oneOut, "-|1 +"))),
		"literal expression":   string(doc(ns13, `<decision id="a"><literalExpression><text>a == 1</text></literalExpression></decision>`)),
		"2 output entries":     string(doc(ns13, table("x", "FIRST", "", oneOut, "-|1|2"))),
	}
	for want, src := range bad {
		_, err := Parse("bad.dmn", []byte(src))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "'bad.dmn': ") {
			t.Errorf("%s: got %v", want, err)
		}
	}
}

// A failing decision deep in the graph names itself; the called decision's
// output is null and nothing after it is evaluated.
func TestFailureInRequiredDecision(t *testing.T) {
	body := table("inner", "UNIQUE", "", oneOut, "> 1|1", "> 2|2") +
		`<decision id="outer"><informationRequirement id="q"><requiredDecision href="#inner"/></informationRequirement><literalExpression id="l"><text>inner + 1</text></literalExpression></decision>`
	defs, err := Parse("t.dmn", doc(ns13, body))
	if err != nil {
		t.Fatal(err)
	}
	r := eval(t, defs, "outer", `{"x": 5}`)
	if r.FailedDecisionID != "inner" || !strings.Contains(r.Failure, "failed to evaluate decision 'inner'") || string(r.Output) != "null" || len(r.Evaluated) != 1 {
		t.Fatalf("%+v", r)
	}
	if r := eval(t, defs, "outer", `{"x": 1.5}`); string(r.Output) != "2" {
		t.Fatalf("%s %s", r.Output, r.Failure)
	}
}
