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
