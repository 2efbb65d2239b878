package partition

import (
	"fmt"
	"sort"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/jobwire/jobwire/engine-reference/internal/vars"
)

// Call activities, as in Zeebe: the called process (latest version of
// zeebe:calledElement processId) runs as its own process instance on the
// same partition, started within the same command. It gets every variable
// the call activity sees (propagateAllParentVariables, default true) or
// only the call activity's input mappings. When it completes, its
// variables complete the call activity: through the output mappings when
// there are any, else merged into the calling scope when
// propagateAllChildVariables (default true). Canceling or terminating the
// call activity cancels the called instance; the called instance cannot be
// canceled on its own.

func (p *Partition) startCall(c *Command, fx *effects, in *Instance, e *ElemInst) {
	el := e.Element
	id := el.CalledProcessID
	if el.CalledProcessExpr != nil {
		s, err := el.CalledProcessExpr.EvalString(p.lookupAt(in, e))
		if err != nil || s == "" {
			e.Stage = stageStart
			p.st.dirtyElem(e.Key)
			p.incidentOn(in, e, "EXTRACT_VALUE_ERROR", fmt.Sprintf("Expected the processId of call activity '%s' to be a non-empty string: %v", el.ID, err))
			return
		}
		id = s
	}
	d := p.st.defs.Version(id, -1)
	if d == nil {
		e.Stage = stageStart
		p.st.dirtyElem(e.Key)
		p.incidentOn(in, e, "CALLED_ELEMENT_ERROR", fmt.Sprintf("Expected process with BPMN process id '%s' to be deployed, but not found.", id))
		return
	}
	e.Stage = 0
	p.st.dirtyElem(e.Key)
	var doc vars.Doc
	if el.PropagateAllParent {
		doc = p.visibleVars(in, e)
	} else {
		doc = e.Vars.Clone()
		if doc == nil {
			doc = vars.Doc{}
		}
	}
	child := &Instance{Key: p.st.nextKey(), DefKey: d.Key, BpmnProcessID: d.BpmnProcessID, Version: d.Version,
		State: InstActive, Vars: doc, elems: map[int64]*ElemInst{}, proc: d.Process,
		ParentKey: in.Key, ParentElemKey: e.Key}
	e.ChildKey = child.Key
	p.st.dirtyElem(e.Key)
	p.st.Instances[child.Key] = child
	p.st.newInst(child.Key)
	p.st.activeInstances++
	if p.st.touched != nil {
		p.st.touched.instance(child.Key)
	}
	child.tokens = 1
	p.run(c, fx, child, []step{{el: d.Process.Start}})
}

// childCompleted completes the call activity of a called instance that
// just completed.
func (p *Partition) childCompleted(c *Command, fx *effects, child *Instance) {
	if child.ParentKey == 0 {
		return
	}
	parent := p.inst(child.ParentKey)
	e := p.elem(child.ParentElemKey)
	if parent == nil || parent.State != InstActive || e == nil || e.ChildKey != child.Key {
		return
	}
	e.ChildKey = 0
	p.st.dirtyElem(e.Key)
	var doc vars.Doc
	if e.Element.PropagateAllChild || len(e.Element.Outputs) > 0 {
		doc = child.Vars.Clone()
	}
	if p.st.touched != nil {
		p.st.touched.instance(parent.Key)
	}
	p.run(c, fx, parent, p.completeActivity(c, fx, parent, e, doc, nil))
}

// cancelInstance terminates a process instance with everything in it
// (called instances too) and answers its waiting with-result callers.
func (p *Partition) cancelInstance(c *Command, fx *effects, in *Instance) {
	p.st.dirtyInst(in.Key)
	if p.st.touched != nil {
		p.st.touched.instance(in.Key)
	}
	kids := map[int64][]*ElemInst{}
	for _, x := range in.elems {
		kids[x.ScopeKey] = append(kids[x.ScopeKey], x)
	}
	top := kids[0]
	sortElems(top)
	for _, e := range top {
		p.terminateIn(c, fx, in, e, kids)
	}
	for _, e := range in.elems { // anything left over (defensive)
		p.removeElem(fx, in, e)
	}
	for k, inc := range p.st.Incidents {
		if inc.InstanceKey == in.Key {
			delete(p.st.Incidents, k)
			p.st.dirtyInc(k)
		}
	}
	in.elems = map[int64]*ElemInst{}
	in.joins = nil
	p.st.dirtyInst(in.Key)
	in.tokens = 0
	p.st.dirtyInst(in.Key)
	in.Incidents = 0
	in.State = InstCanceled
	p.st.dirtyInst(in.Key)
	p.st.activeInstances--
	p.answerWaiters(fx, in, status.Errorf(codes.FailedPrecondition, "process instance '%d' was canceled before it completed", in.Key))
	p.st.finishInstance(in)
	p.instanceEnded(c, fx, in) // buffered message start events (messages_correlate.go)
}

func sortElems(es []*ElemInst) {
	sort.Slice(es, func(i, k int) bool { return es[i].Key < es[k].Key })
}
