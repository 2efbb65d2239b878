package engine

import (
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Random modifications, completions and restarts on nested subprocesses,
// checking after every step that the token accounting holds: an instance
// is active exactly while it has a live job (the process has no other wait
// state), every answer is OK or a documented refusal, and a restart (clean
// or SIGKILL) brings back the same instances and jobs.
// JOBWIRE_MODIFY_SEED=n runs another random sequence.
const randomProcess = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
  <bpmn:process id="rnd" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="t1"/>
    <bpmn:serviceTask id="t1"><bpmn:extensionElements><zeebe:taskDefinition type="rnd"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="t1" targetRef="sub"/>
    <bpmn:subProcess id="sub">
      <bpmn:startEvent id="ss"/>
      <bpmn:sequenceFlow id="s1" sourceRef="ss" targetRef="t2"/>
      <bpmn:serviceTask id="t2"><bpmn:extensionElements><zeebe:taskDefinition type="rnd"/></bpmn:extensionElements></bpmn:serviceTask>
      <bpmn:sequenceFlow id="s2" sourceRef="t2" targetRef="gw"/>
      <bpmn:exclusiveGateway id="gw" default="s4"/>
      <bpmn:sequenceFlow id="s3" sourceRef="gw" targetRef="sub2"><bpmn:conditionExpression>= deeper = true</bpmn:conditionExpression></bpmn:sequenceFlow>
      <bpmn:sequenceFlow id="s4" sourceRef="gw" targetRef="se"/>
      <bpmn:subProcess id="sub2">
        <bpmn:startEvent id="s2s"/>
        <bpmn:sequenceFlow id="u1" sourceRef="s2s" targetRef="t5"/>
        <bpmn:serviceTask id="t5"><bpmn:extensionElements><zeebe:taskDefinition type="rnd"/></bpmn:extensionElements></bpmn:serviceTask>
        <bpmn:sequenceFlow id="u2" sourceRef="t5" targetRef="s2e"/>
        <bpmn:endEvent id="s2e"/>
      </bpmn:subProcess>
      <bpmn:sequenceFlow id="s5" sourceRef="sub2" targetRef="se"/>
      <bpmn:endEvent id="se"/>
    </bpmn:subProcess>
    <bpmn:sequenceFlow id="f3" sourceRef="sub" targetRef="t4"/>
    <bpmn:serviceTask id="t4"><bpmn:extensionElements><zeebe:taskDefinition type="rnd"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f4" sourceRef="t4" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>`

func TestModifyRandomTokens(t *testing.T) {
	for _, mode := range []string{"snapshot", "replay"} {
		t.Run(mode, func(t *testing.T) {
			seed := int64(len(mode)) * 7919
			if v := os.Getenv("JOBWIRE_MODIFY_SEED"); v != "" {
				seed, _ = strconv.ParseInt(v, 10, 64)
			}
			rng := rand.New(rand.NewSource(seed))
			r := newRig(t, mode)
			defs := []int64{r.env().deploy("rnd.bpmn", []byte(randomProcess)).ProcessDefinitionKey,
				r.env().deploy("rnd.bpmn", []byte(strings.Replace(randomProcess, `id="d"`, `id="d2"`, 1))).ProcessDefinitionKey}
			var identity []*mapping
			for _, id := range []string{"t1", "t2", "t5", "t4", "sub", "sub2", "gw", "se", "s2e", "end"} {
				identity = append(identity, &mapping{SourceElementId: id, TargetElementId: id})
			}
			var insts []int64
			for i := 0; i < 4; i++ {
				insts = append(insts, r.create("rnd", `{"deeper":true}`))
			}
			elements := []string{"t1", "t2", "t5", "t4", "sub", "sub2", "gw", "se", "s2e", "end"}
			live := func() []*apb.JobInfo {
				var out []*apb.JobInfo
				for _, j := range r.env().jobs("rnd").Jobs {
					if j.State == apb.JobState_JOB_STATE_ACTIVATABLE || j.State == apb.JobState_JOB_STATE_ACTIVATED {
						out = append(out, j)
					}
				}
				sort.Slice(out, func(i, k int) bool { return out[i].Key < out[k].Key })
				return out
			}
			snapshot := func() string {
				var b strings.Builder
				for _, j := range live() {
					fmt.Fprintf(&b, "job %d %d %d;", j.Key, j.ProcessInstanceKey, j.ElementInstanceKey)
				}
				for _, in := range r.env().instances("rnd").Instances {
					fmt.Fprintf(&b, "inst %d %v %d;", in.Key, in.State, in.ProcessDefinitionKey)
				}
				return b.String()
			}
			check := func(step int, what string) {
				t.Helper()
				jobsOf := map[int64]int{}
				for _, j := range live() {
					jobsOf[j.ProcessInstanceKey]++
				}
				for _, in := range r.env().instances("rnd").Instances {
					active := in.State == apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_ACTIVE
					if active != (jobsOf[in.Key] > 0) {
						t.Fatalf("step %d (%s): instance %d is %v with %d live jobs", step, what, in.Key, in.State, jobsOf[in.Key])
					}
				}
			}
			counts := map[string]int{}
			defer func() { t.Logf("outcomes: %v", counts) }()
			for step := 0; step < 300; step++ {
				jobs := live()
				pi := insts[rng.Intn(len(insts))]
				if len(jobs) > 0 && rng.Intn(10) > 0 { // mostly a running instance
					pi = jobs[rng.Intn(len(jobs))].ProcessInstanceKey
				}
				if len(jobs) < 3 {
					insts = append(insts, r.create("rnd", `{"deeper":true}`))
				}
				var mine []*apb.JobInfo
				for _, j := range jobs {
					if j.ProcessInstanceKey == pi {
						mine = append(mine, j)
					}
				}
				var what string
				var err error
				switch op := rng.Intn(10); {
				case op < 4: // activate
					el := elements[rng.Intn(len(elements))]
					var anc int64
					if rng.Intn(3) == 0 {
						anc = pi
					}
					req := &modReq{ProcessInstanceKey: pi, ActivateInstructions: []*actInstr{activate(el, anc)}}
					if len(mine) > 0 && rng.Intn(2) == 0 {
						req.TerminateInstructions = []*termInstr{{ElementInstanceKey: mine[rng.Intn(len(mine))].ElementInstanceKey}}
					}
					what = fmt.Sprintf("activate %s ancestor %d terminate %v", el, anc, req.TerminateInstructions)
					err = r.modify(req)
				case op < 6 && len(mine) > 0: // terminate
					j := mine[rng.Intn(len(mine))]
					what = fmt.Sprintf("terminate %d", j.ElementInstanceKey)
					err = r.modify(&modReq{ProcessInstanceKey: pi, TerminateInstructions: []*termInstr{{ElementInstanceKey: j.ElementInstanceKey}}})
				case op < 7: // migrate to either version (every element mapped to itself)
					target := defs[rng.Intn(2)]
					what = fmt.Sprintf("migrate to %d", target)
					err = r.migrate(pi, target, identity...)
				case len(jobs) > 0: // complete
					j := jobs[rng.Intn(len(jobs))]
					what = fmt.Sprintf("complete %d", j.Key)
					_, err = r.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: j.Key, Variables: fmt.Sprintf(`{"deeper":%v}`, rng.Intn(2) == 0)})
				default:
					insts = append(insts, r.create("rnd", `{"deeper":false}`))
					what = "create"
				}
				counts[status.Code(err).String()+" "+strings.Fields(what)[0]]++
				switch status.Code(err) {
				case codes.OK, codes.NotFound, codes.InvalidArgument:
				default:
					t.Fatalf("step %d (%s): %v", step, what, err)
				}
				check(step, what)
				if step%75 == 74 {
					before := snapshot()
					r.restart()
					if after := snapshot(); after != before {
						t.Fatalf("step %d: the restart changed the state:\nbefore %s\nafter  %s", step, before, after)
					}
				}
			}
		})
	}
}
