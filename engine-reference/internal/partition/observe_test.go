package partition

import (
	"testing"
)

const obsBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
  <bpmn:process id="obs" isExecutable="true">
    <bpmn:startEvent id="s"><bpmn:outgoing>f1</bpmn:outgoing></bpmn:startEvent>
    <bpmn:serviceTask id="task"><bpmn:extensionElements><zeebe:taskDefinition type="obs-job" retries="1" /></bpmn:extensionElements><bpmn:incoming>f1</bpmn:incoming><bpmn:outgoing>f2</bpmn:outgoing></bpmn:serviceTask>
    <bpmn:endEvent id="e"><bpmn:incoming>f2</bpmn:incoming></bpmn:endEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="task" />
    <bpmn:sequenceFlow id="f2" sourceRef="task" targetRef="e" />
  </bpmn:process>
</bpmn:definitions>`

type collect struct{ got []*CommittedBatch }

func (c *collect) Committed(b *CommittedBatch) { c.got = append(c.got, b) }

// openObserved opens a partition (not running: batches are processed on the
// caller's goroutine) with the process deployed.
func openObserved(tb testing.TB, obs Observer) *Partition {
	p, err := Open(Config{ID: 1, Count: 1, DataDir: tb.TempDir(), NoSync: true, Defs: NewRegistry(), Observer: obs})
	if err != nil {
		tb.Fatal(err)
	}
	go p.commitLoop() // the committer hands committed batches to the observer
	tb.Cleanup(func() {
		close(p.commits)
		<-p.committerDone
		p.log.Close()
	})
	p.process1([]*Command{{Op: OpDeploy, Resources: []Resource{{Name: "obs.bpmn", Content: []byte(obsBPMN)}}}})
	return p
}

// process1 processes one batch and waits until it is committed and observed.
func (p *Partition) process1(batch []*Command) {
	p.processBatch(batch)
	p.waitCommitted()
}

// The observer sees exactly what a batch changed: created instances with
// their new jobs, a failed job with its message and the incident, its
// resolution, counters by type.
func TestObserverSeesCommittedChanges(t *testing.T) {
	c := &collect{}
	p := openObserved(t, c)
	c.got = nil
	p.process1([]*Command{{Op: OpCreate, BpmnProcessID: "obs", Version: -1, Variables: `{"a":1}`}})
	if len(c.got) != 1 || c.got[0].Counts.Created != 1 || len(c.got[0].Instances) != 1 || len(c.got[0].Jobs) != 1 {
		t.Fatalf("create batch: %+v", c.got)
	}
	b := c.got[0]
	job := b.Jobs[0]
	if b.At <= 0 || b.Instances[0].State != "ACTIVE" || b.Instances[0].Active[0] != "task" || job.State != "ACTIVATABLE" ||
		job.Type != "obs-job" || b.Instances[0].Variables != `{"a":1}` {
		t.Fatalf("create views: %+v", b)
	}
	p.process1([]*Command{{Op: OpActivate, Type: "obs-job", Worker: "w1", MaxJobs: 1, Timeout: 1000}})
	act := c.got[1]
	if act.Counts.PollActivated["obs-job"] != 1 || len(act.Jobs) != 1 || act.Jobs[0].Worker != "w1" || act.Jobs[0].State != "ACTIVATED" {
		t.Fatalf("activate batch: %+v", act)
	}
	p.process1([]*Command{{Op: OpFail, Key: job.Key, Retries: 0, ErrorMessage: "boom"}})
	f := c.got[2]
	if len(f.Instances) != 1 || f.Instances[0].State != "INCIDENT" || len(f.Instances[0].Incidents) != 1 ||
		f.Instances[0].Incidents[0].Message != "boom" || f.Jobs[0].ErrorMessage != "boom" || f.Counts.JobsFailed["obs-job"] != 1 {
		t.Fatalf("fail batch: %+v", f)
	}
	inc := f.Instances[0].Incidents[0]
	p.process1([]*Command{{Op: OpUpdateRetries, Key: job.Key, Retries: 1}, {Op: OpResolve, Key: inc.Key}})
	r := c.got[3]
	if len(r.Resolved) != 1 || r.Resolved[0] != inc.Key || len(r.Instances) != 1 || r.Instances[0].State != "ACTIVE" ||
		len(r.Instances[0].Incidents) != 0 || r.Jobs[0].State != "ACTIVATABLE" {
		t.Fatalf("resolve batch: %+v", r)
	}
	// A rejected command changes nothing and reports nothing.
	p.process1([]*Command{{Op: OpComplete, Key: 12345}})
	if len(c.got) != 4 {
		t.Fatalf("a rejected command produced a batch: %+v", c.got[4:])
	}
	// A completed job and instance leave the live state in the same batch
	// (the bounded history takes them); the view still reports both.
	p.process1([]*Command{{Op: OpActivate, Type: "obs-job", Worker: "w1", MaxJobs: 1, Timeout: 1000}})
	p.process1([]*Command{{Op: OpComplete, Key: job.Key, Variables: `{"b":2}`}})
	done := c.got[len(c.got)-1]
	if done.Counts.JobsCompleted["obs-job"] != 1 || done.Counts.Completed != 1 || len(done.Jobs) != 1 ||
		done.Jobs[0].State != "COMPLETED" || len(done.Instances) != 1 || done.Instances[0].State != "COMPLETED" {
		t.Fatalf("complete batch: %+v", done)
	}
}

// BenchmarkProcessBatch measures what the observer adds on the partition
// goroutine: a batch of 64 creates, then a batch completing their 64 jobs.
func BenchmarkProcessBatch(b *testing.B) {
	for _, tc := range []struct {
		name string
		obs  Observer
	}{{"observer=off", nil}, {"observer=on", discard{}}} {
		b.Run(tc.name, func(b *testing.B) {
			p := openObserved(b, tc.obs)
			creates := make([]*Command, 64)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for k := range creates {
					creates[k] = &Command{Op: OpCreate, BpmnProcessID: "obs", Version: -1, Variables: `{"orderId":"x","amount":12.5}`}
				}
				from := p.st.counter
				p.process1(creates)
				completes := make([]*Command, 0, 64)
				for c := from + 1; c <= p.st.counter; c++ {
					if j := p.st.Jobs[int64(p.cfg.ID)<<KeyBits|c]; j != nil && j.State == JobActivatable {
						completes = append(completes, &Command{Op: OpComplete, Key: j.Key, Variables: `{"ok":true}`})
					}
				}
				if len(completes) != len(creates) {
					b.Fatalf("%d jobs to complete, want %d", len(completes), len(creates))
				}
				p.process1(completes)
			}
		})
	}
}

type discard struct{}

func (discard) Committed(*CommittedBatch) {}
