package engine

import (
	"strings"
	"testing"
	"time"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func (en *env) jobInfo(key int64) *apb.JobInfo {
	en.t.Helper()
	for _, j := range en.jobs("").Jobs {
		if j.Key == key {
			return j
		}
	}
	en.t.Fatalf("job %d not found", key)
	return nil
}

// Zeebe: JobFailProcessor accepts FAIL for jobs in state ACTIVATABLE or
// ACTIVATED, so a worker whose job timed out (ACTIVATABLE again) can still
// fail it; the failure counts (retries, error message) as for an activated
// job. The old engine answered FAILED_PRECONDITION.
func TestZeebeFailJobAfterTimeout(t *testing.T) {
	en := start(t, Config{Partitions: 1})
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	en.create("one-task", `{}`)
	s, err := en.gw.ActivateJobs(ctx(t), &pb.ActivateJobsRequest{Type: "work", Worker: "w", Timeout: 100, MaxJobsToActivate: 1, RequestTimeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Recv()
	if err != nil || len(r.Jobs) != 1 {
		t.Fatalf("activate: %v %v", r, err)
	}
	key := r.Jobs[0].Key
	eventually(t, 10*time.Second, "job timed out", func() bool { return en.jobInfo(key).State == apb.JobState_JOB_STATE_ACTIVATABLE })
	if _, err := en.gw.FailJob(ctx(t), &pb.FailJobRequest{JobKey: key, Retries: 0, ErrorMessage: "late failure"}); err != nil {
		t.Fatalf("FailJob on a timed-out job: %v (Zeebe accepts it)", err)
	}
	j := en.jobInfo(key)
	if j.State != apb.JobState_JOB_STATE_INCIDENT || j.Retries != 0 || j.ErrorMessage != "late failure" {
		t.Fatalf("job after late fail: %v", j)
	}
	// Failing a failed job is still FAILED_PRECONDITION (state FAILED).
	_, err = en.gw.FailJob(ctx(t), &pb.FailJobRequest{JobKey: key, Retries: 1})
	if status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("fail of a failed job: %v", err)
	}
}

// Zeebe: a back-off is scheduled only when retryBackOff > 0; with
// retries > 0 and retryBackOff <= 0 the job is activatable again at once.
// A negative retryBackOff is therefore "retry now", not an error (the old
// engine answered INVALID_ARGUMENT).
func TestZeebeNegativeRetryBackoffRetriesAtOnce(t *testing.T) {
	en := start(t, Config{Partitions: 1})
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	en.create("one-task", `{}`)
	j := en.activate("work", 1, -1)[0]
	if _, err := en.gw.FailJob(ctx(t), &pb.FailJobRequest{JobKey: j.Key, Retries: 2, RetryBackOff: -5000}); err != nil {
		t.Fatalf("negative retryBackOff: %v (Zeebe retries at once)", err)
	}
	again := en.activate("work", 1, -1)
	if len(again) != 1 || again[0].Key != j.Key || again[0].Retries != 2 {
		t.Fatalf("job not activatable at once after a negative back-off: %v", again)
	}
}

// Zeebe (VariableBehavior.mergeDocument, used when a job completes and the
// task has no output mappings): the completion variables are merged from
// the task's own scope upwards; each variable is updated on the nearest
// scope that already defines it, and created on the process instance when
// none does. The old engine always merged into the process instance, so a
// task-local variable (here set by SetVariables local=true) leaked into the
// instance.
func TestZeebeCompleteJobUpdatesNearestScope(t *testing.T) {
	en := start(t, Config{Partitions: 1})
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	pi := en.create("one-task", `{"shared":"from-start"}`)
	j := en.activate("work", 1, -1)[0]
	if _, err := en.gw.SetVariables(ctx(t), &pb.SetVariablesRequest{ElementInstanceKey: j.ElementInstanceKey, Variables: `{"local":"task-scope"}`, Local: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := en.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: j.Key, Variables: `{"local":"updated","shared":"updated","fresh":1}`}); err != nil {
		t.Fatal(err)
	}
	var vars string
	for _, in := range en.instances("one-task").Instances {
		if in.Key == pi {
			vars = in.Variables
		}
	}
	// shared: defined on the instance → updated there; fresh: defined
	// nowhere → created on the instance; local: defined on the task scope →
	// updated there, gone with the task.
	if vars != `{"fresh":1,"shared":"updated"}` {
		t.Fatalf("instance variables %s", vars)
	}
}

// Zeebe's FEEL engine rejects '==' and prefix 'not' (a deploy with such a
// condition fails); not(...) as a function, string length(), contains(),
// is defined() and number functions work in gateway conditions.
func TestZeebeFEELConditions(t *testing.T) {
	en := start(t, Config{Partitions: 1})
	for cond, want := range map[string]string{`= x == 1`: "'==' is not FEEL", `= not x`: "prefix 'not'"} {
		_, err := en.gw.DeployResource(ctx(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "bad.bpmn", Content: condProcess("bad", cond)}}})
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: %v", cond, err)
		}
	}
	en.deploy("f.bpmn", bpmnDoc("f", `
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="s1" sourceRef="start" targetRef="xor"/>
    <bpmn:exclusiveGateway id="xor" default="other"/>
    <bpmn:sequenceFlow id="yes" sourceRef="xor" targetRef="t"><bpmn:conditionExpression>= is defined(order) and string length(order.id) &gt; 2 and contains(order.id, "-") and not(floor(order.total) &lt; 10) and modulo(order.n, 2) = 0</bpmn:conditionExpression></bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="other" sourceRef="xor" targetRef="u"/>
    <bpmn:serviceTask id="t"><bpmn:extensionElements><zeebe:taskDefinition type="yes"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:serviceTask id="u"><bpmn:extensionElements><zeebe:taskDefinition type="no"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="s2" sourceRef="t" targetRef="end"/>
    <bpmn:sequenceFlow id="s3" sourceRef="u" targetRef="end"/>
    <bpmn:endEvent id="end"/>`))
	en.create("f", `{"order":{"id":"A-17","total":10.5,"n":4}}`)
	en.create("f", `{"order":{"id":"A17","total":10.5,"n":4}}`)
	en.create("f", `{}`)
	if y, n := len(en.activate("yes", 10, -1)), len(en.activate("no", 10, -1)); y != 1 || n != 2 {
		t.Fatalf("yes %d, no %d; want 1 and 2", y, n)
	}
}

// Error end events deploy (Zeebe requires a referenced bpmn:error with a
// non-empty errorCode). In this subset nothing can catch an error thrown by
// an end event (no subprocesses), so, as in Zeebe when no catch event
// matches, the instance gets an UNHANDLED_ERROR_EVENT incident there.
func TestZeebeErrorEndEvent(t *testing.T) {
	en := start(t, Config{Partitions: 1})
	doc := func(errDef string) []byte {
		return []byte(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="x">
  <bpmn:error id="err" errorCode="` + errDef + `"/>
  <bpmn:process id="ee" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="s1" sourceRef="start" targetRef="end"/>
    <bpmn:endEvent id="end"><bpmn:errorEventDefinition errorRef="err"/></bpmn:endEvent>
  </bpmn:process>
</bpmn:definitions>`)
	}
	_, err := en.gw.DeployResource(ctx(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "ee.bpmn", Content: doc("")}}})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "non-empty errorCode") {
		t.Fatalf("error end event without a code: %v", err)
	}
	en.deploy("ee.bpmn", doc("PAYMENT_FAILED"))
	pi := en.create("ee", `{}`)
	inc, err := en.admin.ListIncidents(ctx(t), &apb.ListIncidentsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(inc.Incidents) != 1 || inc.Incidents[0].ProcessInstanceKey != pi || inc.Incidents[0].Type != "UNHANDLED_ERROR_EVENT" ||
		!strings.Contains(inc.Incidents[0].Message, "'PAYMENT_FAILED'") {
		t.Fatalf("incidents %v", inc.Incidents)
	}
	// The instance is still active and can be canceled.
	if _, err := en.gw.CancelProcessInstance(ctx(t), &pb.CancelProcessInstanceRequest{ProcessInstanceKey: pi}); err != nil {
		t.Fatal(err)
	}
}
