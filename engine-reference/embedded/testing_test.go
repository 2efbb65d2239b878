package embedded_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/jobwire/jobwire/engine-reference/embedded"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
)

const timerBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
  <bpmn:process id="embedded-timer" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="w"/>
    <bpmn:intermediateCatchEvent id="w"><bpmn:timerEventDefinition><bpmn:timeDuration>P2D</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="w" targetRef="t1"/>
    <bpmn:serviceTask id="t1"><bpmn:extensionElements><zeebe:taskDefinition type="embedded-after"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f3" sourceRef="t1" targetRef="e"/>
    <bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`

// The test-kit methods: engine time, inspection, reset and faults.
func TestClockInspectionResetAndFaults(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	eng, err := embedded.Start(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	gw := dial(t, eng.Address())
	if _, err := gw.DeployResource(ctx, &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "p.bpmn", Content: []byte(timerBPMN)}}}); err != nil {
		t.Fatal(err)
	}
	created, err := gw.CreateProcessInstance(ctx, &pb.CreateProcessInstanceRequest{BpmnProcessId: "embedded-timer", Version: -1,
		Variables: `{"n":1}`})
	if err != nil {
		t.Fatal(err)
	}
	ins, err := eng.Instances(ctx, "embedded-timer")
	if err != nil || len(ins) != 1 || ins[0].Key != created.ProcessInstanceKey || ins[0].State != "active" || string(ins[0].Variables) != `{"n":1}` {
		t.Fatalf("instances %+v, %v", ins, err)
	}
	if jobs, err := eng.Jobs(ctx, "embedded-after"); err != nil || len(jobs) != 0 {
		t.Fatalf("jobs before the timer: %+v, %v", jobs, err)
	}
	before, err := eng.Clock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now, err := eng.AdvanceClock(ctx, 48*time.Hour)
	if err != nil || now.Sub(before) < 48*time.Hour {
		t.Fatalf("advance: %s → %s, %v", before, now, err)
	}
	jobs, err := eng.Jobs(ctx, "embedded-after")
	if err != nil || len(jobs) != 1 || jobs[0].State != "activatable" || jobs[0].ProcessInstanceKey != created.ProcessInstanceKey {
		t.Fatalf("jobs after the timer: %+v, %v", jobs, err)
	}
	if _, err := eng.SetClock(ctx, now.Add(-time.Hour)); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("SetClock backwards: %v", err)
	}

	// An ActivateJobs rejected by the fault, then served once it is used up.
	if err := eng.RejectNext(ctx, "ActivateJobs", codes.ResourceExhausted, 1); err != nil {
		t.Fatal(err)
	}
	activate := func() (*pb.ActivateJobsResponse, error) {
		s, err := gw.ActivateJobs(ctx, &pb.ActivateJobsRequest{Type: "embedded-after", Worker: "t", Timeout: 60000, MaxJobsToActivate: 1, RequestTimeout: -1})
		if err != nil {
			return nil, err
		}
		return s.Recv()
	}
	if _, err := activate(); status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("with the fault: %v", err)
	}
	if err := eng.ClearFaults(ctx); err != nil {
		t.Fatal(err)
	}
	resp, err := activate()
	if err != nil || len(resp.Jobs) != 1 {
		t.Fatalf("after the fault: %v %v", resp, err)
	}
	if _, err := gw.FailJob(ctx, &pb.FailJobRequest{JobKey: resp.Jobs[0].Key, Retries: 0, ErrorMessage: "boom"}); err != nil {
		t.Fatal(err)
	}
	incs, err := eng.Incidents(ctx, created.ProcessInstanceKey)
	if err != nil || len(incs) != 1 || incs[0].JobKey != resp.Jobs[0].Key || incs[0].Message != "boom" {
		t.Fatalf("incidents %+v, %v", incs, err)
	}
	if err := eng.DropStreams(ctx); err != nil {
		t.Fatal(err)
	}

	if err := eng.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if ins, err := eng.Instances(ctx, ""); err != nil || len(ins) != 0 {
		t.Fatalf("instances after Reset: %+v, %v", ins, err)
	}
	if c, err := eng.Clock(ctx); err != nil || c.Sub(time.Now()).Abs() > time.Minute {
		t.Fatalf("clock after Reset: %s, %v", c, err)
	}
}

func TestTestingMethodsNeedAdmin(t *testing.T) {
	eng, err := embedded.Start(embedded.Options{NoAdmin: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if err := eng.Reset(context.Background()); err == nil || errors.Is(err, context.Canceled) {
		t.Fatalf("Reset without the admin API: %v", err)
	}
}
