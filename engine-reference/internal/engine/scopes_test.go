package engine

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Variable mappings, embedded subprocesses, call activities, inclusive
// gateways and multi-instance activities, each driven through the gateway
// and restarted in the middle in two ways: a clean restart (state from the
// snapshot written at shutdown) and a crash (SIGKILL of an engine process;
// state rebuilt by replaying the command log). The BPMN files are the
// corpus's (engine-reference/corpus), whose golden files hold what Zeebe 8.8.21 observed.

func corpusFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile("../../corpus/" + path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rig is an engine that can be restarted in the middle of a test.
type rig struct {
	t     *testing.T
	mode  string // "snapshot" or "replay"
	dir   string
	child *child
	e     *Engine
	gw    pb.GatewayClient
	admin apb.AdminServiceClient
}

func newRig(t *testing.T, mode string) *rig {
	r := &rig{t: t, mode: mode, dir: t.TempDir()}
	r.open()
	return r
}

func (r *rig) open() {
	if r.mode == "replay" {
		r.child = startChild(r.t, r.dir)
		_, r.gw, r.admin = dial(r.t, r.child.addr)
		return
	}
	e, err := Start(Config{DataDir: r.dir, Partitions: 3, NoSync: r.mode != "replay"})
	if err != nil {
		r.t.Fatalf("restart: %v", err)
	}
	r.e = e
	r.t.Cleanup(func() { e.Close() })
	_, r.gw, r.admin = dial(r.t, e.Addr())
}

// restart stops the engine (cleanly, or with SIGKILL in replay mode) and
// starts it again on the same data directory.
func (r *rig) restart() {
	r.t.Helper()
	if r.child != nil {
		r.child.kill()
		r.child = nil
	} else {
		r.e.Close()
	}
	r.open()
}

func (r *rig) env() *env { return &env{t: r.t, gw: r.gw, admin: r.admin} }

func bothRestarts(t *testing.T, f func(t *testing.T, r *rig)) {
	for _, mode := range []string{"snapshot", "replay"} {
		t.Run(mode, func(t *testing.T) { f(t, newRig(t, mode)) })
	}
}

func (r *rig) deploy(files ...string) {
	r.t.Helper()
	var res []*pb.Resource
	for _, f := range files {
		res = append(res, &pb.Resource{Name: f[strings.LastIndex(f, "/")+1:], Content: corpusFile(r.t, f)})
	}
	if _, err := r.gw.DeployResource(ctx(r.t), &pb.DeployResourceRequest{Resources: res}); err != nil {
		r.t.Fatalf("deploy %v: %v", files, err)
	}
}

func (r *rig) create(pid, vars string) int64 { return r.env().create(pid, vars) }

// job activates exactly one job of the type.
func (r *rig) job(typ string) *pb.ActivatedJob {
	r.t.Helper()
	var jobs []*pb.ActivatedJob
	eventually(r.t, 10e9, "a job of type "+typ, func() bool {
		jobs = append(jobs, r.env().activate(typ, 10, -1)...)
		return len(jobs) > 0
	})
	if len(jobs) != 1 {
		r.t.Fatalf("want 1 job of type %s, got %d", typ, len(jobs))
	}
	return jobs[0]
}

func (r *rig) jobs(typ string, n int) []*pb.ActivatedJob {
	r.t.Helper()
	var jobs []*pb.ActivatedJob
	eventually(r.t, 10e9, "jobs of type "+typ, func() bool {
		jobs = append(jobs, r.env().activate(typ, 100, -1)...)
		return len(jobs) >= n
	})
	if len(jobs) != n {
		r.t.Fatalf("want %d jobs of type %s, got %d", n, typ, len(jobs))
	}
	return jobs
}

func (r *rig) noJob(typ string) {
	r.t.Helper()
	if jobs := r.env().activate(typ, 10, -1); len(jobs) != 0 {
		r.t.Fatalf("want no job of type %s, got %d (element %s)", typ, len(jobs), jobs[0].ElementId)
	}
}

func (r *rig) complete(j *pb.ActivatedJob, vars string) {
	r.t.Helper()
	if _, err := r.gw.CompleteJob(ctx(r.t), &pb.CompleteJobRequest{JobKey: j.Key, Variables: vars}); err != nil {
		r.t.Fatalf("complete %s: %v", j.Type, err)
	}
}

func (r *rig) instance(key int64) *apb.ProcessInstanceInfo {
	r.t.Helper()
	for _, in := range r.env().instances("").Instances {
		if in.Key == key {
			return in
		}
	}
	r.t.Fatalf("instance %d not found", key)
	return nil
}

func (r *rig) incidents(key int64) []*apb.IncidentInfo {
	r.t.Helper()
	res, err := r.admin.ListIncidents(ctx(r.t), &apb.ListIncidentsRequest{})
	if err != nil {
		r.t.Fatal(err)
	}
	var out []*apb.IncidentInfo
	for _, i := range res.Incidents {
		if i.ProcessInstanceKey == key {
			out = append(out, i)
		}
	}
	return out
}

// wantVars checks a JSON document's variables (a subset, compared as JSON).
func wantVars(t *testing.T, what, doc string, want map[string]any) {
	t.Helper()
	var got map[string]any
	if err := json.Unmarshal([]byte(doc), &got); err != nil {
		t.Fatalf("%s: %v in %s", what, err, doc)
	}
	for k, v := range want {
		if v == absent {
			if _, has := got[k]; has {
				t.Fatalf("%s: variable %s must not be there: %s", what, k, doc)
			}
			continue
		}
		wb, _ := json.Marshal(v)
		var w any
		json.Unmarshal(wb, &w)
		if !reflect.DeepEqual(got[k], w) {
			t.Fatalf("%s: variable %s = %v, want %v (all: %s)", what, k, got[k], w, doc)
		}
	}
}

var absent = &struct{ x int }{}

func (r *rig) completed(key int64, want map[string]any) {
	r.t.Helper()
	var in *apb.ProcessInstanceInfo
	eventually(r.t, 10e9, "instance completed", func() bool {
		in = r.instance(key)
		return in.State == apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_COMPLETED
	})
	wantVars(r.t, "instance", in.Variables, want)
}

func TestIOMappingsAcrossRestart(t *testing.T) {
	bothRestarts(t, func(t *testing.T, r *rig) {
		r.deploy("io-mapping/charge.bpmn")
		k := r.create("corpus-io-mapping", `{"order":{"id":"o-1","total":42,"attempts":2}}`)
		j := r.job("corpus-io-charge")
		if j.Retries != 2 {
			t.Fatalf("retries expression: %d", j.Retries)
		}
		wantVars(t, "charge job", j.Variables, map[string]any{"amount": 42, "currency": "EUR",
			"payment": map[string]any{"orderId": "o-1", "amountPlusOne": 43}})
		r.restart()
		r.complete(j, `{"receipt":{"id":"r-9"},"extra":"local only"}`)
		r.restart()
		s := r.job("corpus-io-ship")
		wantVars(t, "ship job", s.Variables, map[string]any{"receiptId": "r-9", "doubled": 84, "paidIn": "EUR",
			"extra": absent, "receipt": absent, "amount": absent, "currency": absent})
		r.complete(s, `{"shipped":true}`)
		r.completed(k, map[string]any{"receiptId": "r-9", "shipped": true, "extra": absent})
	})
}

func TestSubprocessErrorAcrossRestart(t *testing.T) {
	bothRestarts(t, func(t *testing.T, r *rig) {
		r.deploy("subprocess-error/sub.bpmn")
		good := r.create("corpus-subprocess-error", `{"orderId":"a"}`)
		bad := r.create("corpus-subprocess-error", `{"orderId":"b"}`)
		w := r.jobs("corpus-sp-work", 2)
		r.restart()
		for _, j := range w {
			var v map[string]any
			json.Unmarshal([]byte(j.Variables), &v)
			r.complete(j, map[bool]string{true: `{"good":true}`, false: `{"good":false}`}[v["orderId"] == "a"])
		}
		r.restart()
		a := r.job("corpus-sp-after")
		wantVars(t, "after", a.Variables, map[string]any{"subTag": "in-a", "tag": absent})
		h := r.job("corpus-sp-handle")
		wantVars(t, "handle", h.Variables, map[string]any{"orderId": "b", "subTag": absent, "tag": absent})
		r.complete(a, "")
		r.complete(h, "")
		r.completed(good, map[string]any{"subTag": "in-a"})
		r.completed(bad, map[string]any{"subTag": absent})
	})
}

func TestCallActivityAcrossRestart(t *testing.T) {
	bothRestarts(t, func(t *testing.T, r *rig) {
		r.deploy("call-activity/parent.bpmn", "call-activity/child.bpmn")
		k := r.create("corpus-ca-parent", `{"orderId":"o-5"}`)
		j := r.job("corpus-ca-work")
		if j.ProcessInstanceKey == k || j.BpmnProcessId != "corpus-ca-child" {
			t.Fatalf("the job must belong to the called instance: %v", j)
		}
		// The called instance cannot be canceled on its own.
		_, err := r.gw.CancelProcessInstance(ctx(t), &pb.CancelProcessInstanceRequest{ProcessInstanceKey: j.ProcessInstanceKey})
		if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "Cancel the root process instance") {
			t.Fatalf("cancel of a called instance: %v", err)
		}
		r.restart()
		r.complete(j, `{"childResult":7,"noise":1}`)
		j2 := r.job("corpus-ca-work")
		wantVars(t, "second child", j2.Variables, map[string]any{"result": 7, "noise": absent, "childResult": absent})
		r.restart()
		r.complete(j2, `{"second":"yes"}`)
		r.completed(k, map[string]any{"orderId": "o-5", "result": 7, "second": "yes", "noise": absent})

		// Canceling the parent cancels the called instance and its job.
		k2 := r.create("corpus-ca-parent", `{"orderId":"o-6"}`)
		j3 := r.job("corpus-ca-work")
		r.restart()
		if _, err := r.gw.CancelProcessInstance(ctx(t), &pb.CancelProcessInstanceRequest{ProcessInstanceKey: k2}); err != nil {
			t.Fatal(err)
		}
		if st := r.instance(j3.ProcessInstanceKey).State; st != apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_CANCELED {
			t.Fatalf("called instance after cancel: %v", st)
		}
		_, err = r.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: j3.Key})
		if status.Code(err) != codes.NotFound {
			t.Fatalf("job of a canceled called instance: %v", err)
		}
	})
}

func TestCallActivityErrorPropagatesAcrossRestart(t *testing.T) {
	bothRestarts(t, func(t *testing.T, r *rig) {
		r.deploy("call-activity-error/parent.bpmn", "call-activity-error/child.bpmn")
		k := r.create("corpus-cae-parent", `{"n":2}`)
		j := r.job("corpus-cae-try")
		r.restart()
		if _, err := r.gw.ThrowError(ctx(t), &pb.ThrowErrorRequest{JobKey: j.Key, ErrorCode: "CHILD_FAILED"}); err != nil {
			t.Fatal(err)
		}
		if st := r.instance(j.ProcessInstanceKey).State; st != apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_CANCELED {
			t.Fatalf("called instance after the error was caught by its caller: %v", st)
		}
		r.restart()
		rc := r.job("corpus-cae-recover")
		r.complete(rc, "")
		r.completed(k, map[string]any{"n": 2})
	})
}

func TestInclusiveJoinAcrossRestart(t *testing.T) {
	bothRestarts(t, func(t *testing.T, r *rig) {
		r.deploy("inclusive-gateway/inclusive.bpmn")
		k := r.create("corpus-inclusive", `{"x":5}`)
		a := r.job("corpus-ig-a")
		r.complete(a, `{"a":1}`)
		r.restart()
		r.noJob("corpus-ig-done") // the join waits for b
		r.noJob("corpus-ig-c")
		b := r.job("corpus-ig-b")
		r.complete(b, `{"b":1}`)
		r.restart()
		d := r.job("corpus-ig-done")
		r.complete(d, "")
		r.completed(k, map[string]any{"a": 1, "b": 1})
	})
}

func TestMultiInstanceAcrossRestart(t *testing.T) {
	bothRestarts(t, func(t *testing.T, r *rig) {
		r.deploy("multi-instance-parallel/mi.bpmn", "multi-instance-sequential/seq.bpmn")
		k := r.create("corpus-mi-parallel", `{"items":[{"sku":"x","qty":1},{"sku":"y","qty":2},{"sku":"z","qty":3}]}`)
		seq := r.create("corpus-mi-sequential", `{"names":["ann","bob","cy"]}`)
		items := r.jobs("corpus-mip-item", 3)
		counters := map[float64]bool{}
		for _, j := range items {
			var v map[string]any
			json.Unmarshal([]byte(j.Variables), &v)
			counters[v["loopCounter"].(float64)] = true
			if v["sku"] != v["item"].(map[string]any)["sku"] {
				t.Fatalf("input mapping per inner instance: %s", j.Variables)
			}
		}
		if len(counters) != 3 {
			t.Fatalf("loopCounters %v", counters)
		}
		// Complete out of order, restarting in between.
		r.complete(items[2], "")
		r.restart()
		g1 := r.job("corpus-mis-greet")
		wantVars(t, "first greet", g1.Variables, map[string]any{"name": "ann", "loopCounter": 1})
		r.complete(items[0], "")
		r.complete(g1, "")
		r.restart()
		r.noJob("corpus-mip-after")
		r.complete(items[1], `{"done":true}`)
		after := r.job("corpus-mip-after")
		wantVars(t, "after", after.Variables, map[string]any{"results": []int{10, 20, 30}, "loopCounter": absent, "item": absent})
		r.complete(after, "")
		r.completed(k, map[string]any{"results": []int{10, 20, 30}})
		g2 := r.job("corpus-mis-greet")
		wantVars(t, "second greet", g2.Variables, map[string]any{"name": "bob", "loopCounter": 2, "greetings": []any{"hi ann #1", nil, nil}})
		r.complete(g2, "")
		r.restart()
		g3 := r.job("corpus-mis-greet")
		r.complete(g3, "")
		r.completed(seq, map[string]any{"greetings": []string{"hi ann #1", "hi bob #2", "hi cy #3"}, "greeting": absent})
	})
}

// Edges that hold an instance with an incident, and resolving them.
func TestFlowIncidentsAndResolve(t *testing.T) {
	r := newRig(t, "snapshot")
	r.deploy("inclusive-gateway/inclusive.bpmn", "multi-instance-sequential/seq.bpmn")
	r.noJob("corpus-mis-never")

	// Inclusive fork without a true condition and without a default flow.
	k := r.create("corpus-inclusive-nodefault", `{"y":3}`)
	incs := r.incidents(k)
	if len(incs) != 1 || incs[0].Type != "CONDITION_ERROR" || !strings.Contains(incs[0].Message, "inclusive gateway 'fork2'") {
		t.Fatalf("incidents %v", incs)
	}
	if _, err := r.gw.SetVariables(ctx(t), &pb.SetVariablesRequest{ElementInstanceKey: k, Variables: `{"y":2}`}); err != nil {
		t.Fatal(err)
	}
	r.restart()
	if _, err := r.gw.ResolveIncident(ctx(t), &pb.ResolveIncidentRequest{IncidentKey: incs[0].Key}); err != nil {
		t.Fatal(err)
	}
	r.completed(k, map[string]any{"y": 2})

	// A multi-instance input collection that is not a list.
	m := r.create("corpus-mi-empty", `{"list":"nope"}`)
	incs = r.incidents(m)
	if len(incs) != 1 || incs[0].Type != "EXTRACT_VALUE_ERROR" {
		t.Fatalf("incidents %v", incs)
	}
	if _, err := r.gw.SetVariables(ctx(t), &pb.SetVariablesRequest{ElementInstanceKey: m, Variables: `{"list":[7]}`}); err != nil {
		t.Fatal(err)
	}
	r.restart()
	if _, err := r.gw.ResolveIncident(ctx(t), &pb.ResolveIncidentRequest{IncidentKey: incs[0].Key}); err != nil {
		t.Fatal(err)
	}
	j := r.job("corpus-mis-never")
	wantVars(t, "inner", j.Variables, map[string]any{"x": 7, "loopCounter": 1})
	r.complete(j, "")
	r.completed(m, map[string]any{"out": []int{7}})

	// An empty collection completes the body at once.
	e := r.create("corpus-mi-empty", `{"list":[]}`)
	r.completed(e, map[string]any{"out": []int{}})
}

// A call activity whose process is not deployed holds an incident until it
// is deployed and the incident resolved.
func TestCallActivityMissingProcess(t *testing.T) {
	r := newRig(t, "snapshot")
	r.deploy("call-activity/parent.bpmn")
	k := r.create("corpus-ca-parent", `{"orderId":"o-1"}`)
	incs := r.incidents(k)
	if len(incs) != 1 || incs[0].Type != "CALLED_ELEMENT_ERROR" || !strings.Contains(incs[0].Message, "'corpus-ca-child'") {
		t.Fatalf("incidents %v", incs)
	}
	r.deploy("call-activity/child.bpmn")
	r.restart()
	if _, err := r.gw.ResolveIncident(ctx(t), &pb.ResolveIncidentRequest{IncidentKey: incs[0].Key}); err != nil {
		t.Fatal(err)
	}
	j := r.job("corpus-ca-work")
	wantVars(t, "child", j.Variables, map[string]any{"childOrder": "o-1"})
}

func TestDeployRejectsUnsupportedFlowElements(t *testing.T) {
	en := start(t, Config{NoSync: true})
	head := `<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"><bpmn:process id="p" isExecutable="true">
<bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f" sourceRef="s" targetRef="t"/>
`
	cases := map[string]string{
		`<bpmn:subProcess id="t" triggeredByEvent="true"><bpmn:startEvent id="x"/></bpmn:subProcess>`: "event subprocess 't' at line 3",
		`<bpmn:serviceTask id="t"><bpmn:extensionElements><zeebe:taskDefinition type="a"/></bpmn:extensionElements>
<bpmn:multiInstanceLoopCharacteristics><bpmn:completionCondition>= true</bpmn:completionCondition></bpmn:multiInstanceLoopCharacteristics></bpmn:serviceTask>`: "bpmn:completionCondition at line 4",
		`<bpmn:callActivity id="t"/>`:                                       "must have a zeebe:calledElement",
		`<bpmn:subProcess id="t"><bpmn:userTask id="u"/></bpmn:subProcess>`: "bpmn:userTask (id 'u') at line 3",
		`<bpmn:subProcess id="t"></bpmn:subProcess>`:                        "subprocess 't' at line 3 must have exactly one none start event",
	}
	for body, want := range cases {
		src := head + body + `</bpmn:process></bpmn:definitions>`
		_, err := en.gw.DeployResource(ctx(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "x.bpmn", Content: []byte(src)}}})
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want INVALID_ARGUMENT containing %q, got %v", body, want, err)
		}
	}
}

// testdata/format2 is a data dir written by the engine before element
// instance scopes (commit eee58fb, snapshot format 2, clean shutdown): flow
// deployed, 4 instances at the parallel fork, one job 'a' completed, one
// activated with a task-local variable 'loc'. This engine reads it and runs
// every instance to its end.
func TestOpensSnapshotFormat2(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, "testdata/format2", dir)
	en := start(t, Config{DataDir: dir, NoSync: true})
	if c := en.instances("flow").CountsByState["ACTIVE"]; c != 4 {
		t.Fatalf("active instances %d", c)
	}
	done := 0
	for _, j := range en.jobs("a").Jobs {
		if j.State == apb.JobState_JOB_STATE_COMPLETED {
			done++
			continue
		}
		complete(t, en, j.Key, "")
	}
	if done != 1 {
		t.Fatalf("completed 'a' jobs before: %d", done)
	}
	bs := en.activate("b", 10, -1)
	if len(bs) != 4 {
		t.Fatalf("b jobs %d", len(bs))
	}
	for _, j := range bs {
		complete(t, en, j.Key, "")
	}
	in := en.instances("flow")
	if in.CountsByState["COMPLETED"] != 4 {
		t.Fatalf("instances %v", in.CountsByState)
	}
	for _, i := range in.Instances {
		if strings.Contains(i.Variables, "loc") {
			t.Fatalf("a task-local variable reached the instance: %s", i.Variables)
		}
	}
}

// A parallel multi-instance subprocess over 3,000 items creates 3,000 jobs
// in one command without running into the step budget (every job created
// adds to it), and restarts with all of them.
func TestLargeParallelMultiInstance(t *testing.T) {
	r := newRig(t, "snapshot")
	r.deploy("multi-instance-error/mierr.bpmn")
	ids := make([]string, 3000)
	for i := range ids {
		ids[i] = "big"
	}
	b, _ := json.Marshal(map[string]any{"ids": ids})
	k := r.create("corpus-mi-error", string(b))
	if incs := r.incidents(k); len(incs) != 0 {
		t.Fatalf("incidents %v", incs)
	}
	r.restart()
	jobs := r.env().jobs("corpus-mie-big")
	if n := jobs.CountsByState["ACTIVATABLE"]; n != 3000 {
		t.Fatalf("activatable jobs %v", jobs.CountsByState)
	}
	// Canceling terminates every inner instance and cancels every job.
	t0 := time.Now()
	if _, err := r.gw.CancelProcessInstance(ctx(t), &pb.CancelProcessInstanceRequest{ProcessInstanceKey: k}); err != nil {
		t.Fatal(err)
	}
	t.Logf("cancel of 3,000 inner instances took %v", time.Since(t0))
	jobs = r.env().jobs("corpus-mie-big")
	if jobs.CountsByState["CANCELED"] != 3000 || jobs.CountsByState["ACTIVATABLE"] != 0 {
		t.Fatalf("jobs after cancel %v", jobs.CountsByState)
	}
}

// A loop without a wait state through a parallel multi-instance subprocess
// still exhausts the step budget (the budget its inner instances bring is
// less than they spend) and becomes an incident.
func TestMultiInstanceLoopBecomesIncident(t *testing.T) {
	en := start(t, Config{NoSync: true})
	src := `<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"><bpmn:process id="miloop" isExecutable="true">
<bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="x"/>
<bpmn:exclusiveGateway id="x"/><bpmn:sequenceFlow id="f2" sourceRef="x" targetRef="sub"/>
<bpmn:subProcess id="sub"><bpmn:multiInstanceLoopCharacteristics><bpmn:extensionElements><zeebe:loopCharacteristics inputCollection="= xs"/></bpmn:extensionElements></bpmn:multiInstanceLoopCharacteristics>
<bpmn:startEvent id="ss"/><bpmn:sequenceFlow id="g1" sourceRef="ss" targetRef="se"/><bpmn:endEvent id="se"/></bpmn:subProcess>
<bpmn:sequenceFlow id="f3" sourceRef="sub" targetRef="x"/>
</bpmn:process></bpmn:definitions>`
	en.deploy("miloop.bpmn", []byte(src))
	k := en.create("miloop", `{"xs":[1,2,3,4,5,6,7,8,9,10]}`)
	res, err := en.admin.ListIncidents(ctx(t), &apb.ListIncidentsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, i := range res.Incidents {
		if i.ProcessInstanceKey == k && i.Type == "STEP_LIMIT_EXCEEDED" {
			found = true
		}
	}
	if !found {
		t.Fatalf("no STEP_LIMIT_EXCEEDED incident: %d incidents", len(res.Incidents))
	}
	if _, err := en.gw.CancelProcessInstance(ctx(t), &pb.CancelProcessInstanceRequest{ProcessInstanceKey: k}); err != nil {
		t.Fatal(err)
	}
}

// A message boundary event on an embedded subprocess survives a restart;
// the message terminates the subprocess (its job is gone) and a catch
// event inside it (with a correlation key from the subprocess's local
// variable) no longer correlates.
func TestSubprocessMessageBoundaryAcrossRestart(t *testing.T) {
	bothRestarts(t, func(t *testing.T, r *rig) {
		r.deploy("subprocess-message-boundary/smb.bpmn")
		k := r.create("corpus-subprocess-message", `{"orderId":"r-2"}`)
		w := r.job("corpus-smb-work")
		r.restart()
		// A TTL: the boundary's subscription reaches the message partition
		// through the outbox, which a restart may still be re-sending (on a
		// loaded machine the publish can overtake it; a TTL-0 message would
		// then be dropped).
		if _, err := r.gw.PublishMessage(ctx(t), &pb.PublishMessageRequest{Name: "corpus-smb-abort", CorrelationKey: "r-2", Variables: `{"why":"x"}`, TimeToLive: 60_000}); err != nil {
			t.Fatal(err)
		}
		a := r.job("corpus-smb-aborted")
		wantVars(t, "aborted", a.Variables, map[string]any{"why": "x", "subOrder": absent})
		_, err := r.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: w.Key})
		if status.Code(err) != codes.NotFound {
			t.Fatalf("job of the terminated subprocess: %v", err)
		}
		r.restart()
		// The catch event inside was terminated: this message finds no
		// subscription and stays buffered (TTL 0: dropped).
		if _, err := r.gw.PublishMessage(ctx(t), &pb.PublishMessageRequest{Name: "corpus-smb-step", CorrelationKey: "r-2"}); err != nil {
			t.Fatal(err)
		}
		r.complete(a, "")
		r.completed(k, map[string]any{"why": "x", "orderId": "r-2"})
		r.noJob("corpus-smb-after")
	})
}
