package engine

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// The engine clock and ResetState (admin API, gateway/clock.go): every
// test here waits for engine time the wall clock would take hours or days
// to reach, so each fails when AdvanceClock does not move the time the
// partitions read.

const (
	minute = int64(60_000)
	hour   = 60 * minute
	day    = 24 * hour
)

func (en *env) advance(ms int64) *apb.AdvanceClockResponse {
	en.t.Helper()
	r, err := en.admin.AdvanceClock(ctx(en.t), &apb.AdvanceClockRequest{DurationMs: ms})
	if err != nil {
		en.t.Fatalf("AdvanceClock(%d): %v", ms, err)
	}
	return r
}

// now polls once, without long polling; the jobs are activated for far
// longer than any test advances the clock, so no activation times out (and
// counts as fired) on the way.
func (en *env) now(typ string) []*pb.ActivatedJob {
	en.t.Helper()
	s, err := en.gw.ActivateJobs(ctx(en.t), &pb.ActivateJobsRequest{Type: typ, Worker: "test", Timeout: 1000 * day,
		MaxJobsToActivate: 100, RequestTimeout: -1})
	if err != nil {
		en.t.Fatal(err)
	}
	var jobs []*pb.ActivatedJob
	for {
		r, err := s.Recv()
		if err != nil {
			if err != io.EOF {
				en.t.Fatalf("activate: %v", err)
			}
			return jobs
		}
		jobs = append(jobs, r.Jobs...)
	}
}

func (en *env) wantJobs(typ string, n int, when string) []*pb.ActivatedJob {
	en.t.Helper()
	jobs := en.now(typ)
	if len(jobs) != n {
		en.t.Fatalf("%s: %d activatable jobs of type %s, want %d", when, len(jobs), typ, n)
	}
	return jobs
}

// A 30-day intermediate timer: nothing before, the next task right after
// AdvanceClock returns, and the instance completes.
func TestClockIntermediateTimer30Days(t *testing.T) {
	began := time.Now()
	en := start(t, Config{NoSync: true})
	en.deploy("month.bpmn", proc("month", nil, strings.Join([]string{
		`<bpmn:startEvent id="s"/>`, flow("f1", "s", "wait"),
		`<bpmn:intermediateCatchEvent id="wait">` + timerDef("timeDuration", "P30D") + `</bpmn:intermediateCatchEvent>`,
		flow("f2", "wait", "t"), task("t", "after"), flow("f3", "t", "e"), `<bpmn:endEvent id="e"/>`}, "\n")))
	var keys []int64
	for i := 0; i < 20; i++ { // on every partition
		keys = append(keys, en.create("month", ""))
	}
	en.wantJobs("after", 0, "before advancing")
	if r := en.advance(30*day - minute); r.Fired != 0 {
		t.Fatalf("a minute before: %d fired", r.Fired)
	}
	en.wantJobs("after", 0, "a minute before the timer")
	t0 := time.Now()
	r := en.advance(minute)
	took := time.Since(t0)
	if r.Fired != 20 || r.OffsetMs < 30*day {
		t.Fatalf("AdvanceClock: fired %d, offset %d", r.Fired, r.OffsetMs)
	}
	for _, j := range en.wantJobs("after", 20, "right after AdvanceClock") {
		complete(t, en, j.Key, "")
	}
	for _, k := range keys {
		waitState(t, en, k, completed)
	}
	total := time.Since(began)
	t.Logf("AdvanceClock(30 d) with 20 timers due: %v; whole test (engine start to 20 completed instances): %v", took, total)
	if took > time.Second {
		t.Fatalf("AdvanceClock took %v", took)
	}
}

// An interrupting timer boundary on a task: the task's job is canceled and
// the boundary path taken after 2 h of engine time.
func TestClockBoundaryTimer(t *testing.T) {
	en := start(t, Config{NoSync: true})
	en.deploy("tb.bpmn", boundaryProc("tb", task("work", "work"), timerDef("timeDuration", "PT2H"), true))
	k := en.create("tb", "")
	j := en.wantJobs("work", 1, "the task")[0]
	en.advance(hour)
	en.wantJobs("side", 0, "after 1 h")
	if r := en.advance(hour); r.Fired != 1 {
		t.Fatalf("after 2 h: fired %d, want 1", r.Fired)
	}
	side := en.wantJobs("side", 1, "after 2 h")[0]
	if _, err := en.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: j.Key}); status.Code(err) != codes.NotFound {
		t.Fatalf("complete the interrupted task: %v, want NOT_FOUND", err)
	}
	complete(t, en, side.Key, "")
	waitState(t, en, k, completed)
}

// A non-interrupting cycle R3/PT1H fires three times within 3 h, once per
// hour, and never again.
func TestClockTimerCycle(t *testing.T) {
	en := start(t, Config{NoSync: true})
	en.deploy("tc.bpmn", boundaryProc("tc", task("work", "work"), timerDef("timeCycle", "R3/PT1H"), false))
	k := en.create("tc", "")
	j := en.wantJobs("work", 1, "the task")[0]
	en.advance(hour - minute)
	en.wantJobs("side", 0, "before the first hour")
	en.advance(minute)
	en.wantJobs("side", 1, "after 1 h")
	if r := en.advance(2 * hour); r.Fired != 2 {
		t.Fatalf("hours 2 and 3: fired %d, want 2", r.Fired)
	}
	en.wantJobs("side", 2, "after 3 h")
	if r := en.advance(10 * hour); r.Fired != 0 {
		t.Fatalf("after the third repetition: fired %d", r.Fired)
	}
	en.wantJobs("side", 0, "after 13 h")
	complete(t, en, j.Key, "")
	if s := instanceState(t, en, k); s != active { // three side paths still wait
		t.Fatalf("state %v", s)
	}
}

// A timer start event with a cycle: one instance per repetition, all at
// once when the clock jumps over them.
func TestClockTimerStartCycle(t *testing.T) {
	en := start(t, Config{NoSync: true, Partitions: 2})
	en.deploy("ts.bpmn", proc("ts", nil, strings.Join([]string{
		`<bpmn:startEvent id="s">` + timerDef("timeCycle", "R3/P1D") + `</bpmn:startEvent>`,
		flow("f1", "s", "t"), task("t", "tick"), flow("f2", "t", "e"), `<bpmn:endEvent id="e"/>`}, "\n")))
	en.wantJobs("tick", 0, "at deployment")
	if r := en.advance(5 * day); r.Fired != 3 {
		t.Fatalf("fired %d, want 3", r.Fired)
	}
	en.wantJobs("tick", 3, "after 5 days")
}

// A job activated with a 5 min timeout is activatable again once the clock
// passes its deadline; the deadline handed out follows the engine clock.
func TestClockJobTimeout(t *testing.T) {
	en := start(t, Config{NoSync: true})
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	en.create("one-task", "")
	en.advance(day)
	s, err := en.gw.ActivateJobs(ctx(t), &pb.ActivateJobsRequest{Type: "work", Worker: "w", Timeout: 5 * minute, MaxJobsToActivate: 1, RequestTimeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Recv()
	if err != nil || len(r.Jobs) != 1 {
		t.Fatalf("activate: %v %v", r, err)
	}
	j := r.Jobs[0]
	if d := j.Deadline - time.Now().UnixMilli(); d < day || d > day+6*minute {
		t.Fatalf("deadline %d ms from wall time, want about 1 d + 5 min (engine time)", d)
	}
	en.advance(4 * minute)
	en.wantJobs("work", 0, "within the timeout")
	if r := en.advance(minute); r.Fired != 1 {
		t.Fatalf("timeout: fired %d", r.Fired)
	}
	again := en.wantJobs("work", 1, "after the timeout")[0]
	if again.Key != j.Key {
		t.Fatal("another job")
	}
	if _, err := en.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: j.Key}); err != nil {
		t.Fatal(err)
	}
}

// A failed job with a 1 h retry back-off is activatable again after 1 h.
func TestClockRetryBackoff(t *testing.T) {
	en := start(t, Config{NoSync: true})
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	en.create("one-task", "")
	j := en.wantJobs("work", 1, "the task")[0]
	if _, err := en.gw.FailJob(ctx(t), &pb.FailJobRequest{JobKey: j.Key, Retries: 2, RetryBackOff: hour, ErrorMessage: "later"}); err != nil {
		t.Fatal(err)
	}
	en.advance(hour - minute)
	en.wantJobs("work", 0, "during the back-off")
	if r := en.advance(minute); r.Fired != 1 {
		t.Fatalf("back-off: fired %d", r.Fired)
	}
	if got := en.wantJobs("work", 1, "after the back-off")[0]; got.Key != j.Key || got.Retries != 2 {
		t.Fatalf("job %d retries %d", got.Key, got.Retries)
	}
}

// A buffered message with TTL 1 h correlates within the hour and no longer
// after it.
func TestClockMessageTTL(t *testing.T) {
	en := start(t, Config{NoSync: true})
	en.deploy("catch.bpmn", catchMsg)
	en.mustPublish("paid", "late", `{"v":1}`, hour)
	en.mustPublish("paid", "early", `{"v":2}`, hour)
	en.advance(hour - minute)
	early := en.create("catch", `{"orderId": "early"}`)
	en.advance(0) // settle: the subscription reaches the message's partition and back
	if jobs := en.wantJobs("ship", 1, "within the TTL"); jobs[0].ProcessInstanceKey != early {
		t.Fatal("wrong instance")
	}
	en.advance(minute)
	late := en.create("catch", `{"orderId": "late"}`)
	en.advance(0)
	en.wantJobs("ship", 0, "after the TTL")
	if s := instanceState(t, en, late); s != active {
		t.Fatalf("state %v", s)
	}
	// A message published now still correlates to the waiting instance.
	en.mustPublish("paid", "late", "", 0)
	en.advance(0)
	en.wantJobs("ship", 1, "a new message")
}

func TestClockSetAndRefusals(t *testing.T) {
	en := start(t, Config{NoSync: true})
	c, err := en.admin.GetClock(ctx(t), &apb.GetClockRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if c.OffsetMs != 0 || abs(c.NowMs-time.Now().UnixMilli()) > 1000 {
		t.Fatalf("clock %v", c)
	}
	_, err = en.admin.SetClock(ctx(t), &apb.SetClockRequest{EpochMs: c.NowMs - 1000})
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "never runs backwards") {
		t.Fatalf("SetClock backwards: %v", err)
	}
	if _, err := en.admin.AdvanceClock(ctx(t), &apb.AdvanceClockRequest{DurationMs: -1}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("AdvanceClock(-1): %v", err)
	}
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	en.create("one-task", "")
	j := en.wantJobs("work", 1, "the task")[0]
	if _, err := en.gw.FailJob(ctx(t), &pb.FailJobRequest{JobKey: j.Key, Retries: 1, RetryBackOff: day}); err != nil {
		t.Fatal(err)
	}
	target := c.NowMs + 2*day
	s, err := en.admin.SetClock(ctx(t), &apb.SetClockRequest{EpochMs: target})
	if err != nil {
		t.Fatal(err)
	}
	if s.Fired != 1 || s.NowMs < target || s.NowMs > target+1000 || abs(s.OffsetMs-(target-time.Now().UnixMilli())) > 1000 {
		t.Fatalf("SetClock: %v", s)
	}
	en.wantJobs("work", 1, "after SetClock")
	_, err = en.admin.SetClock(ctx(t), &apb.SetClockRequest{EpochMs: target - hour})
	if status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("SetClock back by an hour: %v", err)
	}
	if g, _ := en.admin.GetClock(ctx(t), &apb.GetClockRequest{}); g.NowMs < target {
		t.Fatalf("a refused SetClock moved the clock: %v", g)
	}
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// Without the admin API the clock cannot be moved.
func TestClockNeedsAdmin(t *testing.T) {
	en := start(t, Config{NoSync: true, NoAdmin: true})
	if _, err := en.admin.AdvanceClock(ctx(t), &apb.AdvanceClockRequest{DurationMs: 1}); status.Code(err) != codes.Unimplemented {
		t.Fatalf("AdvanceClock with --no-admin: %v", err)
	}
	if _, err := en.admin.ResetState(ctx(t), &apb.ResetStateRequest{}); status.Code(err) != codes.Unimplemented {
		t.Fatalf("ResetState with --no-admin: %v", err)
	}
}

func (en *env) reset() time.Duration {
	en.t.Helper()
	t0 := time.Now()
	r, err := en.admin.ResetState(ctx(en.t), &apb.ResetStateRequest{})
	took := time.Since(t0)
	if err != nil {
		en.t.Fatalf("ResetState: %v", err)
	}
	if int(r.PartitionsReset) != en.e.Partitions() {
		en.t.Fatalf("reset %d partitions", r.PartitionsReset)
	}
	return took
}

func (en *env) wantEmpty(when string) {
	en.t.Helper()
	if r := en.instances(""); len(r.Instances) != 0 || len(r.CountsByState) != 0 {
		en.t.Fatalf("%s: instances %v", when, r.CountsByState)
	}
	if r := en.jobs(""); len(r.Jobs) != 0 || len(r.CountsByState) != 0 {
		en.t.Fatalf("%s: jobs %v", when, r.CountsByState)
	}
	if r, err := en.admin.ListIncidents(ctx(en.t), &apb.ListIncidentsRequest{}); err != nil || len(r.Incidents) != 0 {
		en.t.Fatalf("%s: incidents %v %v", when, r, err)
	}
	for _, p := range []string{"one-task", "month", "catch"} {
		if _, err := en.gw.CreateProcessInstance(ctx(en.t), &pb.CreateProcessInstanceRequest{BpmnProcessId: p, Version: -1}); status.Code(err) != codes.NotFound {
			en.t.Fatalf("%s: create %s: %v, want NOT_FOUND (no deployment)", when, p, err)
		}
	}
	if _, err := evaluate(en.t, en.conn, &pb.EvaluateDecisionRequest{DecisionId: "corpus_risk", Variables: `{"applicant":{"score":100}}`}); status.Code(err) != codes.NotFound {
		en.t.Fatalf("%s: evaluate decision: %v, want NOT_FOUND", when, err)
	}
}

// fill creates what a test leaves behind: deployments in two versions, a
// decision, instances on every partition with jobs in every state, an
// incident, timers, a buffered message and an open subscription.
func (en *env) fill(instances int) {
	t := en.t
	t.Helper()
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	if md := en.deploy("one-task.bpmn", []byte(strings.Replace(string(bpmnFile(t, "one-task.bpmn")), `name="Work"`, `name="Work2"`, 1))); md.Version != 2 {
		t.Fatalf("second version %d", md.Version)
	}
	if _, err := en.gw.DeployResource(ctx(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "risk.dmn", Content: bpmnFile(t, "risk.dmn")}}}); err != nil {
		t.Fatal(err)
	}
	en.deploy("month.bpmn", proc("month", nil, strings.Join([]string{
		`<bpmn:startEvent id="s"/>`, flow("f1", "s", "wait"),
		`<bpmn:intermediateCatchEvent id="wait">` + timerDef("timeDuration", "P30D") + `</bpmn:intermediateCatchEvent>`,
		flow("f2", "wait", "e"), `<bpmn:endEvent id="e"/>`}, "\n")))
	en.deploy("catch.bpmn", catchMsg)
	for i := 0; i < instances; i++ {
		switch i % 3 {
		case 0:
			en.create("one-task", fmt.Sprintf(`{"i":%d}`, i))
		case 1:
			en.create("month", "")
		default:
			en.create("catch", fmt.Sprintf(`{"orderId":"o%d"}`, i))
		}
	}
	en.mustPublish("paid", "nobody", "", hour)
	jobs := en.now("work")[:3]
	if len(jobs) != 3 {
		t.Fatalf("fill: %d jobs", len(jobs))
	}
	if _, err := en.gw.FailJob(ctx(t), &pb.FailJobRequest{JobKey: jobs[0].Key, Retries: 0, ErrorMessage: "incident"}); err != nil {
		t.Fatal(err)
	}
	if _, err := en.gw.FailJob(ctx(t), &pb.FailJobRequest{JobKey: jobs[1].Key, Retries: 1, RetryBackOff: hour}); err != nil {
		t.Fatal(err)
	}
	complete(t, en, jobs[2].Key, "") // one finished instance in the history
	en.advance(day)                  // and a clock offset
	if r := en.instances(""); len(r.Instances) < instances {
		t.Fatalf("fill: %d instances", len(r.Instances))
	}
}

// ResetState drops everything (instances, jobs, incidents, deployments,
// decisions, timers, messages, history), sets the clock back to wall time,
// and keeps an open push stream delivering jobs of instances created after
// it; a new deployment of a dropped process gets version 1.
func TestResetState(t *testing.T) {
	en := start(t, Config{})
	s, _ := openStream(t, en.gw, "pushed", "kit")
	pushProc := proc("push", nil, strings.Join([]string{`<bpmn:startEvent id="s"/>`, flow("f1", "s", "t"), task("t", "pushed"), flow("f2", "t", "e"), `<bpmn:endEvent id="e"/>`}, "\n"))
	en.deploy("push.bpmn", pushProc)
	en.deploy("push.bpmn", []byte(strings.Replace(string(pushProc), `<bpmn:endEvent id="e"/>`, `<bpmn:endEvent id="e" name="end"/>`, 1)))
	before := en.create("push", "")
	if j, err := s.Recv(); err != nil || j.ProcessInstanceKey != before {
		t.Fatalf("pushed before the reset: %v %v", j, err)
	} else {
		complete(t, en, j.Key, "") // or fill's AdvanceClock times it out and pushes it again
	}
	en.fill(300)
	// a CreateProcessInstanceWithResult waiting for an instance the reset drops
	n := len(en.instances("one-task").Instances)
	withResult := make(chan error, 1)
	go func() {
		_, err := en.gw.CreateProcessInstanceWithResult(ctx(t), &pb.CreateProcessInstanceWithResultRequest{
			Request: &pb.CreateProcessInstanceRequest{BpmnProcessId: "one-task", Version: -1}, RequestTimeout: 20_000})
		withResult <- err
	}()
	eventually(t, 5*time.Second, "the waiting instance", func() bool { return len(en.instances("one-task").Instances) == n+1 })
	took := en.reset()
	if err := <-withResult; status.Code(err) != codes.Aborted {
		t.Fatalf("CreateProcessInstanceWithResult across ResetState: %v, want ABORTED", err)
	}
	t.Logf("ResetState with 300 instances, 3 partitions, fsync on, VerifyResults %v: %v", partition.VerifyResults, took)
	en.wantEmpty("after ResetState")
	if c, err := en.admin.GetClock(ctx(t), &apb.GetClockRequest{}); err != nil || c.OffsetMs != 0 {
		t.Fatalf("clock after reset: %v %v", c, err)
	}
	if len(en.streams()) != 1 {
		t.Fatalf("streams %v", en.streams())
	}
	// The timers and the message are gone, not only hidden.
	if r := en.advance(60 * day); r.Fired != 0 {
		t.Fatalf("fired %d after the reset", r.Fired)
	}
	if md := en.deploy("push.bpmn", pushProc); md.Version != 1 {
		t.Fatalf("redeployed after the reset: version %d, want 1", md.Version)
	}
	after := en.create("push", "")
	if after <= before {
		t.Fatalf("key %d after the reset, %d before: keys must keep growing", after, before)
	}
	j, err := s.Recv()
	if err != nil || j.ProcessInstanceKey != after || j.ProcessDefinitionVersion != 1 {
		t.Fatalf("pushed after the reset: %v %v", j, err)
	}
	complete(t, en, j.Key, "")
	waitState(t, en, after, completed)
	if r := en.instances(""); len(r.Instances) != 1 {
		t.Fatalf("instances after: %d", len(r.Instances))
	}
}

// ResetState is durable: neither a crash right after it (SIGKILL, no
// shutdown snapshot) nor a clean restart brings the old state back, and
// what was created after the reset is still there.
func TestResetStateSurvivesRestart(t *testing.T) {
	for _, mode := range []string{"crash before the snapshot", "crash", "clean"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			var en *env
			var stop func()
			if mode != "clean" {
				if mode == "crash before the snapshot" {
					// no snapshot after the reset (and none before: fewer
					// records than childSnapshotEvery): recovery replays the
					// whole log, old state, reset record and what followed,
					// on three partitions sharing one registry
					t.Setenv("JOBWIRE_TEST_RESET_SNAPSHOT", "0")
				}
				c := startChild(t, dir)
				conn, err := grpc.NewClient(c.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				en = &env{t: t, conn: conn, gw: pb.NewGatewayClient(conn), admin: apb.NewAdminServiceClient(conn)}
				stop = c.kill
			} else {
				e, err := Start(Config{DataDir: dir, Partitions: 3})
				if err != nil {
					t.Fatal(err)
				}
				conn, _ := grpc.NewClient(e.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
				defer conn.Close()
				en = &env{t: t, e: e, conn: conn, gw: pb.NewGatewayClient(conn), admin: apb.NewAdminServiceClient(conn)}
				stop = e.Close
			}
			en.fill(60)
			if _, err := en.admin.ResetState(ctx(t), &apb.ResetStateRequest{}); err != nil {
				t.Fatal(err)
			}
			md := en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
			kept := en.create("one-task", `{"kept":true}`)
			stop()

			again := start(t, Config{DataDir: dir, Partitions: 3})
			r := again.instances("")
			if len(r.Instances) != 1 || r.Instances[0].Key != kept || r.Instances[0].Version != 1 {
				t.Fatalf("after restart: %d instances (%v), want only %d", len(r.Instances), r.CountsByState, kept)
			}
			if jobs := again.jobs(""); len(jobs.Jobs) != 1 || jobs.Jobs[0].ProcessInstanceKey != kept {
				t.Fatalf("jobs after restart: %v", jobs.CountsByState)
			}
			if inc, _ := again.admin.ListIncidents(ctx(t), &apb.ListIncidentsRequest{}); len(inc.Incidents) != 0 {
				t.Fatalf("incidents after restart: %v", inc.Incidents)
			}
			for _, p := range []string{"month", "catch"} {
				if _, err := again.gw.CreateProcessInstance(ctx(t), &pb.CreateProcessInstanceRequest{BpmnProcessId: p, Version: -1}); status.Code(err) != codes.NotFound {
					t.Fatalf("create %s after restart: %v", p, err)
				}
			}
			if _, err := again.gw.CreateProcessInstance(ctx(t), &pb.CreateProcessInstanceRequest{BpmnProcessId: "one-task", Version: 2}); status.Code(err) != codes.NotFound {
				t.Fatalf("version 2 (before the reset) after restart: %v", err)
			}
			if got := again.create("one-task", ""); got <= kept {
				t.Fatalf("key %d after restart reuses keys (kept %d)", got, kept)
			}
			if md2 := again.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn")); md2.Version != 1 || md2.ProcessDefinitionKey != md.ProcessDefinitionKey {
				t.Fatalf("redeploy after restart: %v, want the post-reset version 1 (%v)", md2, md)
			}
			if r := again.advance(60 * day); r.Fired != 0 {
				t.Fatalf("old timers fired after restart: %d", r.Fired)
			}
		})
	}
}

// Timings: ResetState on an engine with 300 instances and AdvanceClock over
// about 100 due timers, 10 rounds each, with fsync on (as `dev` runs) and
// off; prints percentiles. ResetState's time is mostly the fsync of each
// partition's reset record.
func TestClockTimings(t *testing.T) {
	if testing.Short() {
		t.Skip("timings")
	}
	// as a user's engine runs: without the tests' check after every batch
	// that the results records rebuild the state (it encodes the state twice)
	defer func(v bool) { partition.VerifyResults = v }(partition.VerifyResults)
	partition.VerifyResults = false
	for _, noSync := range []bool{false, true} {
		en := start(t, Config{NoSync: noSync})
		var resets, advances []time.Duration
		for round := 0; round < 10; round++ {
			en.fill(300)
			t0 := time.Now()
			r := en.advance(31 * day) // 100 month timers, the back-off, 200 message TTLs pass
			advances = append(advances, time.Since(t0))
			if r.Fired < 100 {
				t.Fatalf("fired %d", r.Fired)
			}
			resets = append(resets, en.reset())
			en.wantEmpty("after reset")
		}
		p := func(d []time.Duration) string {
			sort.Slice(d, func(i, k int) bool { return d[i] < d[k] })
			return fmt.Sprintf("p50 %v, p90 %v, max %v", d[len(d)/2], d[len(d)*9/10], d[len(d)-1])
		}
		t.Logf("fsync %v: ResetState, 300 instances, 3 partitions: %s", !noSync, p(resets))
		t.Logf("fsync %v: AdvanceClock(31 d), ~100 timers due: %s", !noSync, p(advances))
	}
	// what ResetState saves: starting a fresh engine (new data dir, 3
	// partitions) until it serves
	var starts []time.Duration
	for i := 0; i < 10; i++ {
		t0 := time.Now()
		e, err := Start(Config{DataDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		starts = append(starts, time.Since(t0))
		e.Close()
	}
	sort.Slice(starts, func(i, k int) bool { return starts[i] < starts[k] })
	t.Logf("in-process engine start to serving (new data dir): p50 %v, max %v", starts[len(starts)/2], starts[len(starts)-1])
}
