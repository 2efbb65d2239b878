package engine

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

func jobInfo(t *testing.T, en *env, key int64) *apb.JobInfo {
	t.Helper()
	for _, j := range en.jobs("").Jobs {
		if j.Key == key {
			return j
		}
	}
	t.Fatalf("job %d not found", key)
	return nil
}

func TestJobTimeoutMakesJobActivatableAgain(t *testing.T) {
	en := start(t, Config{NoSync: true})
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	en.create("one-task", "")
	s, err := en.gw.ActivateJobs(ctx(t), &pb.ActivateJobsRequest{Type: "work", Worker: "w1", Timeout: 150, MaxJobsToActivate: 1, RequestTimeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Recv()
	if err != nil {
		t.Fatal(err)
	}
	first := r.Jobs[0]
	if first.Worker != "w1" || first.Deadline < time.Now().UnixMilli() {
		t.Fatalf("job %v", first)
	}
	eventually(t, 3*time.Second, "job timed out", func() bool { return jobInfo(t, en, first.Key).TimeoutCount == 1 })
	j := one(t, en, "work")
	if j.Key != first.Key || j.Retries != first.Retries {
		t.Fatalf("re-activated %v", j)
	}
	// A late completion by the first worker still completes the job (Zeebe
	// accepts COMPLETE for activatable and activated jobs), exactly once.
	complete(t, en, first.Key, "")
	_, err = en.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: j.Key})
	if status.Code(err) != codes.NotFound {
		t.Fatalf("second completion: want NOT_FOUND, got %v", err)
	}
	info := jobInfo(t, en, j.Key)
	if info.CompleteCount != 1 || info.ActivationCount != 2 {
		t.Fatalf("job info %v", info)
	}
}

func TestFailWithBackoffAndUpdateTimeout(t *testing.T) {
	en := start(t, Config{NoSync: true})
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	en.create("one-task", "")
	j := one(t, en, "work")
	if _, err := en.gw.UpdateJobTimeout(ctx(t), &pb.UpdateJobTimeoutRequest{JobKey: j.Key, Timeout: 60000}); err != nil {
		t.Fatal(err)
	}
	if d := jobInfo(t, en, j.Key).Deadline; d < time.Now().UnixMilli()+50000 {
		t.Fatalf("deadline not moved: %d", d)
	}
	if _, err := en.gw.FailJob(ctx(t), &pb.FailJobRequest{JobKey: j.Key, Retries: 2, RetryBackOff: 300, ErrorMessage: "later", Variables: `{"attempt":1}`}); err != nil {
		t.Fatal(err)
	}
	// Failing again is a wrong-state error; so is completing in back-off.
	_, err := en.gw.FailJob(ctx(t), &pb.FailJobRequest{JobKey: j.Key, Retries: 1})
	if status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("want FAILED_PRECONDITION, got %v", err)
	}
	_, err = en.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: j.Key})
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "Command 'COMPLETE' rejected with code 'INVALID_STATE'") {
		t.Fatalf("want FAILED_PRECONDITION, got %v", err)
	}
	if jobs := en.activate("work", 1, -1); len(jobs) != 0 {
		t.Fatal("job activatable during back-off")
	}
	start := time.Now()
	jobs := en.activate("work", 1, 5000) // long poll: woken when back-off ends
	if len(jobs) != 1 || jobs[0].Retries != 2 || !strings.Contains(jobs[0].Variables, `"attempt":1`) {
		t.Fatalf("jobs %v", jobs)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("long poll woke after %v", el)
	}
	_, err = en.gw.UpdateJobTimeout(ctx(t), &pb.UpdateJobTimeoutRequest{JobKey: jobs[0].Key, Timeout: -5})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("negative timeout: want INVALID_ARGUMENT, got %v", err)
	}
}

func TestLongPollWakeUpAndTimeout(t *testing.T) {
	en := start(t, Config{NoSync: true})
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	// Empty long poll ends OK with no messages after requestTimeout.
	t0 := time.Now()
	if jobs := en.activate("work", 5, 300); len(jobs) != 0 {
		t.Fatal("unexpected jobs")
	}
	if el := time.Since(t0); el < 250*time.Millisecond || el > 2*time.Second {
		t.Fatalf("long poll lasted %v", el)
	}
	got := make(chan []*pb.ActivatedJob, 1)
	go func() {
		s, err := en.gw.ActivateJobs(context.Background(), &pb.ActivateJobsRequest{Type: "work", Worker: "lp", Timeout: 30000, MaxJobsToActivate: 5, RequestTimeout: 10000})
		if err != nil {
			got <- nil
			return
		}
		var jobs []*pb.ActivatedJob
		for {
			r, err := s.Recv()
			if err != nil {
				got <- jobs
				return
			}
			jobs = append(jobs, r.Jobs...)
		}
	}()
	eventually(t, 3*time.Second, "parked long poll", func() bool {
		r, _ := en.admin.ListLongPolls(ctx(t), &apb.ListLongPollsRequest{})
		return r != nil && len(r.LongPolls) == 1 && r.LongPolls[0].Worker == "lp"
	})
	t1 := time.Now()
	en.create("one-task", "")
	select {
	case jobs := <-got:
		if len(jobs) != 1 {
			t.Fatalf("jobs %v", jobs)
		}
		if el := time.Since(t1); el > time.Second {
			t.Fatalf("woken after %v", el)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("long poll not woken")
	}
}

func TestLongPollResourceExhaustedWhenPartitionRejects(t *testing.T) {
	en := start(t, Config{NoSync: true, Partitions: 2})
	_, err := en.admin.InjectFault(ctx(t), &apb.InjectFaultRequest{Fault: &apb.InjectFaultRequest_Reject{Reject: &apb.RejectFault{
		Method: "ActivateJobs", Code: int32(codes.ResourceExhausted), Count: 1, PartitionId: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := en.gw.ActivateJobs(ctx(t), &pb.ActivateJobsRequest{Type: "x", Worker: "w", Timeout: 1000, MaxJobsToActivate: 1, RequestTimeout: 2000})
	_, err = s.Recv()
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("want RESOURCE_EXHAUSTED, got %v", err)
	}
	// Gateway-level reject fault, then clear.
	en.admin.InjectFault(ctx(t), &apb.InjectFaultRequest{Fault: &apb.InjectFaultRequest_Reject{Reject: &apb.RejectFault{
		Method: "Topology", Code: int32(codes.Unavailable), Count: 1}}})
	if _, err := en.gw.Topology(ctx(t), &pb.TopologyRequest{}); status.Code(err) != codes.Unavailable {
		t.Fatalf("want UNAVAILABLE, got %v", err)
	}
	if _, err := en.gw.Topology(ctx(t), &pb.TopologyRequest{}); err != nil {
		t.Fatal(err)
	}
	counts, _ := en.admin.GetRequestCounts(ctx(t), &apb.GetRequestCountsRequest{Method: "Topology"})
	if len(counts.Counts) != 1 || counts.Counts[0].Count != 2 || counts.Counts[0].ByCode["UNAVAILABLE"] != 1 || len(counts.Counts[0].Timestamps) != 2 {
		t.Fatalf("counts %v", counts)
	}
}

func TestCanceledLongPollReturnsJobs(t *testing.T) {
	en := start(t, Config{NoSync: true, Partitions: 1})
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	// Latency on ActivateJobs is applied before the handler; the client
	// cancels while the jobs are being activated for it, at the latest when
	// the response cannot be sent.
	en.create("one-task", "")
	c, cancel := context.WithCancel(context.Background())
	s, err := en.gw.ActivateJobs(c, &pb.ActivateJobsRequest{Type: "work", Worker: "w", Timeout: 60000, MaxJobsToActivate: 1, RequestTimeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	_, _ = s.Recv()
	// Whether or not the job reached the client before the cancel, it must
	// be activatable again (returned) or activated exactly once.
	eventually(t, 3*time.Second, "job activatable", func() bool {
		j := en.jobs("work").Jobs[0]
		return j.State == apb.JobState_JOB_STATE_ACTIVATABLE || j.ActivationCount == 1
	})
}

func TestCreateWithResultPublishTopologyHealth(t *testing.T) {
	en := start(t, Config{NoSync: true})
	md := en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	// identical redeploy keeps the version; changed content bumps it
	if again := en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn")); again.Version != 1 || again.ProcessDefinitionKey != md.ProcessDefinitionKey {
		t.Fatalf("redeploy %v", again)
	}
	changed := strings.Replace(string(bpmnFile(t, "one-task.bpmn")), `value="fast"`, `value="slow"`, 1)
	if v2 := en.deploy("one-task.bpmn", []byte(changed)); v2.Version != 2 {
		t.Fatalf("changed deploy %v", v2)
	}
	done := make(chan *pb.CreateProcessInstanceWithResultResponse, 1)
	go func() {
		r, err := en.gw.CreateProcessInstanceWithResult(context.Background(), &pb.CreateProcessInstanceWithResultRequest{
			Request: &pb.CreateProcessInstanceRequest{ProcessDefinitionKey: md.ProcessDefinitionKey, Variables: `{"in":1}`}, FetchVariables: []string{"out"}})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	j := en.activate("work", 1, 5000)[0]
	if j.ProcessDefinitionKey != md.ProcessDefinitionKey || j.CustomHeaders != `{"mode":"fast"}` {
		t.Fatalf("job from wrong version: %v", j)
	}
	complete(t, en, j.Key, `{"out": 9007199254740993}`)
	select {
	case r := <-done:
		if r == nil || r.Variables != `{"out":9007199254740993}` {
			t.Fatalf("result %v", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no result")
	}
	pm := &pb.PublishMessageRequest{Name: "m", CorrelationKey: "c", MessageId: "id-1", TimeToLive: 60000, Variables: `{"a":1}`}
	if _, err := en.gw.PublishMessage(ctx(t), pm); err != nil {
		t.Fatal(err)
	}
	if _, err := en.gw.PublishMessage(ctx(t), pm); status.Code(err) != codes.AlreadyExists {
		t.Fatalf("want ALREADY_EXISTS, got %v", err)
	}
	top, err := en.gw.Topology(ctx(t), &pb.TopologyRequest{})
	if err != nil || top.PartitionsCount != 3 || len(top.Brokers[0].Partitions) != 3 || top.GatewayVersion == "" {
		t.Fatalf("topology %v %v", top, err)
	}
	h := healthpb.NewHealthClient(en.conn)
	for _, svc := range []string{"", "gateway_protocol.Gateway"} {
		r, err := h.Check(ctx(t), &healthpb.HealthCheckRequest{Service: svc})
		if err != nil || r.Status != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("health %q: %v %v", svc, r, err)
		}
	}
	// Keys carry their partition in the high bits.
	k := en.create("one-task", "")
	if p := k >> 51; p < 1 || p > 3 {
		t.Fatalf("key %d has partition %d", k, p)
	}
}

func TestCancelInstance(t *testing.T) {
	en := start(t, Config{NoSync: true})
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	k := en.create("one-task", "")
	j := one(t, en, "work")
	if _, err := en.gw.CancelProcessInstance(ctx(t), &pb.CancelProcessInstanceRequest{ProcessInstanceKey: k}); err != nil {
		t.Fatal(err)
	}
	if _, err := en.gw.CancelProcessInstance(ctx(t), &pb.CancelProcessInstanceRequest{ProcessInstanceKey: k}); status.Code(err) != codes.NotFound {
		t.Fatalf("want NOT_FOUND, got %v", err)
	}
	if _, err := en.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: j.Key}); status.Code(err) != codes.NotFound {
		t.Fatalf("want NOT_FOUND, got %v", err)
	}
	if s := instanceState(t, en, k); s != apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_CANCELED {
		t.Fatalf("state %v", s)
	}
}

var _ = io.EOF
