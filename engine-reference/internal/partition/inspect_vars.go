package partition

import "github.com/jobwire/jobwire/engine-reference/internal/vars"

// ScopeVars is the admin view's read-only twin of visibleVars: the variables
// element instance e of instance in sees (the process instance's, then every
// flow scope's from the outside in, then its own; a started multi-instance
// body's output collection included). It marks nothing dirty, so queries
// (Partition.Query) may call it.
func (s *State) ScopeVars(in *Instance, e *ElemInst) vars.Doc {
	return visibleThrough(in, e, func(k int64) *ElemInst { return s.Elems[k] })
}

// visibleThrough is every variable element instance e sees, inner scopes
// shadowing outer ones, walking the flow scopes with parent.
func visibleThrough(in *Instance, e *ElemInst, parent func(int64) *ElemInst) vars.Doc {
	var chain []*ElemInst
	for x := e; x != nil; x = parent(x.ScopeKey) {
		chain = append(chain, x)
		if x.ScopeKey == 0 {
			break
		}
	}
	doc := vars.Doc{}
	if in != nil {
		vars.Merge(doc, in.Vars)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		x := chain[i]
		if x.Body != nil && x.Body.Started && x.Element.MI.OutputCollection != "" {
			doc[x.Element.MI.OutputCollection] = x.Body.outputJSON()
		}
		vars.Merge(doc, x.Vars)
	}
	return doc
}
