package engine

import (
	"encoding/json"
	"strings"
	"testing"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
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

		// Terminating the process instance itself ends it (not together with
		// an activation: every element's flow scope is the instance).
		pi4 := r.create("corpus-modify", `{}`)
		r.job("corpus-mod-a")
		wantStatus(t, "terminate the instance and activate", r.modify(&modReq{ProcessInstanceKey: pi4,
			ActivateInstructions: []*actInstr{activate("b", 0)}, TerminateInstructions: []*termInstr{{ElementInstanceKey: pi4}}}), codes.InvalidArgument)
		if err := r.modify(&modReq{ProcessInstanceKey: pi4, TerminateInstructions: []*termInstr{{ElementInstanceKey: pi4}}}); err != nil {
			t.Fatalf("terminate the process instance: %v", err)
		}
		if st := r.instance(pi4).State; st != apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_CANCELED {
			t.Fatalf("instance after terminating it: %v", st)
		}
		r.noJob("corpus-mod-b")

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
		refuse("unknown ancestor", &modReq{ActivateInstructions: []*actInstr{activate("inner", pi+999_999)}}, codes.InvalidArgument)
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

// Events after an event-based gateway cannot be activated (modification,
// start instructions), the gateway itself can; an instance waiting at the
// gateway (event subscriptions) is not migrated.
func TestEventGatewayActivationRefused(t *testing.T) {
	r := newRig(t, "snapshot")
	r.deploy("event-based-gateway-message-wins/gateway.bpmn")
	create := func(ids ...string) (*pb.CreateProcessInstanceResponse, error) {
		req := &pb.CreateProcessInstanceRequest{BpmnProcessId: "corpus-event-gateway-message", Version: -1, Variables: `{"orderId":"x"}`}
		for _, id := range ids {
			req.StartInstructions = append(req.StartInstructions, &pb.ProcessInstanceCreationStartInstruction{ElementId: id})
		}
		return r.gw.CreateProcessInstance(ctx(t), req)
	}
	_, err := create("paid")
	wantStatus(t, "start at an event of the gateway", err, codes.InvalidArgument)
	c, err := create("wait")
	if err != nil {
		t.Fatalf("start at the gateway: %v", err)
	}
	pi := c.ProcessInstanceKey
	wantStatus(t, "activate an event of the gateway", r.modify(&modReq{ProcessInstanceKey: pi, ActivateInstructions: []*actInstr{activate("paid", 0)}}), codes.InvalidArgument)
	wantStatus(t, "migrate an instance waiting at the gateway", r.migrate(pi, c.ProcessDefinitionKey, maps("wait", "wait")...), codes.FailedPrecondition)
	if err := r.modify(&modReq{ProcessInstanceKey: pi, ActivateInstructions: []*actInstr{activate("ship", 0)}}); err != nil {
		t.Fatal(err)
	}
	r.complete(r.job("corpus-ebm-ship"), `{}`)
	if st := r.instance(pi).State; st != apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_ACTIVE {
		t.Fatalf("the instance still waits at the gateway: %v", st)
	}
}

// An instance created by a call activity: terminating its last element is
// refused (the parent is modified instead), and it is not migrated.
func TestModifyCalledInstance(t *testing.T) {
	r := newRig(t, "snapshot")
	r.deploy("call-activity/parent.bpmn", "call-activity/child.bpmn")
	r.create("corpus-ca-parent", `{}`)
	w := r.job("corpus-ca-work")
	child := w.ProcessInstanceKey
	wantStatus(t, "terminate the last element of a called instance", r.modify(&modReq{ProcessInstanceKey: child,
		TerminateInstructions: []*termInstr{{ElementInstanceKey: w.ElementInstanceKey}}}), codes.InvalidArgument)
	wantStatus(t, "migrate a called instance", r.migrate(child, w.ProcessDefinitionKey, maps("work", "work")...), codes.FailedPrecondition)
	// Activating another element next to it is fine; then terminating the
	// task leaves the instance running.
	if err := r.modify(&modReq{ProcessInstanceKey: child, ActivateInstructions: []*actInstr{activate("work", 0)},
		TerminateInstructions: []*termInstr{{ElementInstanceKey: w.ElementInstanceKey}}}); err != nil {
		t.Fatal(err)
	}
	r.complete(r.job("corpus-ca-work"), `{}`)
	r.complete(r.job("corpus-ca-work"), `{}`) // call2
}

// Modification with event subscriptions, across a SIGKILL: a message
// catch event activated by a modification subscribes (on the message's
// partition) and correlates; a task activated by a modification gets its
// timer boundary event, and the terminated task's job is gone.
func TestModifyEventSubscriptions(t *testing.T) {
	r := newRig(t, "replay")
	r.deploy("message-catch/catch.bpmn", "timer-boundary-interrupting/tbi.bpmn")
	publish := func(key string) {
		t.Helper()
		// With a TTL: after a restart the instance's subscriptions reopen on
		// the message partition asynchronously, and a message without one
		// that arrives first would be dropped.
		if _, err := r.gw.PublishMessage(ctx(t), &pb.PublishMessageRequest{Name: "corpus-mc-paid", CorrelationKey: key, TimeToLive: 30_000}); err != nil {
			t.Fatal(err)
		}
	}
	// ship activated next to the waiting catch event: both paths run.
	pi := r.create("corpus-message-catch", `{"orderId":"o-0"}`)
	if err := r.modify(&modReq{ProcessInstanceKey: pi, ActivateInstructions: []*actInstr{activate("ship", 0)}}); err != nil {
		t.Fatal(err)
	}
	r.complete(r.job("corpus-mc-ship"), `{}`)
	r.restart()
	publish("o-0")
	r.complete(r.job("corpus-mc-ship"), `{}`) // the catch event's path
	r.completed(pi, nil)
	// A second catch event activated: the instance ends after two messages.
	pi = r.create("corpus-message-catch", `{"orderId":"o-1"}`)
	if err := r.modify(&modReq{ProcessInstanceKey: pi, ActivateInstructions: []*actInstr{activate("waitPaid", 0)}}); err != nil {
		t.Fatal(err)
	}
	r.restart()
	publish("o-1")
	r.complete(r.job("corpus-mc-ship"), `{}`)
	publish("o-1")
	r.complete(r.job("corpus-mc-ship"), `{}`)
	r.completed(pi, nil)
	// A task activated by modification has its timer boundary event.
	pi = r.create("corpus-timer-boundary-int", `{}`)
	w := r.job("corpus-tbi-work")
	if err := r.modify(&modReq{ProcessInstanceKey: pi, ActivateInstructions: []*actInstr{activate("work", 0)},
		TerminateInstructions: []*termInstr{{ElementInstanceKey: w.ElementInstanceKey}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: w.Key}); status.Code(err) != codes.NotFound {
		t.Fatalf("the terminated task's job: %v", err)
	}
	// (not activated here: under load the PT1S timer may fire first)
	r.complete(r.job("corpus-tbi-escalate"), `{}`) // the boundary timer (PT1S) fired
	r.completed(pi, nil)
	r.noJob("corpus-tbi-work") // the interrupted task's job is gone
}

// A subprocess created by a modification whose input mapping fails holds
// an IO_MAPPING_ERROR incident; resolving it applies the mapping again
// without starting the subprocess at its start event.
func TestModifyCreatedScopeInputIncident(t *testing.T) {
	r := newRig(t, "snapshot")
	r.env().deploy("sc.bpmn", []byte(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
  <bpmn:process id="sc" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="a"/>
    <bpmn:serviceTask id="a"><bpmn:extensionElements><zeebe:taskDefinition type="sc-a"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="a" targetRef="sub"/>
    <bpmn:subProcess id="sub">
      <bpmn:extensionElements><zeebe:ioMapping><zeebe:input source="= s + s" target="twice"/></zeebe:ioMapping></bpmn:extensionElements>
      <bpmn:startEvent id="ss"/>
      <bpmn:sequenceFlow id="s1" sourceRef="ss" targetRef="inner"/>
      <bpmn:serviceTask id="inner"><bpmn:extensionElements><zeebe:taskDefinition type="sc-inner"/></bpmn:extensionElements></bpmn:serviceTask>
      <bpmn:sequenceFlow id="s2" sourceRef="inner" targetRef="se"/>
      <bpmn:endEvent id="se"/>
    </bpmn:subProcess>
    <bpmn:sequenceFlow id="f3" sourceRef="sub" targetRef="after"/>
    <bpmn:serviceTask id="after"><bpmn:extensionElements><zeebe:taskDefinition type="sc-after"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f4" sourceRef="after" targetRef="e"/>
    <bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`))
	big := strings.Repeat("x", 600_000) // s + s is over FEEL's 1 MiB string limit
	pi := r.create("sc", `{"s":"`+big+`"}`)
	a := r.job("sc-a")
	if err := r.modify(&modReq{ProcessInstanceKey: pi, ActivateInstructions: []*actInstr{activate("inner", 0)},
		TerminateInstructions: []*termInstr{{ElementInstanceKey: a.ElementInstanceKey}}}); err != nil {
		t.Fatal(err)
	}
	incs := r.incidents(pi)
	if len(incs) != 1 || incs[0].Type != "IO_MAPPING_ERROR" {
		t.Fatalf("incidents %v", incs)
	}
	if _, err := r.gw.SetVariables(ctx(t), &pb.SetVariablesRequest{ElementInstanceKey: pi, Variables: `{"s":"ab"}`}); err != nil {
		t.Fatal(err)
	}
	r.restart()
	if _, err := r.gw.ResolveIncident(ctx(t), &pb.ResolveIncidentRequest{IncidentKey: incs[0].Key}); err != nil {
		t.Fatal(err)
	}
	inner := r.job("sc-inner")
	r.complete(inner, `{}`)
	r.noJob("sc-inner") // the subprocess did not start at its start event
	after := r.job("sc-after")
	wantVars(t, "after", after.Variables, map[string]any{"s": "ab", "twice": absent})
	r.complete(after, `{}`)
	r.completed(pi, nil)
}

// Local variables of an activated multi-instance activity are on its body
// before its input collection is read.
func TestModifyMultiInstanceLocals(t *testing.T) {
	r := newRig(t, "snapshot")
	r.deploy("multi-instance-parallel/mi.bpmn")
	pi := r.create("corpus-mi-parallel", `{"items":[]}`)
	after := r.job("corpus-mip-after") // the empty collection completed the body at once
	if err := r.modify(&modReq{ProcessInstanceKey: pi, ActivateInstructions: []*actInstr{activate("item", 0,
		&varInstr{ScopeId: "item", Variables: `{"items":[{"sku":"x","qty":2},{"sku":"y","qty":3}]}`})}}); err != nil {
		t.Fatal(err)
	}
	jobs := r.jobs("corpus-mip-item", 2)
	skus := map[string]bool{}
	for _, j := range jobs {
		var v struct{ Sku string }
		if err := json.Unmarshal([]byte(j.Variables), &v); err != nil {
			t.Fatal(err)
		}
		skus[v.Sku] = true
		r.complete(j, `{}`)
	}
	if !skus["x"] || !skus["y"] {
		t.Fatalf("inner instances over the local collection: %v", skus)
	}
	r.complete(r.job("corpus-mip-after"), `{}`)
	r.complete(after, `{}`)
	r.completed(pi, map[string]any{"items": []any{}})
}
