package partition

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jobwire/jobwire/engine-reference/internal/bpmn"
	"github.com/jobwire/jobwire/engine-reference/internal/feel"
	"github.com/jobwire/jobwire/engine-reference/internal/vars"
)

// MaxMultiInstanceItems bounds the input collection of one multi-instance
// body (every item becomes an element instance, and in parallel a job).
const MaxMultiInstanceItems = 10_000

// Multi-instance activities, as in Zeebe: the body is an element instance
// in the activity's flow scope holding one token there; it reads the input
// collection once, and creates one inner instance per item (all at once in
// parallel, one after the other when sequential). An inner instance is the
// activity itself with the local variables inputElement (the item) and
// loopCounter (1-based); its input and output mappings apply per inner
// instance. The outputElement of each inner instance is stored at its
// loopCounter's position of the outputCollection, which is merged into the
// body's flow scope when the body completes. An empty collection completes
// the body at once (outputCollection []).

func (p *Partition) activateBody(c *Command, fx *effects, in *Instance, el *bpmn.Element, scope int64, steps []step) []step {
	e := &ElemInst{Key: p.st.nextKey(), InstanceKey: in.Key, Element: el, ScopeKey: scope, Body: &MIBody{}}
	p.addElem(in, e)
	*p.tokens(in, scope)++
	if !p.openActivityBoundaries(c, fx, in, e, stageBoundaries) {
		return steps
	}
	return p.startBody(c, fx, in, e, steps)
}

func (p *Partition) startBody(c *Command, fx *effects, in *Instance, e *ElemInst, steps []step) []step {
	mi := e.Element.MI
	items, err := collection(mi.InputCollection, p.lookupAt(in, e))
	if err != nil {
		e.Stage = stageCollection
		p.st.dirtyElem(e.Key)
		p.incidentOn(in, e, "EXTRACT_VALUE_ERROR", fmt.Sprintf("Expected the inputCollection '%s' of multi-instance '%s' to be a list: %v", mi.InputCollection, e.Element.ID, err))
		return steps
	}
	b := e.Body
	p.st.dirtyElem(e.Key)
	p.st.bodyReset(e.Key) // the collection (and outputs) in full in this record
	b.Items, b.Started = items, true
	if mi.OutputCollection != "" {
		b.Outputs = make([]json.RawMessage, len(items))
		for i := range b.Outputs {
			b.Outputs[i] = json.RawMessage("null")
		}
	}
	if len(items) == 0 {
		return p.completeBody(c, fx, in, e, steps)
	}
	if mi.Sequential {
		return p.activateInner(c, fx, in, e, 0, steps)
	}
	if e.Element.Kind == bpmn.SubProcess {
		// Every inner subprocess queues its start event at once: one step
		// each of budget (an inner instance takes at least two steps, so a
		// loop through the body still exhausts the budget).
		c.steps -= len(items)
	}
	for i := range items {
		steps = p.activateInner(c, fx, in, e, i, steps)
		if in.State != InstActive || p.elem(e.Key) == nil {
			break
		}
	}
	return steps
}

// collection evaluates an input collection to its items.
func collection(x *feel.Expr, look feel.Lookup) ([]json.RawMessage, error) {
	v, err := x.Eval(look)
	if err != nil {
		return nil, err
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("it is %s", strings.ToLower(describeValue(v)))
	}
	if len(list) > MaxMultiInstanceItems {
		return nil, fmt.Errorf("it has %d items; the limit is %d", len(list), MaxMultiInstanceItems)
	}
	out := make([]json.RawMessage, len(list))
	for i, item := range list {
		raw, err := toJSON(item)
		if err != nil {
			return nil, err
		}
		out[i] = raw
	}
	return out, nil
}

func (p *Partition) activateInner(c *Command, fx *effects, in *Instance, body *ElemInst, i int, steps []step) []step {
	b := body.Body
	p.st.dirtyElem(body.Key)
	b.Next = i + 1
	b.Active++
	local := vars.Doc{"loopCounter": json.RawMessage(fmt.Sprint(i + 1))}
	if name := body.Element.MI.InputElement; name != "" {
		local[name] = b.Items[i]
	}
	if name := body.Element.MI.OutputVariable; name != "" {
		// As in Zeebe: an outputElement that is a plain variable is
		// created (null) on the inner instance, so what the inner instance
		// writes to it stays there and parallel instances do not overwrite
		// each other.
		if _, set := local[name]; !set {
			local[name] = json.RawMessage("null")
		}
	}
	return p.activateActivity(c, fx, in, body.Element, body.Key, local, i+1, steps)
}

// innerDone continues a body after one of its inner instances completed.
func (p *Partition) innerDone(c *Command, fx *effects, in *Instance, body *ElemInst, steps []step) []step {
	b := body.Body
	p.st.dirtyElem(body.Key)
	b.Active--
	if body.Element.MI.Sequential && b.Next < len(b.Items) {
		return p.activateInner(c, fx, in, body, b.Next, steps)
	}
	if b.Active > 0 || b.Next < len(b.Items) {
		return steps
	}
	return p.completeBody(c, fx, in, body, steps)
}

func (p *Partition) completeBody(c *Command, fx *effects, in *Instance, body *ElemInst, steps []step) []step {
	mi := body.Element.MI
	if mi.OutputCollection != "" {
		p.mergePropagate(in, body.ScopeKey, vars.Doc{mi.OutputCollection: body.Body.outputJSON()})
	}
	p.removeElem(fx, in, body)
	*p.tokens(in, body.ScopeKey)--
	return p.follow(in, body.ScopeKey, steps, body.Element.Outgoing)
}

// outputJSON is the output collection as a variable value (a local
// variable of the body, as in Zeebe).
func (b *MIBody) outputJSON() json.RawMessage {
	n := 2
	for _, o := range b.Outputs {
		n += len(o) + 1
	}
	buf := make([]byte, 0, n)
	buf = append(buf, '[')
	for i, o := range b.Outputs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, o...)
	}
	return append(buf, ']')
}
