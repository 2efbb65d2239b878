package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// bpmnDoc wraps process elements into a deployable definitions document.
func bpmnDoc(pid, body string) []byte {
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="x">
  <bpmn:process id="` + pid + `" isExecutable="true">` + body + `
  </bpmn:process>
</bpmn:definitions>`)
}

func condProcess(pid, cond string) []byte {
	return bpmnDoc(pid, `
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="s1" sourceRef="start" targetRef="xor"/>
    <bpmn:exclusiveGateway id="xor" default="d"/>
    <bpmn:sequenceFlow id="c" sourceRef="xor" targetRef="end"><bpmn:conditionExpression>`+cond+`</bpmn:conditionExpression></bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="d" sourceRef="xor" targetRef="end"/>
    <bpmn:endEvent id="end"/>`)
}

// assertServing checks that the engine still answers ordinary requests on
// every partition: an instance of one-task on each, a job activated and
// completed for each.
func (en *env) assertServing(partitions int) {
	en.t.Helper()
	en.deploy("one-task.bpmn", bpmnFile(en.t, "one-task.bpmn"))
	for i := 0; i < partitions; i++ {
		en.create("one-task", `{}`)
	}
	jobs := en.activate("work", int32(10*partitions), -1)
	if len(jobs) < partitions {
		en.t.Fatalf("engine no longer serving: %d jobs activated, want %d", len(jobs), partitions)
	}
	for _, j := range jobs {
		if _, err := en.gw.CompleteJob(ctx(en.t), &pb.CompleteJobRequest{JobKey: j.Key}); err != nil {
			en.t.Fatal(err)
		}
	}
}

// The FEEL bombs of issue 15. 1.5 million nested parentheses crashed `dev`
// with a Go stack overflow; 200,000 were accepted after a 2 s deploy that
// slowed every other request. Both are now refused at deploy with
// INVALID_ARGUMENT naming the flow and the limit, in well under a second of
// partition time, and the engine keeps serving.
func TestFEELBombsRefusedAtDeploy(t *testing.T) {
	en := start(t, Config{})
	for _, depth := range []int{1_500_000, 200_000} {
		cond := "= " + strings.Repeat("(", depth) + "x &gt; 1" + strings.Repeat(")", depth)
		t0 := time.Now()
		_, err := en.gw.DeployResource(ctx(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "bomb.bpmn", Content: condProcess("bomb", cond)}}})
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "sequence flow 'c'") || !strings.Contains(err.Error(), "the limit is 16384 bytes") {
			t.Fatalf("depth %d: %v", depth, err)
		}
		t.Logf("depth %d refused in %v", depth, time.Since(t0))
	}
	// Short but deeply nested: the depth limit speaks.
	cond := "= " + strings.Repeat("(", 2000) + "x &gt; 1" + strings.Repeat(")", 2000)
	_, err := en.gw.DeployResource(ctx(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "deep.bpmn", Content: condProcess("deep", cond)}}})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "nested more than 64 levels") {
		t.Fatalf("deep: %v", err)
	}
	en.assertServing(3)
}

// Two exclusive gateways in a loop: in the old engine the first instance
// spun its partition forever (480 MB in 3 s) and creates/activations on the
// other partitions timed out too. Now the step budget turns the loop into a
// STEP_LIMIT_EXCEEDED incident and every partition keeps serving.
func TestGatewayLoopBecomesIncident(t *testing.T) {
	en := start(t, Config{})
	en.deploy("loop.bpmn", bpmnDoc("loop", `
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="s1" sourceRef="start" targetRef="a"/>
    <bpmn:exclusiveGateway id="a"/>
    <bpmn:sequenceFlow id="ab" sourceRef="a" targetRef="b"/>
    <bpmn:exclusiveGateway id="b" default="ba"/>
    <bpmn:sequenceFlow id="ba" sourceRef="b" targetRef="a"/>
    <bpmn:sequenceFlow id="bend" sourceRef="b" targetRef="end"><bpmn:conditionExpression>= false</bpmn:conditionExpression></bpmn:sequenceFlow>
    <bpmn:endEvent id="end"/>`))
	// A parallel fork in a loop multiplies tokens; it is bounded the same way.
	en.deploy("fork.bpmn", bpmnDoc("fork", `
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="s1" sourceRef="start" targetRef="m"/>
    <bpmn:exclusiveGateway id="m"/>
    <bpmn:sequenceFlow id="mf" sourceRef="m" targetRef="f"/>
    <bpmn:parallelGateway id="f"/>
    <bpmn:sequenceFlow id="f1" sourceRef="f" targetRef="x"/>
    <bpmn:sequenceFlow id="f2" sourceRef="f" targetRef="x"/>
    <bpmn:exclusiveGateway id="x" default="back"/>
    <bpmn:sequenceFlow id="back" sourceRef="x" targetRef="m"/>
    <bpmn:sequenceFlow id="out" sourceRef="x" targetRef="end"><bpmn:conditionExpression>= false</bpmn:conditionExpression></bpmn:sequenceFlow>
    <bpmn:endEvent id="end"/>`))
	var keys []int64
	t0 := time.Now()
	for i := 0; i < 6; i++ {
		keys = append(keys, en.create("loop", `{}`), en.create("fork", `{}`))
	}
	t.Logf("12 looping instances created in %v", time.Since(t0))
	en.assertServing(3)
	inc, err := en.admin.ListIncidents(ctx(t), &apb.ListIncidentsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	perInstance := map[int64]int{}
	for _, i := range inc.Incidents {
		if i.Type != "STEP_LIMIT_EXCEEDED" || !strings.Contains(i.Message, "steps") {
			t.Fatalf("incident %v", i)
		}
		perInstance[i.ProcessInstanceKey]++
	}
	for _, k := range keys {
		if perInstance[k] == 0 {
			t.Fatalf("instance %d has no STEP_LIMIT_EXCEEDED incident (%v)", k, inc.Incidents)
		}
	}
	// Resolving lets the token go on with a fresh budget: it loops into a
	// new incident, and the engine is still fine.
	if _, err := en.gw.ResolveIncident(ctx(t), &pb.ResolveIncidentRequest{IncidentKey: inc.Incidents[0].Key}); err != nil {
		t.Fatal(err)
	}
	en.assertServing(3)
}

// A process with too many elements is refused at deploy.
func TestBPMNElementLimit(t *testing.T) {
	en := start(t, Config{Partitions: 1})
	var b strings.Builder
	b.WriteString(`<bpmn:startEvent id="start"/><bpmn:sequenceFlow id="s0" sourceRef="start" targetRef="g0"/>`)
	for i := 0; i < 5100; i++ {
		fmt.Fprintf(&b, `<bpmn:exclusiveGateway id="g%d"/><bpmn:sequenceFlow id="s%d" sourceRef="g%d" targetRef="g%d"/>`, i, i+1, i, i+1)
	}
	_, err := en.gw.DeployResource(ctx(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "many.bpmn", Content: bpmnDoc("many", b.String())}}})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "more than 10000 elements") {
		t.Fatalf("%v", err)
	}
}

// Variables nested deeper than Zeebe's gateway accepts (Jackson's default
// of 1000 levels) are refused with INVALID_ARGUMENT.
func TestVariablesDepthLimit(t *testing.T) {
	en := start(t, Config{Partitions: 1})
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	deep := `{"a":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}`
	_, err := en.gw.CreateProcessInstance(ctx(t), &pb.CreateProcessInstanceRequest{BpmnProcessId: "one-task", Version: -1, Variables: deep})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "more than 1000 levels") {
		t.Fatalf("%v", err)
	}
	en.assertServing(1)
}
