package engine

import (
	"strings"
	"testing"

	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// DeleteResource (Zeebe 8.8's ResourceDeletion processor, the resource
// deletion docs): process definitions and decision requirements graphs,
// across a clean restart (snapshot) and a SIGKILL (log replay).

// taskProcess is a one-task process; typ varies its content (a new version).
func taskProcess(id, typ string) []byte {
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
  <bpmn:process id="` + id + `" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="task"/>
    <bpmn:serviceTask id="task"><bpmn:extensionElements><zeebe:taskDefinition type="` + typ + `"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="task" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>`)
}

func wantStatus(t *testing.T, what string, err error, want codes.Code) {
	t.Helper()
	if status.Code(err) != want {
		t.Fatalf("%s: got %v, want %v", what, err, want)
	}
}

func (r *rig) del(key int64) error {
	_, err := r.gw.DeleteResource(ctx(r.t), &pb.DeleteResourceRequest{ResourceKey: key})
	return err
}

func (r *rig) createByID(id string) (*pb.CreateProcessInstanceResponse, error) {
	return r.gw.CreateProcessInstance(ctx(r.t), &pb.CreateProcessInstanceRequest{BpmnProcessId: id, Version: -1})
}

func TestDeleteProcessDefinition(t *testing.T) {
	bothRestarts(t, func(t *testing.T, r *rig) {
		en := r.env()
		v1 := en.deploy("del.bpmn", taskProcess("del", "del-a"))
		v2 := en.deploy("del.bpmn", taskProcess("del", "del-b"))
		if v1.Version != 1 || v2.Version != 2 {
			t.Fatalf("versions %d %d", v1.Version, v2.Version)
		}
		// Instances on every partition (creation goes round-robin).
		var keys []int64
		for i := 0; i < 3; i++ {
			keys = append(keys, r.create("del", "{}"))
		}
		wantStatus(t, "delete with running instances", r.del(v2.ProcessDefinitionKey), codes.FailedPrecondition)
		// Nothing changed: new instances still use v2.
		c, err := r.createByID("del")
		if err != nil || c.Version != 2 {
			t.Fatalf("create after refused delete: %v %v", c, err)
		}
		keys = append(keys, c.ProcessInstanceKey)
		for _, j := range r.jobs("del-b", len(keys)) {
			r.complete(j, "{}")
		}
		for _, k := range keys {
			r.completed(k, nil)
		}
		if err := r.del(v2.ProcessDefinitionKey); err != nil {
			t.Fatalf("delete v2: %v", err)
		}
		wantStatus(t, "delete v2 again", r.del(v2.ProcessDefinitionKey), codes.NotFound)
		wantStatus(t, "delete an unknown key", r.del(v2.ProcessDefinitionKey+1000), codes.NotFound)
		check := func(when string) {
			for i := 0; i < 3; i++ { // every partition
				c, err := r.createByID("del")
				if err != nil || c.Version != 1 || c.ProcessDefinitionKey != v1.ProcessDefinitionKey {
					t.Fatalf("%s: create by id: %v %v (want version 1)", when, c, err)
				}
				_, err = r.gw.CreateProcessInstance(ctx(t), &pb.CreateProcessInstanceRequest{ProcessDefinitionKey: v2.ProcessDefinitionKey})
				wantStatus(t, when+": create by the deleted key", err, codes.NotFound)
				_, err = r.gw.CreateProcessInstance(ctx(t), &pb.CreateProcessInstanceRequest{BpmnProcessId: "del", Version: 2})
				wantStatus(t, when+": create the deleted version", err, codes.NotFound)
				r.complete(r.job("del-a"), "{}")
			}
		}
		check("before restart")
		r.restart()
		check("after restart")
		wantStatus(t, "delete v2 after restart", r.del(v2.ProcessDefinitionKey), codes.NotFound)
		// Versions are never reused: the same content again is version 3.
		v3 := r.env().deploy("del.bpmn", taskProcess("del", "del-b"))
		if v3.Version != 3 || v3.ProcessDefinitionKey == v2.ProcessDefinitionKey {
			t.Fatalf("redeploy after delete: %v", v3)
		}
		for _, k := range []int64{v1.ProcessDefinitionKey, v3.ProcessDefinitionKey} {
			if err := r.del(k); err != nil {
				t.Fatalf("delete %d: %v", k, err)
			}
		}
		r.restart()
		for i := 0; i < 3; i++ {
			_, err := r.createByID("del")
			wantStatus(t, "create with every version deleted", err, codes.NotFound)
		}
		if v4 := r.env().deploy("del.bpmn", taskProcess("del", "del-a")); v4.Version != 4 {
			t.Fatalf("version after deleting all: %d, want 4", v4.Version)
		}
	})
}

func TestDeleteDecisionRequirements(t *testing.T) {
	bothRestarts(t, func(t *testing.T, r *rig) {
		v1 := bpmnFile(t, "risk.dmn")
		d1 := deployDMN(t, r.gw, "risk.dmn", v1)
		d2 := deployDMN(t, r.gw, "risk.dmn", riskV2(v1))
		eval := func(byKey int64) (*pb.EvaluateDecisionResponse, error) {
			req := &pb.EvaluateDecisionRequest{DecisionId: "corpus_risk", Variables: `{"applicant":{"score":500},"amount":100}`}
			if byKey != 0 {
				req = &pb.EvaluateDecisionRequest{DecisionKey: byKey, Variables: req.Variables}
			}
			return r.gw.EvaluateDecision(ctx(r.t), req)
		}
		if err := r.del(d2.drgKey); err != nil {
			t.Fatalf("delete drg v2: %v", err)
		}
		check := func(when string) {
			for i := 0; i < 3; i++ { // evaluations go round-robin over the partitions
				res, err := eval(0)
				if err != nil || res.DecisionVersion != 1 || res.DecisionKey != d1.decisionKey {
					t.Fatalf("%s: evaluate by id: %v %v (want version 1)", when, res, err)
				}
				_, err = eval(d2.decisionKey)
				wantStatus(t, when+": evaluate a deleted decision by key", err, codes.NotFound)
			}
			wantStatus(t, when+": delete the drg again", r.del(d2.drgKey), codes.NotFound)
		}
		check("before restart")
		r.restart()
		check("after restart")
		d3 := deployDMN(t, r.gw, "risk.dmn", riskV2(v1))
		if d3.version != 3 || d3.drgVersion != 3 {
			t.Fatalf("redeploy after delete: %+v (versions are not reused)", d3)
		}
		for _, k := range []int64{d1.drgKey, d3.drgKey} {
			if err := r.del(k); err != nil {
				t.Fatalf("delete %d: %v", k, err)
			}
		}
		r.restart()
		for i := 0; i < 3; i++ {
			_, err := eval(0)
			if status.Code(err) != codes.NotFound || !strings.Contains(err.Error(), "corpus_risk") {
				t.Fatalf("evaluate with every version deleted: %v", err)
			}
		}
	})
}

func TestDeleteForm(t *testing.T) {
	bothRestarts(t, func(t *testing.T, r *rig) {
		en := r.env()
		v1, err := deployForm(t, en, "invoice.form", formV1)
		if err != nil {
			t.Fatal(err)
		}
		v2, err := deployForm(t, en, "invoice.form", formV2)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.del(v2.FormKey); err != nil {
			t.Fatalf("delete form v2: %v", err)
		}
		wantStatus(t, "delete form v2 again", r.del(v2.FormKey), codes.NotFound)
		r.restart()
		wantStatus(t, "delete form v2 after restart", r.del(v2.FormKey), codes.NotFound)
		// v1 is the latest again: deploying it unchanged keeps it; v2's
		// content again is version 3 (versions are not reused).
		if again, err := deployForm(t, r.env(), "invoice.form", formV1); err != nil || again.FormKey != v1.FormKey || again.Version != 1 {
			t.Fatalf("redeploy v1: %v %v", again, err)
		}
		v3, err := deployForm(t, r.env(), "invoice.form", formV2)
		if err != nil || v3.Version != 3 || v3.FormKey == v2.FormKey {
			t.Fatalf("redeploy v2 content: %v %v, want version 3", v3, err)
		}
		if err := r.del(v1.FormKey); err != nil {
			t.Fatalf("delete form v1: %v", err)
		}
		r.restart()
		wantStatus(t, "delete form v1 after restart", r.del(v1.FormKey), codes.NotFound)
		if err := r.del(v3.FormKey); err != nil {
			t.Fatalf("delete form v3 after restart: %v", err)
		}
	})
}

// Deleting the latest version moves the timer start event to the version
// before it (Zeebe: unsubscribe the deleted version's start events,
// resubscribe the previous version's); deleting an older version leaves
// the latest one's timer alone.
func TestDeleteMovesTimerStart(t *testing.T) {
	en := start(t, Config{})
	timerProcess := func(typ string) []byte {
		return []byte(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
  <bpmn:process id="ticker" isExecutable="true">
    <bpmn:startEvent id="tick"><bpmn:timerEventDefinition><bpmn:timeCycle>R/PT1H</bpmn:timeCycle></bpmn:timerEventDefinition></bpmn:startEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="tick" targetRef="task"/>
    <bpmn:serviceTask id="task"><bpmn:extensionElements><zeebe:taskDefinition type="` + typ + `"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="task" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>`)
	}
	v1 := en.deploy("ticker.bpmn", timerProcess("tick-v1"))
	v2 := en.deploy("ticker.bpmn", timerProcess("tick-v2"))
	en.advance(61 * 60 * 1000)
	if n := len(en.activate("tick-v2", 10, -1)); n != 1 {
		t.Fatalf("v2's timer: %d jobs", n)
	}
	if _, err := en.gw.DeleteResource(ctx(t), &pb.DeleteResourceRequest{ResourceKey: v2.ProcessDefinitionKey}); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("delete v2 with its timer-started instance running: %v", err)
	}
	for _, in := range en.instances("ticker").Instances {
		if in.ProcessDefinitionKey == v2.ProcessDefinitionKey {
			en.gw.CancelProcessInstance(ctx(t), &pb.CancelProcessInstanceRequest{ProcessInstanceKey: in.Key})
		}
	}
	if _, err := en.gw.DeleteResource(ctx(t), &pb.DeleteResourceRequest{ResourceKey: v2.ProcessDefinitionKey}); err != nil {
		t.Fatalf("delete v2: %v", err)
	}
	en.advance(61 * 60 * 1000)
	if n := len(en.activate("tick-v2", 10, -1)); n != 0 {
		t.Fatalf("the deleted v2's timer still fires: %d jobs", n)
	}
	jobs := en.activate("tick-v1", 10, -1)
	if len(jobs) != 1 || jobs[0].ProcessDefinitionKey != v1.ProcessDefinitionKey {
		t.Fatalf("v1's timer after deleting v2: %v", jobs)
	}
}
