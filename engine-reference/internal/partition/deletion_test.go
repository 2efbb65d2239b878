package partition

import (
	"context"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
)

// A definition deleted on partition 1 while an instance of it still runs
// on partition 2 (the window between the gateway's check and the
// deletion): the tombstone keeps the process, so partition 2 recovers the
// instance after a restart, and the instance completes; the definition
// stays deleted.
func TestDeletedDefinitionKeepsRunningInstanceRecoverable(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	open := func(reg *Registry) (*Partition, *Partition) {
		t.Helper()
		var ps []*Partition
		for i, dir := range dirs {
			p, err := Open(Config{ID: int32(i + 1), Count: 2, DataDir: dir, NoSync: true, Defs: reg})
			if err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
		}
		for _, p := range ps {
			go p.Run()
		}
		return ps[0], ps[1]
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p1, p2 := open(NewRegistry())
	res, err := p1.Submit(ctx, &Command{Op: OpDeploy, Resources: []Resource{{Name: "p.bpmn", Content: []byte(waitBPMN)}}})
	if err != nil {
		t.Fatal(err)
	}
	def := res.(*gatewaypb.DeployResourceResponse).Deployments[0].GetProcess()
	cr, err := p2.Submit(ctx, &Command{Op: OpCreate, BpmnProcessID: "p", Version: -1})
	if err != nil {
		t.Fatal(err)
	}
	inst := cr.(*gatewaypb.CreateProcessInstanceResponse).ProcessInstanceKey
	if _, err := p1.Submit(ctx, &Command{Op: OpDeleteResource, Key: def.ProcessDefinitionKey}); err != nil {
		t.Fatalf("delete on partition 1 (no instance there): %v", err)
	}
	for _, p := range []*Partition{p1, p2} {
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
	p1, p2 = open(NewRegistry())
	defer p1.Close()
	defer p2.Close()
	if _, err := p2.Submit(ctx, &Command{Op: OpCreate, BpmnProcessID: "p", Version: -1}); err == nil {
		t.Fatal("the deleted definition came back")
	}
	jobs, err := p2.Submit(ctx, &Command{Op: OpActivate, Type: "w", Worker: "t", Timeout: 60000, MaxJobs: 5})
	if err != nil {
		t.Fatal(err)
	}
	js := jobs.([]*gatewaypb.ActivatedJob)
	if len(js) != 1 || js[0].ProcessInstanceKey != inst {
		t.Fatalf("jobs after restart: %v", js)
	}
	if _, err := p2.Submit(ctx, &Command{Op: OpComplete, Key: js[0].Key}); err != nil {
		t.Fatal(err)
	}
	var state int
	if err := p2.Query(ctx, func(s *State) {
		if in := s.Instances[inst]; in != nil {
			state = in.State
		}
	}); err != nil {
		t.Fatal(err)
	}
	if state != InstCompleted && state != 0 {
		t.Fatalf("instance state %d after completing its job", state)
	}
}
