package partition

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
)

const scopedBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="x">
  <bpmn:process id="q" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="a"/>
    <bpmn:serviceTask id="a"><bpmn:extensionElements><zeebe:taskDefinition type="qa"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="a" targetRef="sub"/>
    <bpmn:subProcess id="sub">
      <bpmn:extensionElements><zeebe:ioMapping><zeebe:input source="= 1" target="inSub"/></zeebe:ioMapping></bpmn:extensionElements>
      <bpmn:startEvent id="ss"/>
      <bpmn:sequenceFlow id="s1" sourceRef="ss" targetRef="b"/>
      <bpmn:serviceTask id="b"><bpmn:extensionElements><zeebe:taskDefinition type="qb"/></bpmn:extensionElements></bpmn:serviceTask>
      <bpmn:sequenceFlow id="s2" sourceRef="b" targetRef="se"/>
      <bpmn:endEvent id="se"/>
    </bpmn:subProcess>
    <bpmn:sequenceFlow id="f3" sourceRef="sub" targetRef="e"/>
    <bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`

const boundaryBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="x">
  <bpmn:message id="m" name="NAME"><bpmn:extensionElements><zeebe:subscription correlationKey="=k"/></bpmn:extensionElements></bpmn:message>
  <bpmn:process id="tb" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="TASK"/>
    <bpmn:serviceTask id="TASK"><bpmn:extensionElements><zeebe:taskDefinition type="tbw"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:boundaryEvent id="TIMER" attachedToRef="TASK"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
    <bpmn:boundaryEvent id="MSG" attachedToRef="TASK" cancelActivity="false"><bpmn:messageEventDefinition messageRef="m"/></bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="TASK" targetRef="e"/>
    <bpmn:sequenceFlow id="f3" sourceRef="TIMER" targetRef="e"/>
    <bpmn:sequenceFlow id="f4" sourceRef="MSG" targetRef="e"/>
    <bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`

func boundaryVersion(task, timer, msg, name string) []byte {
	r := strings.NewReplacer("TASK", task, "TIMER", timer, "MSG", msg, "NAME", name)
	return []byte(r.Replace(boundaryBPMN))
}

// Deletion tombstones (process definitions, decision requirements graphs,
// forms), modifications (flow scopes created, variables, terminations),
// migrations and start instructions are all in the results records: the
// state recovered from the log alone, or from a snapshot and its tail,
// equals the live one.
func TestOpsResultsRecoveryEqualsLiveState(t *testing.T) {
	old, oldRatio, oldTail := SnapshotEvery, SnapshotLogRatio, SnapshotTailBytes
	defer func() { SnapshotEvery, SnapshotLogRatio, SnapshotTailBytes = old, oldRatio, oldTail }()
	dmnV1, err := os.ReadFile("../engine/testdata/risk.dmn")
	if err != nil {
		t.Fatal(err)
	}
	dmnV2 := []byte(strings.Replace(string(dmnV1), `"high"`, `"very high"`, 1))
	for _, tc := range []struct {
		name  string
		every int64
	}{{"log only", 1 << 40}, {"snapshot and tail", 7}} {
		t.Run(tc.name, func(t *testing.T) {
			SnapshotEvery, SnapshotLogRatio, SnapshotTailBytes = tc.every, 1<<40, 1<<40
			dir := t.TempDir()
			p := openMixed(t, dir)
			go p.Run()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			do := func(c *Command) any {
				t.Helper()
				r, err := p.Submit(ctx, c)
				if err != nil {
					t.Fatalf("%s: %v", c.Op, err)
				}
				return r
			}
			deploy := func(rs ...Resource) *gatewaypb.DeployResourceResponse {
				return do(&Command{Op: OpDeploy, Resources: rs}).(*gatewaypb.DeployResourceResponse)
			}
			d1 := deploy(Resource{Name: "q.bpmn", Content: []byte(scopedBPMN)}, Resource{Name: "risk.dmn", Content: dmnV1},
				Resource{Name: "f.form", Content: []byte(`{"id":"f1","components":[]}`)})
			d2 := deploy(Resource{Name: "q.bpmn", Content: []byte(strings.Replace(scopedBPMN, `id="d"`, `id="d2"`, 1))},
				Resource{Name: "risk.dmn", Content: dmnV2}, Resource{Name: "f.form", Content: []byte(`{"id":"f1","components":[1]}`)})
			keyOf := func(r *gatewaypb.DeployResourceResponse, kind string) int64 {
				for _, d := range r.Deployments {
					switch {
					case kind == "process" && d.GetProcess() != nil:
						return d.GetProcess().ProcessDefinitionKey
					case kind == "drg" && d.GetDecisionRequirements() != nil:
						return d.GetDecisionRequirements().DecisionRequirementsKey
					case kind == "form" && d.GetForm() != nil:
						return d.GetForm().FormKey
					}
				}
				t.Fatalf("no %s in %v", kind, r)
				return 0
			}
			inst := func(c *Command) int64 {
				return do(c).(*gatewaypb.CreateProcessInstanceResponse).ProcessInstanceKey
			}
			// v2 instances: one started in sub (start instructions), one
			// modified into sub twice (a new sub instance the second time,
			// with variables), its task a terminated.
			i1 := inst(&Command{Op: OpCreate, BpmnProcessID: "q", Version: -1, Ops: &OpsArgs{StartAt: []string{"b"}}, Variables: `{"x":1}`})
			i2 := inst(&Command{Op: OpCreate, BpmnProcessID: "q", Version: -1})
			jobs := do(&Command{Op: OpActivate, Type: "qa", Worker: "w", MaxJobs: 5, Timeout: 60000}).([]*gatewaypb.ActivatedJob)
			if len(jobs) != 1 {
				t.Fatalf("qa jobs: %v", jobs)
			}
			do(&Command{Op: OpModify, Key: i2, Ops: &OpsArgs{Activate: []ActivateArg{{ElementID: "b", Variables: []VariableArg{{ScopeID: "sub", Variables: `{"s":1}`}, {Variables: `{"g":2}`}}}}}})
			do(&Command{Op: OpModify, Key: i2, Ops: &OpsArgs{Activate: []ActivateArg{{ElementID: "b", Ancestor: i2, Variables: []VariableArg{{ScopeID: "b", Variables: `{"l":3}`}}}},
				Terminate: []int64{jobs[0].ElementInstanceKey}}})
			// Migrate i1 back to version 1, then delete version 2, the
			// second graph and the second form.
			do(&Command{Op: OpMigrate, Key: i1, Ops: &OpsArgs{TargetDefKey: keyOf(d1, "process"), Mappings: []MappingArg{{Source: "sub", Target: "sub"}, {Source: "b", Target: "b"}}}})
			do(&Command{Op: OpMigrate, Key: i2, Ops: &OpsArgs{TargetDefKey: keyOf(d1, "process"), Mappings: []MappingArg{{Source: "sub", Target: "sub"}, {Source: "b", Target: "b"}}}})
			for _, k := range []int64{keyOf(d2, "process"), keyOf(d2, "drg"), keyOf(d2, "form")} {
				do(&Command{Op: OpDeleteResource, Key: k})
			}
			// A task with a timer and a message boundary event migrated: the
			// timer mapped (kept), the message boundary event unmapped
			// (closed), the target's message boundary event subscribed.
			b1 := deploy(Resource{Name: "tb.bpmn", Content: boundaryVersion("t1", "late1", "msg1", "old-msg")})
			b2 := deploy(Resource{Name: "tb.bpmn", Content: boundaryVersion("t2", "late2", "msg2", "new-msg")})
			i3 := inst(&Command{Op: OpCreate, DefKey: keyOf(b1, "process"), Variables: `{"k":"k1"}`})
			do(&Command{Op: OpMigrate, Key: i3, Ops: &OpsArgs{TargetDefKey: keyOf(b2, "process"), Mappings: []MappingArg{{Source: "t1", Target: "t2"}, {Source: "late1", Target: "late2"}}}})
			// Complete one b of i2: its sub instance completes, the other runs.
			bs := do(&Command{Op: OpActivate, Type: "qb", Worker: "w", MaxJobs: 5, Timeout: 60000}).([]*gatewaypb.ActivatedJob)
			if len(bs) != 3 {
				t.Fatalf("qb jobs: %d", len(bs))
			}
			for _, j := range bs {
				if j.ProcessInstanceKey == i2 {
					do(&Command{Op: OpComplete, Key: j.Key})
					break
				}
			}
			// The subscription close and open travel as commands to the
			// message partition (this one): wait for them.
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				settled := false
				if err := p.Query(ctx, func(st *State) {
					old, fresh := 0, 0
					if st.events != nil {
						for _, m := range st.events.MsgSubs {
							if m.Name == "old-msg" {
								old++
							}
							if m.Name == "new-msg" {
								fresh++
							}
						}
					}
					settled = old == 0 && fresh == 1
				}); err != nil {
					t.Fatal(err)
				}
				if settled {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the message partition did not close the old subscription and open the new one")
				}
			}
			stopWithoutSnapshot(p)
			live := fullImage(t, p)
			for _, want := range []string{`"deleted":true`, `"q"`, `"el":"late2"`, `"name":"new-msg"`} {
				if !bytes.Contains(live, []byte(want)) {
					t.Fatalf("the final state has no %s: the comparison would miss it", want)
				}
			}
			p2 := openMixed(t, dir)
			rec := fullImage(t, p2)
			p2.log.Close()
			if bytes.Contains(live, []byte(`"name":"old-msg"`)) {
				t.Fatal("the unmapped message boundary event is still subscribed")
			}
			if !bytes.Equal(live, rec) {
				t.Fatalf("recovered state differs from the live state %s", firstDiff(live, rec))
			}
			if v := p2.st.defs.nextVersion("q"); v != 3 {
				t.Fatalf("next version of q after recovery: %d", v)
			}
		})
	}
}
