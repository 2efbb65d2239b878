package engine

import (
	"strings"
	"testing"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func complete(t *testing.T, en *env, key int64, vars string) {
	t.Helper()
	if _, err := en.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: key, Variables: vars}); err != nil {
		t.Fatalf("complete %d: %v", key, err)
	}
}

func one(t *testing.T, en *env, typ string) *pb.ActivatedJob {
	t.Helper()
	jobs := en.activate(typ, 1, -1)
	if len(jobs) != 1 {
		t.Fatalf("want 1 job of type %s, got %d", typ, len(jobs))
	}
	return jobs[0]
}

func instanceState(t *testing.T, en *env, key int64) apb.ProcessInstanceState {
	for _, in := range en.instances("").Instances {
		if in.Key == key {
			return in.State
		}
	}
	t.Fatalf("instance %d not found", key)
	return 0
}

func TestExclusiveDefaultFlow(t *testing.T) {
	en := start(t, Config{NoSync: true})
	en.deploy("flow.bpmn", bpmnFile(t, "flow.bpmn"))
	k := en.create("flow", `{"x": 3, "status": "ok"}`)
	j := one(t, en, "low")
	complete(t, en, j.Key, "")
	if s := instanceState(t, en, k); s != apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_COMPLETED {
		t.Fatalf("state %v", s)
	}
}

func TestParallelAndBoundaryError(t *testing.T) {
	en := start(t, Config{NoSync: true})
	en.deploy("flow.bpmn", bpmnFile(t, "flow.bpmn"))
	k := en.create("flow", `{"x": 9, "status": "ok"}`)
	a := one(t, en, "a")
	b := one(t, en, "b")
	complete(t, en, a.Key, `{"a": 1}`)
	if s := instanceState(t, en, k); s != apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_ACTIVE {
		t.Fatalf("join must wait, state %v", s)
	}
	if _, err := en.gw.ThrowError(ctx(t), &pb.ThrowErrorRequest{JobKey: b.Key, ErrorCode: "BAD", Variables: `{"why":"x"}`}); err != nil {
		t.Fatal(err)
	}
	h := one(t, en, "handle")
	// Zeebe 8.8: the thrown variables live on the catch event's scope and,
	// without output mappings, never reach the process instance.
	if strings.Contains(h.Variables, "why") {
		t.Fatalf("error variables leaked past the catch event: %s", h.Variables)
	}
	// They stay observable on the job (admin ListJobs).
	var thrown *apb.JobInfo
	for _, j := range en.jobs("b").Jobs {
		if j.Key == b.Key {
			thrown = j
		}
	}
	if thrown == nil || thrown.ErrorCode != "BAD" || thrown.ErrorVariables != `{"why":"x"}` ||
		thrown.State != apb.JobState_JOB_STATE_ERROR_THROWN {
		t.Fatalf("thrown job %v", thrown)
	}
	complete(t, en, h.Key, "")
	in := en.instances("flow").Instances[0]
	if in.State != apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_COMPLETED || in.CompletionCount != 1 ||
		strings.Contains(in.Variables, "why") {
		t.Fatalf("instance %v", in)
	}
	// The thrown-error job no longer exists for commands.
	_, err := en.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: b.Key})
	if status.Code(err) != codes.NotFound {
		t.Fatalf("want NOT_FOUND, got %v", err)
	}
}

func TestUncaughtErrorAndRetriesIncidents(t *testing.T) {
	en := start(t, Config{NoSync: true})
	en.deploy("flow.bpmn", bpmnFile(t, "flow.bpmn"))
	k := en.create("flow", `{"x": 9, "status": "ok"}`)
	a := one(t, en, "a") // retries="1"
	if _, err := en.gw.FailJob(ctx(t), &pb.FailJobRequest{JobKey: a.Key, Retries: 0, ErrorMessage: "boom"}); err != nil {
		t.Fatal(err)
	}
	b := one(t, en, "b")
	if _, err := en.gw.ThrowError(ctx(t), &pb.ThrowErrorRequest{JobKey: b.Key, ErrorCode: "OTHER", Variables: `{"n":1}`}); err != nil {
		t.Fatal(err)
	}
	if js := en.jobs("b").Jobs; len(js) != 1 || js[0].ErrorCode != "OTHER" || js[0].ErrorVariables != `{"n":1}` {
		t.Fatalf("uncaught error job %v", js)
	}
	if s := instanceState(t, en, k); s != apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_INCIDENT {
		t.Fatalf("state %v", s)
	}
	incs, err := en.admin.ListIncidents(ctx(t), &apb.ListIncidentsRequest{ProcessInstanceKey: k})
	if err != nil || len(incs.Incidents) != 2 {
		t.Fatalf("incidents %v %v", incs, err)
	}
	var noRetries, unhandled *apb.IncidentInfo
	for _, i := range incs.Incidents {
		switch i.Type {
		case "JOB_NO_RETRIES":
			noRetries = i
		case "UNHANDLED_ERROR_EVENT":
			unhandled = i
		}
	}
	if noRetries == nil || unhandled == nil {
		t.Fatalf("incidents %v", incs)
	}
	// Resolving without retries is refused; after UpdateJobRetries it works.
	_, err = en.gw.ResolveIncident(ctx(t), &pb.ResolveIncidentRequest{IncidentKey: noRetries.Key})
	if status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("want FAILED_PRECONDITION, got %v", err)
	}
	if _, err := en.gw.UpdateJobRetries(ctx(t), &pb.UpdateJobRetriesRequest{JobKey: a.Key, Retries: 2}); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int64{noRetries.Key, unhandled.Key} {
		if _, err := en.gw.ResolveIncident(ctx(t), &pb.ResolveIncidentRequest{IncidentKey: i}); err != nil {
			t.Fatal(err)
		}
	}
	a2 := one(t, en, "a")
	if a2.Key != a.Key || a2.Retries != 2 {
		t.Fatalf("job after resolve %v", a2)
	}
	complete(t, en, a2.Key, "")
	complete(t, en, one(t, en, "b").Key, "")
	if s := instanceState(t, en, k); s != apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_COMPLETED {
		t.Fatalf("state %v", s)
	}
}

func TestDeployRejectsFlowWithoutCondition(t *testing.T) {
	en := start(t, Config{NoSync: true})
	_, err := en.gw.DeployResource(ctx(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "x.bpmn",
		Content: []byte(strings.ReplaceAll(string(bpmnFile(t, "flow.bpmn")), ` default="toLow"`, ""))}}})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "toLow") {
		t.Fatalf("want INVALID_ARGUMENT naming toLow, got %v", err)
	}
}

func TestConditionIncidentResolvedAfterSetVariables(t *testing.T) {
	en := start(t, Config{NoSync: true})
	en.deploy("cond.bpmn", bpmnFile(t, "cond.bpmn"))
	small := en.create("cond", `{"x": 2}`)
	if s := instanceState(t, en, small); s != apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_COMPLETED {
		t.Fatalf("x=2 must take 'small', state %v", s)
	}
	k := en.create("cond", `{}`)
	if s := instanceState(t, en, k); s != apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_INCIDENT {
		t.Fatalf("state %v", s)
	}
	incs, _ := en.admin.ListIncidents(ctx(t), &apb.ListIncidentsRequest{ProcessInstanceKey: k})
	if len(incs.Incidents) != 1 || incs.Incidents[0].Type != "CONDITION_ERROR" {
		t.Fatalf("incidents %v", incs)
	}
	if _, err := en.gw.SetVariables(ctx(t), &pb.SetVariablesRequest{ElementInstanceKey: k, Variables: `{"x": 99999999999999999999}`}); err != nil {
		t.Fatal(err)
	}
	if _, err := en.gw.ResolveIncident(ctx(t), &pb.ResolveIncidentRequest{IncidentKey: incs.Incidents[0].Key}); err != nil {
		t.Fatal(err)
	}
	j := one(t, en, "cond-work")
	if j.Variables != `{"x":99999999999999999999}` {
		t.Fatalf("variables %s", j.Variables)
	}
	// Local variables stay on the task scope; propagated ones reach the root.
	if _, err := en.gw.SetVariables(ctx(t), &pb.SetVariablesRequest{ElementInstanceKey: j.ElementInstanceKey, Variables: `{"l": 1}`, Local: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := en.gw.SetVariables(ctx(t), &pb.SetVariablesRequest{ElementInstanceKey: j.ElementInstanceKey, Variables: `{"g": 2}`}); err != nil {
		t.Fatal(err)
	}
	var root string
	for _, in := range en.instances("cond").Instances {
		if in.Key == k {
			root = in.Variables
		}
	}
	if root != `{"g":2,"x":99999999999999999999}` {
		t.Fatalf("root variables %s", root)
	}
}
