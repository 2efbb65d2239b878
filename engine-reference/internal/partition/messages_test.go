package partition

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// capture is a partition's Hooks that keeps forwarded commands for the
// test to deliver (or not) in any order.
type capture struct {
	mu  sync.Mutex
	out []forward
}

func (c *capture) ReservePush(string, string) (PushTarget, bool) { return nil, false }
func (c *capture) JobsAvailable(string)                          {}
func (c *capture) Forward(pid int32, cmd *Command) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out = append(c.out, forward{pid, cmd})
	return true
}

// take waits for the next forwarded command of an op.
func (c *capture) take(t *testing.T, op string) forward {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		for i, f := range c.out {
			if f.c.Op == op {
				c.out = append(c.out[:i:i], c.out[i+1:]...)
				c.mu.Unlock()
				return f
			}
		}
		c.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no %s command was forwarded", op)
	return forward{}
}

const catchBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="x">
  <bpmn:message id="m" name="go"><bpmn:extensionElements><zeebe:subscription correlationKey="=k"/></bpmn:extensionElements></bpmn:message>
  <bpmn:process id="p" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="w"/>
    <bpmn:intermediateCatchEvent id="w"><bpmn:messageEventDefinition messageRef="m"/></bpmn:intermediateCatchEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="w" targetRef="t"/>
    <bpmn:serviceTask id="t"><bpmn:extensionElements><zeebe:taskDefinition type="after"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f3" sourceRef="t" targetRef="e"/>
    <bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`

// The element of the instance a message was sent to is left before the
// correlation arrives: the message partition hands the (buffered) message
// to the next subscription of the process, and the late correlation is
// dropped by the instance partition — the message continues exactly one
// instance.
func TestCorrelationToALeftElementGoesToTheNextSubscription(t *testing.T) {
	defs := NewRegistry()
	dir := t.TempDir()
	hooks := []*capture{{}, {}}
	var parts []*Partition
	for i := int32(1); i <= 2; i++ {
		p, err := Open(Config{ID: i, Count: 2, DataDir: dir, NoSync: true, Defs: defs, Hooks: hooks[i-1]})
		if err != nil {
			t.Fatal(err)
		}
		go p.Run()
		t.Cleanup(func() { p.Close() })
		parts = append(parts, p)
	}
	p1, p2 := parts[0], parts[1]
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	key := "k0"
	for i := 1; MessagePartition(key, 2) != 2; i++ {
		key = fmt.Sprintf("k%d", i)
	}
	if _, err := p1.Submit(ctx, &Command{Op: OpDeploy, Resources: []Resource{{Name: "p.bpmn", Content: []byte(catchBPMN)}}}); err != nil {
		t.Fatal(err)
	}
	var inst []int64
	for i := 0; i < 2; i++ {
		r, err := p1.Submit(ctx, &Command{Op: OpCreate, BpmnProcessID: "p", Version: -1, Variables: fmt.Sprintf(`{"k": %q}`, key)})
		if err != nil {
			t.Fatal(err)
		}
		inst = append(inst, r.(interface{ GetProcessInstanceKey() int64 }).GetProcessInstanceKey())
		open := hooks[0].take(t, OpSubOpen)
		p2.Post(open.c)
	}
	if _, err := p2.Submit(ctx, &Command{Op: OpPublish, Name: "go", CorrelationKey: key, TTL: 60_000}); err != nil {
		t.Fatal(err)
	}
	toFirst := hooks[1].take(t, OpSubCorrelate) // to the older subscription: instance 0
	if _, err := p1.Submit(ctx, &Command{Op: OpCancel, Key: inst[0]}); err != nil {
		t.Fatal(err)
	}
	closeCmd := hooks[0].take(t, OpSubClose)
	if len(closeCmd.c.Consumed) != 0 {
		t.Fatalf("a canceled instance consumed %v", closeCmd.c.Consumed)
	}
	p2.Post(closeCmd.c)
	toSecond := hooks[1].take(t, OpSubCorrelate)
	if toSecond.c.Msg != toFirst.c.Msg || toSecond.c.Key == toFirst.c.Key {
		t.Fatalf("re-routed correlation %+v after %+v", toSecond.c, toFirst.c)
	}
	if _, err := p1.Submit(ctx, toFirst.c); err == nil {
		t.Fatal("the correlation to the canceled instance was accepted")
	}
	if _, err := p1.Submit(ctx, toSecond.c); err != nil {
		t.Fatalf("correlation to the second instance: %v", err)
	}
	jobs := 0
	p1.Query(ctx, func(s *State) {
		for _, j := range s.Jobs {
			if j.Type == "after" {
				jobs++
				if j.InstanceKey != inst[1] {
					t.Errorf("job of instance %d, want %d", j.InstanceKey, inst[1])
				}
			}
		}
	})
	if jobs != 1 {
		t.Fatalf("%d instances continued, want 1", jobs)
	}
}
