package engine

import (
	"testing"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
)

// ModifyProcessInstance against Zeebe 8.8's documented and implemented
// behaviour (process instance modification), with a restart (snapshot,
// SIGKILL) in the middle.

type modReq = pb.ModifyProcessInstanceRequest
type actInstr = pb.ModifyProcessInstanceRequest_ActivateInstruction
type varInstr = pb.ModifyProcessInstanceRequest_VariableInstruction
type termInstr = pb.ModifyProcessInstanceRequest_TerminateInstruction

func (r *rig) modify(req *modReq) error {
	_, err := r.gw.ModifyProcessInstance(ctx(r.t), req)
	return err
}

func activate(el string, anc int64, vars ...*varInstr) *actInstr {
	return &actInstr{ElementId: el, AncestorElementInstanceKey: anc, VariableInstructions: vars}
}

func TestModifyActivateTerminate(t *testing.T) {
	bothRestarts(t, func(t *testing.T, r *rig) {
		r.deploy("modify-activate-terminate/modify.bpmn")
		pi := r.create("corpus-modify", `{"n":1}`)
		a := r.job("corpus-mod-a")
		// Skip b: activate c with a global and a local variable, terminate a.
		err := r.modify(&modReq{ProcessInstanceKey: pi,
			ActivateInstructions:  []*actInstr{activate("c", 0, &varInstr{Variables: `{"g":1}`}, &varInstr{ScopeId: "c", Variables: `{"l":2}`})},
			TerminateInstructions: []*termInstr{{ElementInstanceKey: a.ElementInstanceKey}}})
		if err != nil {
			t.Fatalf("modify: %v", err)
		}
		wantStatus(t, "complete the terminated a's job", func() error {
			_, err := r.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: a.Key})
			return err
		}(), codes.NotFound)
		r.restart()
		c := r.job("corpus-mod-c")
		wantVars(t, "c's variables", c.Variables, map[string]any{"n": 1, "g": 1, "l": 2})
		r.noJob("corpus-mod-b")
		r.complete(c, `{"done":true}`)
		r.completed(pi, map[string]any{"n": 1, "g": 1, "done": true, "l": absent})

		// Terminating the only active element ends the instance as terminated.
		pi2 := r.create("corpus-modify", `{}`)
		a2 := r.job("corpus-mod-a")
		if err := r.modify(&modReq{ProcessInstanceKey: pi2, TerminateInstructions: []*termInstr{{ElementInstanceKey: a2.ElementInstanceKey}}}); err != nil {
			t.Fatalf("terminate the last element: %v", err)
		}
		r.restart()
		if st := r.instance(pi2).State; st != apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_CANCELED {
			t.Fatalf("instance after terminating its last element: %v", st)
		}
		wantStatus(t, "modify an ended instance", r.modify(&modReq{ProcessInstanceKey: pi2, ActivateInstructions: []*actInstr{activate("b", 0)}}), codes.NotFound)

		// Activating the end event with the last element terminated completes it.
		pi3 := r.create("corpus-modify", `{}`)
		a3 := r.job("corpus-mod-a")
		if err := r.modify(&modReq{ProcessInstanceKey: pi3, ActivateInstructions: []*actInstr{activate("end", 0)},
			TerminateInstructions: []*termInstr{{ElementInstanceKey: a3.ElementInstanceKey}}}); err != nil {
			t.Fatal(err)
		}
		r.completed(pi3, nil)
	})
}

func TestModifyScopesAndRefusals(t *testing.T) {
	bothRestarts(t, func(t *testing.T, r *rig) {
		r.deploy("modify-variables-and-ancestor/modify-scopes.bpmn")
		pi := r.create("corpus-modify-scopes", `{}`)
		a := r.job("corpus-mods-a")
		refuse := func(what string, req *modReq, code codes.Code) {
			t.Helper()
			req.ProcessInstanceKey = pi
			wantStatus(t, what, r.modify(req), code)
		}
		refuse("unknown element", &modReq{ActivateInstructions: []*actInstr{activate("nope", 0)}}, codes.InvalidArgument)
		refuse("start event", &modReq{ActivateInstructions: []*actInstr{activate("start", 0)}}, codes.InvalidArgument)
		refuse("boundary event", &modReq{ActivateInstructions: []*actInstr{activate("a-error", 0)}}, codes.InvalidArgument)
		refuse("sequence flow", &modReq{ActivateInstructions: []*actInstr{activate("f2", 0)}}, codes.InvalidArgument)
		refuse("inside a multi-instance subprocess", &modReq{ActivateInstructions: []*actInstr{activate("item", 0)}}, codes.FailedPrecondition)
		refuse("unknown variable scope", &modReq{ActivateInstructions: []*actInstr{activate("inner", 0, &varInstr{ScopeId: "nope", Variables: `{}`})}}, codes.InvalidArgument)
		refuse("variable scope not a flow scope", &modReq{ActivateInstructions: []*actInstr{activate("inner", 0, &varInstr{ScopeId: "a", Variables: `{}`})}}, codes.InvalidArgument)
		refuse("unknown ancestor", &modReq{ActivateInstructions: []*actInstr{activate("inner", pi + 999_999)}}, codes.InvalidArgument)
		refuse("ancestor that is not a flow scope", &modReq{ActivateInstructions: []*actInstr{activate("inner", a.ElementInstanceKey)}}, codes.InvalidArgument)
		refuse("unknown element instance to terminate", &modReq{TerminateInstructions: []*termInstr{{ElementInstanceKey: pi + 999_999}}}, codes.InvalidArgument)
		// All or nothing: a valid activation next to a refused one changes nothing.
		refuse("valid and invalid together", &modReq{ActivateInstructions: []*actInstr{activate("inner", 0), activate("nope", 0)}}, codes.InvalidArgument)
		wantStatus(t, "unknown instance", r.modify(&modReq{ProcessInstanceKey: pi + 999_999}), codes.NotFound)
		r.noJob("corpus-mods-inner")

		// inner is in sub: the missing sub instance is created (without its
		// start event) and gets the sub-scoped variables.
		if err := r.modify(&modReq{ProcessInstanceKey: pi, ActivateInstructions: []*actInstr{activate("inner", 0,
			&varInstr{ScopeId: "sub", Variables: `{"s":1}`}, &varInstr{ScopeId: "inner", Variables: `{"i":1}`})}}); err != nil {
			t.Fatal(err)
		}
		in1 := r.job("corpus-mods-inner")
		wantVars(t, "first inner", in1.Variables, map[string]any{"s": 1, "i": 1})
		r.restart()
		// The one sub instance is reused: its variable s is visible.
		if err := r.modify(&modReq{ProcessInstanceKey: pi, ActivateInstructions: []*actInstr{activate("inner", 0)}}); err != nil {
			t.Fatal(err)
		}
		in2 := r.job("corpus-mods-inner")
		wantVars(t, "second inner (same sub)", in2.Variables, map[string]any{"s": 1, "i": absent})
		// The process instance as ancestor: a new sub instance.
		if err := r.modify(&modReq{ProcessInstanceKey: pi, ActivateInstructions: []*actInstr{activate("inner", pi)}}); err != nil {
			t.Fatal(err)
		}
		in3 := r.job("corpus-mods-inner")
		wantVars(t, "third inner (new sub)", in3.Variables, map[string]any{"s": absent})
		refuse("two sub instances, no ancestor", &modReq{ActivateInstructions: []*actInstr{activate("inner", 0)}}, codes.InvalidArgument)
		r.restart()
		// Terminate a and both inner jobs of the first sub: that sub is left
		// empty and terminated (not completed: c does not start); the second
		// sub runs on.
		if err := r.modify(&modReq{ProcessInstanceKey: pi, TerminateInstructions: []*termInstr{
			{ElementInstanceKey: a.ElementInstanceKey}, {ElementInstanceKey: in1.ElementInstanceKey}, {ElementInstanceKey: in2.ElementInstanceKey}}}); err != nil {
			t.Fatal(err)
		}
		r.noJob("corpus-mods-item")
		if st := r.instance(pi).State; st != apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_ACTIVE {
			t.Fatalf("instance state %v", st)
		}
		r.complete(in3, `{}`)
		r.complete(r.job("corpus-mods-item"), `{}`)
		r.completed(pi, map[string]any{"s": absent})
	})
}
