package jobwire_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	jobwire "github.com/jobwire/jobwire/sdk-go"
	"github.com/jobwire/jobwire/sdk-go/internal/testengine"
)

// Integration tests of the five resent client commands against the real
// reference engine (started per test).

// process is a BPMN document with one process: start, the given elements in
// a row (service tasks named id:jobType, or raw XML), end.
func process(id string, tasks ...string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"
                  id="defs-%s" targetNamespace="http://jobwire.dev/sdk-go">
  <bpmn:process id="%s" isExecutable="true">
    <bpmn:startEvent id="start"/>
`, id, id)
	prev := "start"
	for i, task := range tasks {
		el, typ, _ := strings.Cut(task, ":")
		fmt.Fprintf(&b, `    <bpmn:sequenceFlow id="f%d" sourceRef="%s" targetRef="%s"/>
    <bpmn:serviceTask id="%s"><bpmn:extensionElements><zeebe:taskDefinition type="%s" retries="3"/></bpmn:extensionElements></bpmn:serviceTask>
`, i, prev, el, el, typ)
		prev = el
	}
	fmt.Fprintf(&b, `    <bpmn:sequenceFlow id="fend" sourceRef="%s" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>
`, prev)
	return []byte(b.String())
}

// signalStartProcess is a process started by the signal name, with one task.
func signalStartProcess(id, signal, jobType string) []byte {
	return []byte(fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"
                  id="defs-%[1]s" targetNamespace="http://jobwire.dev/sdk-go">
  <bpmn:signal id="sig" name="%[2]s"/>
  <bpmn:process id="%[1]s" isExecutable="true">
    <bpmn:startEvent id="start"><bpmn:signalEventDefinition id="start-sig" signalRef="sig"/></bpmn:startEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="task"/>
    <bpmn:serviceTask id="task"><bpmn:extensionElements><zeebe:taskDefinition type="%[3]s" retries="3"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="task" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>
`, id, signal, jobType))
}

func deployBytes(t *testing.T, c *jobwire.Client, name string, content []byte) *jobwire.Deployment {
	t.Helper()
	d, err := c.DeployResource(context.Background(), name, content)
	if err != nil {
		t.Fatalf("deploy %s: %v", name, err)
	}
	return d
}

// activateOne waits up to 10 s for one job of jobType and activates it for timeout.
func activateOne(t *testing.T, c *jobwire.Client, jobType string, timeout time.Duration) *jobwire.Job {
	t.Helper()
	end := time.Now().Add(10 * time.Second)
	for time.Now().Before(end) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		jobs, err := c.ActivateJobs(ctx, jobwire.ActivateJobsRequest{Type: jobType, MaxJobs: 1, Timeout: timeout, RequestTimeout: 2 * time.Second})
		cancel()
		if err != nil {
			t.Fatalf("activate %s: %v", jobType, err)
		}
		if len(jobs) == 1 {
			return jobs[0]
		}
	}
	t.Fatalf("no job of type %s within 10 s", jobType)
	return nil
}

// noJob checks that no job of jobType is activatable.
func noJob(t *testing.T, c *jobwire.Client, jobType string) {
	t.Helper()
	jobs, err := c.ActivateJobs(context.Background(), jobwire.ActivateJobsRequest{Type: jobType, MaxJobs: 10, RequestTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatalf("activate %s: %v", jobType, err)
	}
	if len(jobs) != 0 {
		t.Fatalf("%d unexpected jobs of type %s: %+v", len(jobs), jobType, jobs[0])
	}
}

func TestEngineEvaluateDecision(t *testing.T) {
	e := testengine.Start(t)
	c := engineClient(t, e)
	dmn, err := os.ReadFile("testdata/approval.dmn")
	if err != nil {
		t.Fatal(err)
	}
	d := deployBytes(t, c, "approval.dmn", dmn)
	var approvalKey int64
	for _, dec := range d.Decisions {
		if dec.DecisionID == "approval" {
			approvalKey = dec.DecisionKey
		}
	}
	if len(d.Decisions) != 2 || approvalKey == 0 {
		t.Fatalf("deployed decisions %+v", d.Decisions)
	}
	ctx := context.Background()

	ev, err := c.EvaluateDecision(ctx, jobwire.EvaluateDecisionRequest{DecisionID: "approval", Variables: map[string]any{"age": 42}})
	if err != nil {
		t.Fatal(err)
	}
	if ev.DecisionKey != approvalKey || ev.DecisionID != "approval" || ev.DecisionVersion != 1 || ev.FailedDecisionID != "" {
		t.Fatalf("evaluation %+v", ev)
	}
	var out string
	if err := ev.DecodeOutput(&out); err != nil || out != "approve" {
		t.Fatalf("output %s (%v), want \"approve\"", ev.DecisionOutput, err)
	}
	var ids []string
	for _, x := range ev.EvaluatedDecisions {
		ids = append(ids, x.DecisionID)
	}
	if strings.Join(ids, ",") != "risk,approval" {
		t.Fatalf("evaluated decisions %v, want risk then approval", ids)
	}
	risk := ev.EvaluatedDecisions[0]
	if risk.DecisionType != "DECISION_TABLE" || len(risk.MatchedRules) != 1 || risk.MatchedRules[0].RuleID != "r-adult" || risk.MatchedRules[0].RuleIndex != 2 {
		t.Fatalf("risk evaluation %+v", risk)
	}
	if o := risk.MatchedRules[0].EvaluatedOutputs; len(o) != 1 || o[0].OutputName != "risk" || string(o[0].OutputValue) != `"low"` {
		t.Fatalf("matched rule outputs %+v", o)
	}
	if in := risk.EvaluatedInputs; len(in) != 1 || in[0].InputID != "in-age" || string(in[0].InputValue) != "42" {
		t.Fatalf("evaluated inputs %+v", in)
	}

	// by key, other variables: the other rule
	ev, err = c.EvaluateDecision(ctx, jobwire.EvaluateDecisionRequest{DecisionKey: approvalKey, Variables: json.RawMessage(`{"age":19}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ev.DecodeOutput(&out); err != nil || out != "review" || ev.EvaluatedDecisions[0].MatchedRules[0].RuleID != "r-young" {
		t.Fatalf("by key: output %s, evaluated %+v", ev.DecisionOutput, ev.EvaluatedDecisions)
	}

	// an unknown decision: NotFoundError, at once
	start := time.Now()
	_, err = c.EvaluateDecision(ctx, jobwire.EvaluateDecisionRequest{DecisionID: "no-such-decision"})
	var nf *jobwire.NotFoundError
	if !errors.As(err, &nf) || time.Since(start) > 2*time.Second {
		t.Fatalf("unknown decision: %T %v", err, err)
	}
}

func TestEngineDeleteResource(t *testing.T) {
	e := testengine.Start(t)
	c := engineClient(t, e)
	d := deployBytes(t, c, "to-delete.bpmn", process("to-delete", "task:to-delete"))
	pdk := d.Processes[0].ProcessDefinitionKey
	ctx := context.Background()
	// refused while an instance runs
	pi, err := c.CreateProcessInstance(ctx, jobwire.CreateInstance{ProcessDefinitionKey: pdk})
	if err != nil {
		t.Fatal(err)
	}
	var fp *jobwire.FailedPreconditionError
	if err := c.DeleteResource(ctx, pdk); !errors.As(err, &fp) {
		t.Fatalf("delete with a running instance: %T %v, want FailedPreconditionError", err, err)
	}
	if err := c.CancelProcessInstance(ctx, pi.ProcessInstanceKey); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteResource(ctx, pdk); err != nil {
		t.Fatalf("delete: %v", err)
	}
	var nf *jobwire.NotFoundError
	_, err = c.CreateProcessInstance(ctx, jobwire.CreateInstance{ProcessDefinitionKey: pdk})
	if !errors.As(err, &nf) {
		t.Fatalf("instance of a deleted process: %T %v, want NotFoundError", err, err)
	}
	if err := c.DeleteResource(ctx, pdk); !errors.As(err, &nf) {
		t.Fatalf("second delete: %T %v, want NotFoundError", err, err)
	}
}

func TestEngineBroadcastSignal(t *testing.T) {
	e := testengine.Start(t)
	c := engineClient(t, e)
	deployBytes(t, c, "signal-start.bpmn", signalStartProcess("signal-start", "stock-updated", "on-signal"))
	key, err := c.BroadcastSignal(context.Background(), jobwire.Signal{Name: "stock-updated",
		Variables: json.RawMessage(`{"sku":"A-17","count":9007199254740993}`)})
	if err != nil {
		t.Fatalf("broadcast: %v", err)
	}
	if key <= 0 {
		t.Fatalf("signal key %d", key)
	}
	job := activateOne(t, c, "on-signal", time.Minute)
	var vars struct {
		SKU   string `json:"sku"`
		Count int64  `json:"count"`
	}
	if err := job.DecodeVariables(&vars); err != nil || vars.SKU != "A-17" || vars.Count != 9007199254740993 || job.BPMNProcessID != "signal-start" {
		t.Fatalf("started instance's job %+v, variables %s (%v)", job, job.VariablesJSON(), err)
	}
	noJob(t, c, "on-signal") // exactly one instance
	// a signal nobody waits for is still broadcast
	if _, err := c.BroadcastSignal(context.Background(), jobwire.Signal{Name: "nobody-listens"}); err != nil {
		t.Fatalf("broadcast without receivers: %v", err)
	}
}

func TestEngineModifyProcessInstance(t *testing.T) {
	e := testengine.Start(t)
	c := engineClient(t, e)
	deployBytes(t, c, "modify.bpmn", process("modify", "a:modify-a", "b:modify-b"))
	ctx := context.Background()
	pi, err := c.CreateProcessInstance(ctx, jobwire.CreateInstance{BPMNProcessID: "modify", Version: -1, Variables: map[string]any{"n": 1}})
	if err != nil {
		t.Fatal(err)
	}
	a := activateOne(t, c, "modify-a", time.Minute)
	if a.ProcessInstanceKey != pi.ProcessInstanceKey || a.ElementID != "a" {
		t.Fatalf("job a %+v", a)
	}
	err = c.ModifyProcessInstance(ctx, jobwire.ModifyInstance{ProcessInstanceKey: pi.ProcessInstanceKey,
		Activate: []jobwire.ActivateElement{{ElementID: "b", Variables: []jobwire.ScopedVariables{
			{Variables: json.RawMessage(`{"reason":"skip a","big":9007199254740993}`)}}}},
		Terminate: []int64{a.ElementInstanceKey}})
	if err != nil {
		t.Fatalf("modify: %v", err)
	}
	b := activateOne(t, c, "modify-b", time.Minute)
	var vars struct {
		Reason string `json:"reason"`
		Big    int64  `json:"big"`
		N      int    `json:"n"`
	}
	if err := b.DecodeVariables(&vars); err != nil || b.ProcessInstanceKey != pi.ProcessInstanceKey || b.ElementID != "b" ||
		vars.Reason != "skip a" || vars.Big != 9007199254740993 || vars.N != 1 {
		t.Fatalf("job b %+v, variables %s (%v)", b, b.VariablesJSON(), err)
	}
	// a's element instance was terminated: its job is gone
	var nf *jobwire.NotFoundError
	if err := c.CompleteJob(ctx, a.Key, nil); !errors.As(err, &nf) {
		t.Fatalf("completing the terminated task's job: %T %v, want NotFoundError", err, err)
	}
	noJob(t, c, "modify-b") // b was activated once
	// an unknown element is refused
	err = c.ModifyProcessInstance(ctx, jobwire.ModifyInstance{ProcessInstanceKey: pi.ProcessInstanceKey,
		Activate: []jobwire.ActivateElement{{ElementID: "no-such-element"}}})
	var ia *jobwire.InvalidArgumentError
	if !errors.As(err, &ia) {
		t.Fatalf("unknown element: %T %v, want InvalidArgumentError", err, err)
	}
}

func TestEngineMigrateProcessInstance(t *testing.T) {
	e := testengine.Start(t)
	c := engineClient(t, e)
	v1 := deployBytes(t, c, "migrate.bpmn", process("migrate", "A:migrate-task", "B1:migrate-next")).Processes[0]
	v2 := deployBytes(t, c, "migrate.bpmn", process("migrate", "A2:migrate-task", "B2:migrate-next")).Processes[0]
	if v2.Version != v1.Version+1 {
		t.Fatalf("versions %d, %d", v1.Version, v2.Version)
	}
	ctx := context.Background()
	pi, err := c.CreateProcessInstance(ctx, jobwire.CreateInstance{ProcessDefinitionKey: v1.ProcessDefinitionKey})
	if err != nil {
		t.Fatal(err)
	}
	job := activateOne(t, c, "migrate-task", time.Minute)
	if job.ElementID != "A" || job.ProcessDefinitionKey != v1.ProcessDefinitionKey {
		t.Fatalf("job before the migration %+v", job)
	}
	err = c.MigrateProcessInstance(ctx, jobwire.MigrateInstance{ProcessInstanceKey: pi.ProcessInstanceKey,
		TargetProcessDefinitionKey: v2.ProcessDefinitionKey,
		Mappings:                   []jobwire.MappingInstruction{{SourceElementID: "A", TargetElementID: "A2"}}})
	if err != nil {
		t.Fatalf("migrate: %v", err)
	}
	// hand the job back and activate it again: it now belongs to v2's A2
	if err := c.FailJob(ctx, job.Key, 2, "hand back"); err != nil {
		t.Fatalf("fail job: %v", err)
	}
	job = activateOne(t, c, "migrate-task", time.Minute)
	if job.ElementID != "A2" || job.ProcessDefinitionKey != v2.ProcessDefinitionKey || job.ProcessInstanceKey != pi.ProcessInstanceKey {
		t.Fatalf("job after the migration %+v", job)
	}
	if err := c.CompleteJob(ctx, job.Key, nil); err != nil {
		t.Fatal(err)
	}
	next := activateOne(t, c, "migrate-next", time.Minute)
	if next.ElementID != "B2" || next.ProcessInstanceKey != pi.ProcessInstanceKey {
		t.Fatalf("the instance did not go on in v2: %+v", next)
	}
	// the instance is on v2 now: migrating it from A again is refused
	err = c.MigrateProcessInstance(ctx, jobwire.MigrateInstance{ProcessInstanceKey: pi.ProcessInstanceKey,
		TargetProcessDefinitionKey: v1.ProcessDefinitionKey,
		Mappings:                   []jobwire.MappingInstruction{{SourceElementID: "A", TargetElementID: "A"}}})
	if err == nil {
		t.Fatal("migrating with a mapping of an element the instance does not have was accepted")
	}
}
