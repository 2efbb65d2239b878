package engine

import (
	"encoding/json"
	"testing"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// RejectFault.after_apply: the engine applies the command, then the client
// gets the injected code instead of the answer (a lost answer). The admin
// view shows what was applied, including the instance's live elements.
func TestRejectAfterApplyAppliesTheCommandAndAnswersTheCode(t *testing.T) {
	en := start(t, Config{NoSync: true, Partitions: 2})
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	if _, err := en.admin.InjectFault(ctx(t), &apb.InjectFaultRequest{Fault: &apb.InjectFaultRequest_Reject{Reject: &apb.RejectFault{
		Method: "CreateProcessInstance", Code: int32(codes.Unavailable), Count: 1, PartitionId: 1, AfterApply: true}}}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("after_apply with a partition: %v, want INVALID_ARGUMENT", err)
	}
	if _, err := en.admin.InjectFault(ctx(t), &apb.InjectFaultRequest{Fault: &apb.InjectFaultRequest_Reject{Reject: &apb.RejectFault{
		Method: "CreateProcessInstance", Code: int32(codes.Unavailable), Count: 1, Message: "answer lost", AfterApply: true}}}); err != nil {
		t.Fatal(err)
	}
	_, err := en.gw.CreateProcessInstance(ctx(t), &pb.CreateProcessInstanceRequest{BpmnProcessId: "one-task", Version: -1, Variables: `{"n":1}`})
	if status.Code(err) != codes.Unavailable || status.Convert(err).Message() != "answer lost" {
		t.Fatalf("create: %v, want the injected UNAVAILABLE", err)
	}
	r := en.instances("one-task")
	if len(r.Instances) != 1 || r.Instances[0].State != apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_ACTIVE {
		t.Fatalf("instances %v, want the one the lost answer created, active", r.Instances)
	}
	// the next request gets its real answer
	k := en.create("one-task", `{"n":2}`)
	r = en.instances("one-task")
	if len(r.Instances) != 2 || r.Instances[1].Key != k {
		t.Fatalf("instances %v, want 2 with the second %d", r.Instances, k)
	}
	for _, in := range r.Instances {
		if len(in.ActiveElements) != 0 {
			t.Fatalf("active elements without include_elements: %v", in.ActiveElements)
		}
	}
	withElems := func() []*apb.ProcessInstanceInfo {
		r, err := en.admin.ListProcessInstances(ctx(t), &apb.ListProcessInstancesRequest{BpmnProcessId: "one-task",
			IncludeInstances: true, IncludeElements: true})
		if err != nil {
			t.Fatal(err)
		}
		return r.Instances
	}
	// active_elements: the waiting service task, keyed as its job's element instance
	jobs := en.jobs("work").Jobs
	byInst := map[int64]int64{}
	for _, j := range jobs {
		byInst[j.ProcessInstanceKey] = j.ElementInstanceKey
	}
	for _, in := range withElems() {
		if len(in.ActiveElements) != 1 || in.ActiveElements[0].ElementId != "task" || in.ActiveElements[0].Key != byInst[in.Key] ||
			in.ActiveElements[0].ScopeKey != 0 {
			t.Fatalf("instance %d active elements %v, want task %d in the process scope", in.Key, in.ActiveElements, byInst[in.Key])
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(in.ActiveElements[0].Variables), &v); err != nil || len(v) != 0 {
			t.Fatalf("local variables %q, want {}", in.ActiveElements[0].Variables)
		}
	}
	// a finished instance has none
	for _, j := range en.activate("work", 10, 0) {
		if _, err := en.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: j.Key}); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 5e9, "both instances completed", func() bool {
		for _, in := range withElems() {
			if in.State != apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_COMPLETED || len(in.ActiveElements) != 0 {
				return false
			}
		}
		return true
	})
}

// The admin view's job variables are what the job's element instance sees:
// the instance's variables with its scopes' local ones on top (here set by a
// modification's variable instruction); "" once the job ended.
func TestAdminJobVariablesMergeTheScopes(t *testing.T) {
	en := start(t, Config{NoSync: true, Partitions: 1})
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	k := en.create("one-task", `{"n":1,"shadowed":"root"}`)
	eventually(t, 5e9, "the first job", func() bool { return len(en.jobs("work").Jobs) == 1 })
	if v := en.jobs("work").Jobs[0].Variables; v != "" {
		t.Fatalf("variables %q without include_variables, want none", v)
	}
	jobsWithVars := func() []*apb.JobInfo {
		r, err := en.admin.ListJobs(ctx(t), &apb.ListJobsRequest{Type: "work", IncludeJobs: true, IncludeVariables: true})
		if err != nil {
			t.Fatal(err)
		}
		return r.Jobs
	}
	first := jobsWithVars()[0]
	if first.Variables != `{"n":1,"shadowed":"root"}` {
		t.Fatalf("first job variables %s, want the instance's", first.Variables)
	}
	_, err := en.gw.ModifyProcessInstance(ctx(t), &pb.ModifyProcessInstanceRequest{ProcessInstanceKey: k,
		ActivateInstructions: []*pb.ModifyProcessInstanceRequest_ActivateInstruction{{ElementId: "task",
			VariableInstructions: []*pb.ModifyProcessInstanceRequest_VariableInstruction{{ScopeId: "task", Variables: `{"local":5,"shadowed":"task"}`}}}},
		TerminateInstructions: []*pb.ModifyProcessInstanceRequest_TerminateInstruction{{ElementInstanceKey: first.ElementInstanceKey}}})
	if err != nil {
		t.Fatal(err)
	}
	var second *apb.JobInfo
	for _, j := range jobsWithVars() {
		if j.Key == first.Key {
			if j.State != apb.JobState_JOB_STATE_CANCELED || j.Variables != "" {
				t.Fatalf("terminated element's job: %v variables %q, want CANCELED and none", j.State, j.Variables)
			}
		} else {
			second = j
		}
	}
	if second == nil || second.Variables != `{"local":5,"n":1,"shadowed":"task"}` {
		t.Fatalf("new job %v, want the local variables over the instance's", second)
	}
	r, err := en.admin.ListProcessInstances(ctx(t), &apb.ListProcessInstancesRequest{BpmnProcessId: "one-task",
		IncludeInstances: true, IncludeElements: true})
	if err != nil {
		t.Fatal(err)
	}
	in := r.Instances[0]
	if len(in.ActiveElements) != 1 || in.ActiveElements[0].Key != second.ElementInstanceKey ||
		in.ActiveElements[0].Variables != `{"local":5,"shadowed":"task"}` || in.Variables != `{"n":1,"shadowed":"root"}` {
		t.Fatalf("instance %v, want the new task with its local variables, the root ones unchanged", in)
	}
}
