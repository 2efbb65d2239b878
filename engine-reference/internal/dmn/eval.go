package dmn

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/jobwire/jobwire/engine-reference/internal/feel"
)

// Result is an evaluation of a decision and its required decisions, in
// the shape of Zeebe's EvaluateDecisionResponse.
type Result struct {
	DecisionID string
	// Output is the JSON of the decision's output ("null" after a failure).
	Output json.RawMessage
	// Evaluated: required decisions first (depth first, in the order they
	// are required), the called decision last; a failed decision is the
	// last one.
	Evaluated []*Evaluated
	// FailedDecisionID and Failure are set when the evaluation failed.
	FailedDecisionID string
	Failure          string
}

// Evaluated is one decision's evaluation.
type Evaluated struct {
	Decision *Decision
	Output   json.RawMessage
	Inputs   []EvaluatedInput
	Rules    []MatchedRule
}

// EvaluatedInput is an input column's value.
type EvaluatedInput struct {
	ID, Name string
	Value    json.RawMessage
}

// MatchedRule is a rule that matched, with its outputs.
type MatchedRule struct {
	ID      string
	Index   int
	Outputs []EvaluatedOutput
}

// EvaluatedOutput is an output entry's value.
type EvaluatedOutput struct {
	ID, Name string
	Value    json.RawMessage
}

// Failed reports whether the evaluation failed.
func (r *Result) Failed() bool { return r.FailedDecisionID != "" }

// Evaluate evaluates decision id with the variables. It never panics on
// user input: a failure is reported in the result.
func (d *Definitions) Evaluate(id string, vars feel.Lookup) *Result {
	res := &Result{DecisionID: id, Output: json.RawMessage("null")}
	dec := d.byID[id]
	if dec == nil {
		res.FailedDecisionID, res.Failure = id, fmt.Sprintf("no decision found for id '%s'", id)
		return res
	}
	results := map[string]any{} // ResultName → value, for requiring decisions
	done := map[string]bool{}
	var run func(x *Decision) (any, error)
	run = func(x *Decision) (any, error) {
		for _, r := range x.Requires {
			if done[r] {
				continue
			}
			req := d.byID[r]
			v, err := run(req)
			if err != nil {
				return nil, err
			}
			done[r] = true
			results[req.ResultName] = v
		}
		ev := &Evaluated{Decision: x, Output: json.RawMessage("null")}
		res.Evaluated = append(res.Evaluated, ev)
		v, err := evalDecision(x, ev, vars, copyMap(results))
		if err != nil {
			res.FailedDecisionID = x.ID
			return nil, err
		}
		out, err := feel.ToJSON(v)
		if err != nil {
			res.FailedDecisionID = x.ID
			return nil, fmt.Errorf("the output of decision '%s' cannot be a variable: %v", x.ID, err)
		}
		ev.Output = out
		return v, nil
	}
	if _, err := run(dec); err != nil {
		if res.FailedDecisionID == id {
			res.Failure = fmt.Sprintf("Expected to evaluate decision '%s', but %v", id, err)
		} else {
			res.Failure = fmt.Sprintf("Expected to evaluate decision '%s', but failed to evaluate decision '%s': %v", id, res.FailedDecisionID, err)
		}
		return res
	}
	res.Output = res.Evaluated[len(res.Evaluated)-1].Output
	return res
}

func copyMap(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func evalDecision(x *Decision, ev *Evaluated, vars feel.Lookup, locals map[string]any) (any, error) {
	if x.Literal != nil {
		v, err := x.Literal.EvalWith(vars, locals)
		if err != nil {
			return nil, fmt.Errorf("failed to evaluate expression '%s': %v", clip(x.Literal.String()), err)
		}
		return v, nil
	}
	t := x.Table
	inputs := make([]any, len(t.Inputs))
	for i, in := range t.Inputs {
		v, err := in.Expr.EvalWith(vars, locals)
		if err != nil {
			return nil, fmt.Errorf("failed to evaluate expression '%s': %v", clip(in.Expr.String()), err)
		}
		inputs[i] = v
		js, err := feel.ToJSON(v)
		if err != nil {
			return nil, fmt.Errorf("input '%s': %v", in.ID, err)
		}
		ev.Inputs = append(ev.Inputs, EvaluatedInput{ID: in.ID, Name: in.Label, Value: js})
	}
	type hit struct {
		rule *Rule
		outs []any
	}
	var hits []hit
	for ri := range t.Rules {
		r := &t.Rules[ri]
		ok := true
		for i, u := range r.In {
			m, err := u.TestWith(inputs[i], vars, locals)
			if err != nil {
				return nil, fmt.Errorf("failed to evaluate the input entry '%s' of rule '%s': %v", clip(u.String()), r.ID, err)
			}
			if !m {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		h := hit{rule: r, outs: make([]any, len(r.Out))}
		mr := MatchedRule{ID: r.ID, Index: r.Index}
		for i, oe := range r.Out {
			var v any
			if oe != nil {
				var err error
				if v, err = oe.EvalWith(vars, locals); err != nil {
					return nil, fmt.Errorf("failed to evaluate the output entry '%s' of rule '%s': %v", clip(oe.String()), r.ID, err)
				}
			}
			h.outs[i] = v
			js, err := feel.ToJSON(v)
			if err != nil {
				return nil, fmt.Errorf("output entry of rule '%s': %v", r.ID, err)
			}
			name := t.Outputs[i].Name
			mr.Outputs = append(mr.Outputs, EvaluatedOutput{ID: t.Outputs[i].ID, Name: name, Value: js})
		}
		hits = append(hits, h)
		ev.Rules = append(ev.Rules, mr)
		if t.HitPolicy == First {
			break
		}
	}
	value := func(h hit) any {
		if len(t.Outputs) == 1 {
			return h.outs[0]
		}
		m := make(map[string]any, len(t.Outputs))
		for i, o := range t.Outputs {
			m[o.Name] = h.outs[i]
		}
		return m
	}
	if len(hits) == 0 {
		return nil, nil // no matching rule: null, whatever the hit policy
	}
	switch t.HitPolicy {
	case Unique:
		if len(hits) > 1 {
			return nil, fmt.Errorf("hit policy 'UNIQUE' only allows a single rule to match, but multiple rules matched: %s", ruleIDs(ev.Rules))
		}
		return value(hits[0]), nil
	case First:
		return value(hits[0]), nil
	case Any:
		first := value(hits[0])
		a, _ := feel.ToJSON(first)
		for _, h := range hits[1:] {
			b, _ := feel.ToJSON(value(h))
			if string(a) != string(b) {
				return nil, fmt.Errorf("hit policy 'ANY' only allows multiple matching rules with equal output, but the rules %s have different outputs", ruleIDs(ev.Rules))
			}
		}
		return first, nil
	case Priority, OutputOrder:
		sorted := append([]hit(nil), hits...)
		sort.SliceStable(sorted, func(i, k int) bool { return prioLess(t, sorted[i].outs, sorted[k].outs) })
		if t.HitPolicy == Priority {
			return value(sorted[0]), nil
		}
		out := make([]any, len(sorted))
		for i, h := range sorted {
			out[i] = value(h)
		}
		return out, nil
	}
	// COLLECT, RULE ORDER
	vals := make([]any, len(hits))
	for i, h := range hits {
		vals[i] = value(h)
	}
	if t.HitPolicy == Collect && t.Aggregation != "" {
		return aggregate(t.Aggregation, vals)
	}
	return vals, nil
}

func ruleIDs(rs []MatchedRule) string {
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = "'" + r.ID + "'"
	}
	return "[" + strings.Join(ids, ", ") + "]"
}

// prioLess orders outputs by the position of their values in the output
// values lists (earlier = higher priority), output by output.
func prioLess(t *Table, a, b []any) bool {
	for i, o := range t.Outputs {
		pa, pb := position(o.Values, a[i]), position(o.Values, b[i])
		if pa != pb {
			return pa < pb
		}
	}
	return false
}

func position(values []any, v any) int {
	js, _ := feel.ToJSON(v)
	for i, x := range values {
		if xs, _ := feel.ToJSON(x); string(xs) == string(js) {
			return i
		}
	}
	return len(values)
}

func aggregate(agg string, vals []any) (any, error) {
	if agg == "COUNT" {
		return big.NewRat(int64(len(vals)), 1), nil
	}
	var nums []*big.Rat
	for _, v := range vals {
		if v == nil {
			continue
		}
		r, ok := v.(*big.Rat)
		if !ok {
			return nil, fmt.Errorf("aggregation '%s' needs numbers, but an output was %s", agg, feel.Describe(v))
		}
		nums = append(nums, r)
	}
	if len(nums) == 0 {
		return nil, nil
	}
	switch agg {
	case "SUM":
		s := new(big.Rat)
		for _, r := range nums {
			s.Add(s, r)
		}
		return s, nil
	case "MIN", "MAX":
		best := nums[0]
		for _, r := range nums[1:] {
			if (agg == "MIN" && r.Cmp(best) < 0) || (agg == "MAX" && r.Cmp(best) > 0) {
				best = r
			}
		}
		return best, nil
	}
	return nil, fmt.Errorf("unknown aggregation '%s'", agg)
}
