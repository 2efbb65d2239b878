package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Message and timer events through the gateway protocol (timers.go and
// messages.go in internal/partition).

// proc wraps process elements into a deployable BPMN file; messages are
// given as name → correlation key expression (message id "m-<name>").
func proc(id string, messages map[string]string, body string) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
`)
	for name, key := range messages {
		if key == "" {
			fmt.Fprintf(&b, "  <bpmn:message id=\"m-%s\" name=\"%s\"/>\n", name, name)
			continue
		}
		fmt.Fprintf(&b, "  <bpmn:message id=\"m-%s\" name=\"%s\"><bpmn:extensionElements><zeebe:subscription correlationKey=\"%s\"/></bpmn:extensionElements></bpmn:message>\n", name, name, key)
	}
	fmt.Fprintf(&b, "  <bpmn:process id=\"%s\" isExecutable=\"true\">\n%s\n  </bpmn:process>\n</bpmn:definitions>\n", id, body)
	return []byte(b.String())
}

func task(id, typ string) string {
	return fmt.Sprintf(`<bpmn:serviceTask id="%s"><bpmn:extensionElements><zeebe:taskDefinition type="%s"/></bpmn:extensionElements></bpmn:serviceTask>`, id, typ)
}

func flow(id, from, to string) string {
	return fmt.Sprintf(`<bpmn:sequenceFlow id="%s" sourceRef="%s" targetRef="%s"/>`, id, from, to)
}

func timerDef(kind, value string) string {
	return fmt.Sprintf(`<bpmn:timerEventDefinition><bpmn:%s>%s</bpmn:%s></bpmn:timerEventDefinition>`, kind, value, kind)
}

func (en *env) publish(name, key, vars string, ttl int64, id string) (*pb.PublishMessageResponse, error) {
	return en.gw.PublishMessage(ctx(en.t), &pb.PublishMessageRequest{Name: name, CorrelationKey: key, Variables: vars, TimeToLive: ttl, MessageId: id})
}

func (en *env) mustPublish(name, key, vars string, ttl int64) {
	en.t.Helper()
	if _, err := en.publish(name, key, vars, ttl, ""); err != nil {
		en.t.Fatalf("publish %s/%s: %v", name, key, err)
	}
}

// waitJob long-polls for exactly one job of a type.
func waitJob(t *testing.T, en *env, typ string, within time.Duration) *pb.ActivatedJob {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if jobs := en.activate(typ, 1, 200); len(jobs) == 1 {
			return jobs[0]
		}
	}
	t.Fatalf("no job of type %s within %v", typ, within)
	return nil
}

func noJob(t *testing.T, en *env, typ string, wait time.Duration) {
	t.Helper()
	if jobs := en.activate(typ, 10, wait.Milliseconds()); len(jobs) != 0 {
		t.Fatalf("want no job of type %s, got %d", typ, len(jobs))
	}
}

func jsonVars(t *testing.T, s string) map[string]any {
	t.Helper()
	m := map[string]any{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("variables %q: %v", s, err)
	}
	return m
}

func waitState(t *testing.T, en *env, key int64, want apb.ProcessInstanceState) {
	t.Helper()
	eventually(t, 10*time.Second, fmt.Sprintf("instance %d in %v", key, want), func() bool { return instanceState(t, en, key) == want })
}

const (
	active    = apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_ACTIVE
	completed = apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_COMPLETED
)

var catchMsg = proc("catch", map[string]string{"paid": "=orderId"}, strings.Join([]string{
	`<bpmn:startEvent id="s"/>`, flow("f1", "s", "wait"),
	`<bpmn:intermediateCatchEvent id="wait"><bpmn:messageEventDefinition messageRef="m-paid"/></bpmn:intermediateCatchEvent>`,
	flow("f2", "wait", "ship"), task("ship", "ship"), flow("f3", "ship", "e"), `<bpmn:endEvent id="e"/>`}, "\n"))

// Instances on every partition wait for messages whose correlation keys
// hash to every partition: each message reaches its own instance only,
// with its variables.
func TestMessageCatchAcrossPartitions(t *testing.T) {
	en := start(t, Config{NoSync: true, Partitions: 3})
	en.deploy("catch.bpmn", catchMsg)
	keys := map[string]int64{}
	parts := map[string]bool{}
	for i := 0; i < 6; i++ {
		id := fmt.Sprintf("order-%d", i)
		keys[id] = en.create("catch", fmt.Sprintf(`{"orderId": %q}`, id))
		parts[fmt.Sprintf("%d->%d", partition.PartitionOf(keys[id]), partition.MessagePartition(id, 3))] = true
	}
	if len(parts) < 3 {
		t.Fatalf("test set-up: want instance/message partition pairs to differ, got %v", parts)
	}
	noJob(t, en, "ship", 300*time.Millisecond)
	for i := 0; i < 6; i++ {
		id := fmt.Sprintf("order-%d", i)
		en.mustPublish("paid", id, fmt.Sprintf(`{"amount": %d}`, i), 0)
		j := waitJob(t, en, "ship", 5*time.Second)
		if j.ProcessInstanceKey != keys[id] {
			t.Fatalf("message %s continued instance %d, want %d", id, j.ProcessInstanceKey, keys[id])
		}
		v := jsonVars(t, j.Variables)
		if v["amount"] != float64(i) || v["orderId"] != id {
			t.Fatalf("job variables %v", v)
		}
		complete(t, en, j.Key, "")
		waitState(t, en, keys[id], completed)
	}
}

// A message published before the subscription opens is buffered for its
// TTL; with TTL 0 or after the TTL it is gone.
func TestMessageBufferedWithinTTL(t *testing.T) {
	en := start(t, Config{NoSync: true, Partitions: 2})
	en.deploy("catch.bpmn", catchMsg)
	en.mustPublish("paid", "early", `{"p": 1}`, 60_000)
	k := en.create("catch", `{"orderId": "early"}`)
	j := waitJob(t, en, "ship", 5*time.Second)
	if j.ProcessInstanceKey != k || jsonVars(t, j.Variables)["p"] != float64(1) {
		t.Fatalf("buffered message: job %v", j)
	}
	// The buffered message correlated once to this process: a second
	// instance with the same key does not get it again.
	k2 := en.create("catch", `{"orderId": "early"}`)
	noJob(t, en, "ship", 500*time.Millisecond)

	en.mustPublish("paid", "ttl0", "", 0)
	k3 := en.create("catch", `{"orderId": "ttl0"}`)
	en.mustPublish("paid", "short", "", 300)
	time.Sleep(600 * time.Millisecond)
	k4 := en.create("catch", `{"orderId": "short"}`)
	noJob(t, en, "ship", 700*time.Millisecond)
	for _, k := range []int64{k2, k3, k4} {
		if s := instanceState(t, en, k); s != active {
			t.Fatalf("instance %d: %v, want still waiting", k, s)
		}
	}
	en.mustPublish("paid", "short", "", 0)
	if j := waitJob(t, en, "ship", 5*time.Second); j.ProcessInstanceKey != k4 {
		t.Fatalf("late message continued %d, want %d", j.ProcessInstanceKey, k4)
	}
}

// One message correlates to one subscription per process: two instances
// waiting for the same name and key take one message each, oldest first.
func TestMessageOncePerProcess(t *testing.T) {
	en := start(t, Config{NoSync: true, Partitions: 3})
	en.deploy("catch.bpmn", catchMsg)
	a := en.create("catch", `{"orderId": "same"}`)
	time.Sleep(50 * time.Millisecond)
	b := en.create("catch", `{"orderId": "same"}`)
	eventually(t, 5*time.Second, "subscriptions open", func() bool { return true })
	time.Sleep(200 * time.Millisecond) // both subscriptions reach the message partition
	en.mustPublish("paid", "same", "", 0)
	j := waitJob(t, en, "ship", 5*time.Second)
	noJob(t, en, "ship", 500*time.Millisecond)
	if j.ProcessInstanceKey != a {
		t.Fatalf("first message went to %d, want the older subscription %d", j.ProcessInstanceKey, a)
	}
	en.mustPublish("paid", "same", "", 0)
	if j := waitJob(t, en, "ship", 5*time.Second); j.ProcessInstanceKey != b {
		t.Fatalf("second message went to %d, want %d", j.ProcessInstanceKey, b)
	}
}

func TestMessageIDDuplicate(t *testing.T) {
	en := start(t, Config{NoSync: true})
	if _, err := en.publish("paid", "k", "", 10_000, "id-1"); err != nil {
		t.Fatal(err)
	}
	_, err := en.publish("paid", "k", "", 10_000, "id-1")
	if status.Code(err) != codes.AlreadyExists {
		t.Fatalf("duplicate message id: %v, want ALREADY_EXISTS", err)
	}
	if _, err := en.publish("paid", "other", "", 10_000, "id-1"); err != nil {
		t.Fatalf("same id, other correlation key: %v", err)
	}
}

// A message start event starts one instance per message, with the
// message's variables; not a second one for the same correlation key
// while the first is active.
func TestMessageStartEvent(t *testing.T) {
	en := start(t, Config{NoSync: true, Partitions: 3})
	en.deploy("ms.bpmn", proc("ms", map[string]string{"order": ""}, strings.Join([]string{
		`<bpmn:startEvent id="s"><bpmn:messageEventDefinition messageRef="m-order"/></bpmn:startEvent>`,
		flow("f1", "s", "t"), task("t", "handle"), flow("f2", "t", "e"), `<bpmn:endEvent id="e"/>`}, "\n")))
	_, err := en.gw.CreateProcessInstance(ctx(t), &pb.CreateProcessInstanceRequest{BpmnProcessId: "ms", Version: -1})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("create on a process without none start event: %v", err)
	}
	en.mustPublish("order", "o-1", `{"item": "book"}`, 0)
	j := waitJob(t, en, "handle", 5*time.Second)
	if jsonVars(t, j.Variables)["item"] != "book" {
		t.Fatalf("message variables not on the instance: %s", j.Variables)
	}
	en.mustPublish("order", "o-1", `{"item": "no ttl"}`, 0)
	en.mustPublish("order", "o-1", `{"item": "buffered"}`, 60_000)
	noJob(t, en, "handle", 500*time.Millisecond)
	en.mustPublish("order", "o-2", `{"item": "pen"}`, 0)
	j2 := waitJob(t, en, "handle", 5*time.Second)
	if jsonVars(t, j2.Variables)["item"] != "pen" {
		t.Fatalf("second instance: %s", j2.Variables)
	}
	// When the instance of o-1 ends, the buffered message for o-1 (the one
	// with a TTL) starts the next instance.
	complete(t, en, j.Key, "")
	waitState(t, en, j.ProcessInstanceKey, completed)
	j3 := waitJob(t, en, "handle", 5*time.Second)
	if jsonVars(t, j3.Variables)["item"] != "buffered" {
		t.Fatalf("after the first completed, the buffered message starts the next instance: %s", j3.Variables)
	}
	// Canceling that instance does the same for the next buffered message.
	en.mustPublish("order", "o-1", `{"item": "fourth"}`, 60_000)
	noJob(t, en, "handle", 300*time.Millisecond)
	if _, err := en.gw.CancelProcessInstance(ctx(t), &pb.CancelProcessInstanceRequest{ProcessInstanceKey: j3.ProcessInstanceKey}); err != nil {
		t.Fatal(err)
	}
	if j4 := waitJob(t, en, "handle", 5*time.Second); jsonVars(t, j4.Variables)["item"] != "fourth" {
		t.Fatalf("after a cancel: %s", j4.Variables)
	}
	noJob(t, en, "handle", 300*time.Millisecond)
}

func boundaryProc(id, attached, boundary string, interrupting bool) []byte {
	ci := ""
	if !interrupting {
		ci = ` cancelActivity="false"`
	}
	return proc(id, map[string]string{"cancel": "=orderId", "ping": "=orderId", "done": "=orderId"}, strings.Join([]string{
		`<bpmn:startEvent id="s"/>`, flow("f1", "s", "work"), attached, flow("f2", "work", "e"), `<bpmn:endEvent id="e"/>`,
		fmt.Sprintf(`<bpmn:boundaryEvent id="b" attachedToRef="work"%s>%s</bpmn:boundaryEvent>`, ci, boundary),
		flow("f3", "b", "side"), task("side", "side"), flow("f4", "side", "e2"), `<bpmn:endEvent id="e2"/>`}, "\n"))
}

// An interrupting message boundary event cancels the task's job and takes
// the other path; the message variables reach the instance.
func TestMessageBoundaryInterrupting(t *testing.T) {
	en := start(t, Config{NoSync: true, Partitions: 3})
	en.deploy("mb.bpmn", boundaryProc("mb", task("work", "work"), `<bpmn:messageEventDefinition messageRef="m-cancel"/>`, true))
	k := en.create("mb", `{"orderId": "x-1"}`)
	j := waitJob(t, en, "work", 5*time.Second)
	en.mustPublish("cancel", "x-1", `{"reason": "customer"}`, 0)
	side := waitJob(t, en, "side", 5*time.Second)
	if side.ProcessInstanceKey != k || jsonVars(t, side.Variables)["reason"] != "customer" {
		t.Fatalf("side job %v", side)
	}
	_, err := en.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: j.Key})
	if status.Code(err) != codes.NotFound {
		t.Fatalf("completing the interrupted task's job: %v, want NOT_FOUND", err)
	}
	complete(t, en, side.Key, "")
	waitState(t, en, k, completed)
}

// A non-interrupting message boundary event takes every message while the
// task runs (each starts a token); the task still completes normally.
func TestMessageBoundaryNonInterrupting(t *testing.T) {
	en := start(t, Config{NoSync: true, Partitions: 3})
	en.deploy("mn.bpmn", boundaryProc("mn", task("work", "work"), `<bpmn:messageEventDefinition messageRef="m-ping"/>`, false))
	k := en.create("mn", `{"orderId": "n-1"}`)
	j := waitJob(t, en, "work", 5*time.Second)
	time.Sleep(200 * time.Millisecond)
	for i := 0; i < 2; i++ {
		en.mustPublish("ping", "n-1", fmt.Sprintf(`{"n": %d}`, i), 0)
		s := waitJob(t, en, "side", 5*time.Second)
		complete(t, en, s.Key, "")
	}
	complete(t, en, j.Key, "")
	waitState(t, en, k, completed)
	// The subscription ended with the task: a late message is not buffered
	// into anything.
	en.mustPublish("ping", "n-1", "", 0)
	noJob(t, en, "side", 300*time.Millisecond)
}

// A receive task waits for its message; a timer boundary on it fires when
// the message does not come.
func TestReceiveTask(t *testing.T) {
	en := start(t, Config{NoSync: true, Partitions: 2})
	en.deploy("rt.bpmn", boundaryProc("rt", `<bpmn:receiveTask id="work" messageRef="m-done"/>`, timerDef("timeDuration", "PT1S"), true))
	k1 := en.create("rt", `{"orderId": "r-1"}`)
	k2 := en.create("rt", `{"orderId": "r-2"}`)
	time.Sleep(100 * time.Millisecond)
	en.mustPublish("done", "r-1", `{"ok": true}`, 0)
	waitState(t, en, k1, completed)
	side := waitJob(t, en, "side", 5*time.Second) // r-2's timer
	if side.ProcessInstanceKey != k2 {
		t.Fatalf("timer fired for %d, want %d", side.ProcessInstanceKey, k2)
	}
	en.mustPublish("done", "r-2", "", 0) // the receive task was interrupted
	complete(t, en, side.Key, "")
	waitState(t, en, k2, completed)
	if v := instanceVars(t, en, k1); v["ok"] != true {
		t.Fatalf("receive task: message variables %v", v)
	}
}

func instanceVars(t *testing.T, en *env, key int64) map[string]any {
	for _, in := range en.instances("").Instances {
		if in.Key == key {
			return jsonVars(t, in.Variables)
		}
	}
	t.Fatalf("instance %d not found", key)
	return nil
}

func TestIntermediateTimer(t *testing.T) {
	en := start(t, Config{NoSync: true})
	en.deploy("it.bpmn", proc("it", nil, strings.Join([]string{
		`<bpmn:startEvent id="s"/>`, flow("f1", "s", "wait"),
		`<bpmn:intermediateCatchEvent id="wait">` + timerDef("timeDuration", "=delay") + `</bpmn:intermediateCatchEvent>`,
		flow("f2", "wait", "t"), task("t", "after"), flow("f3", "t", "e"), `<bpmn:endEvent id="e"/>`}, "\n")))
	began := time.Now()
	k := en.create("it", `{"delay": "PT0.5S"}`)
	j := waitJob(t, en, "after", 5*time.Second)
	if el := time.Since(began); el < 450*time.Millisecond {
		t.Fatalf("timer fired after %v, before its 0.5 s", el)
	}
	if j.ProcessInstanceKey != k {
		t.Fatal("wrong instance")
	}
	// A bad duration expression value is an incident, not a crash.
	k2 := en.create("it", `{"delay": "soon"}`)
	eventually(t, 5*time.Second, "incident", func() bool {
		for _, in := range en.instances("it").Instances {
			if in.Key == k2 {
				return in.IncidentCount == 1
			}
		}
		return false
	})
}

// Interrupting timer boundary vs CompleteJob: whichever the partition
// processes first wins; the other has no effect.
func TestTimerBoundaryVersusComplete(t *testing.T) {
	en := start(t, Config{NoSync: true, Partitions: 1})
	en.deploy("tb.bpmn", boundaryProc("tb", task("work", "work"), timerDef("timeDuration", "PT1S"), true))
	// Completion first: the timer is canceled with the task.
	k1 := en.create("tb", "")
	j1 := waitJob(t, en, "work", 5*time.Second)
	complete(t, en, j1.Key, `{"done": 1}`)
	waitState(t, en, k1, completed)
	// Timer first: the job is canceled, its completion is NOT_FOUND.
	k2 := en.create("tb", "")
	j2 := waitJob(t, en, "work", 5*time.Second)
	side := waitJob(t, en, "side", 5*time.Second)
	if side.ProcessInstanceKey != k2 {
		t.Fatalf("side job of %d, want %d", side.ProcessInstanceKey, k2)
	}
	if _, err := en.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: j2.Key}); status.Code(err) != codes.NotFound {
		t.Fatalf("complete after the timer: %v, want NOT_FOUND", err)
	}
	// k1's timer never fires a side job.
	noJob(t, en, "side", 300*time.Millisecond)
	complete(t, en, side.Key, "")
	waitState(t, en, k2, completed)
	// Race many pairs: every instance ends exactly one way.
	var keys []int64
	var jobs []*pb.ActivatedJob
	for i := 0; i < 10; i++ {
		keys = append(keys, en.create("tb", ""))
	}
	for len(jobs) < 10 {
		jobs = append(jobs, en.activate("work", 10, 1000)...)
	}
	time.Sleep(900 * time.Millisecond)
	won := 0
	for _, j := range jobs {
		if _, err := en.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: j.Key}); err == nil {
			won++
		} else if status.Code(err) != codes.NotFound {
			t.Fatalf("complete: %v", err)
		}
	}
	sides := 0
	deadline := time.Now().Add(3 * time.Second)
	for sides < 10-won && time.Now().Before(deadline) {
		for _, s := range en.activate("side", 10, 200) {
			complete(t, en, s.Key, "")
			sides++
		}
	}
	noJob(t, en, "side", 300*time.Millisecond)
	if won+sides != 10 {
		t.Fatalf("completions %d + timer paths %d != 10", won, sides)
	}
	for _, k := range keys {
		waitState(t, en, k, completed)
		for _, in := range en.instances("tb").Instances {
			if in.Key == k && in.CompletionCount != 1 {
				t.Fatalf("instance %d completed %d times", k, in.CompletionCount)
			}
		}
	}
}

// A non-interrupting cycle timer fires its N repetitions while the task
// runs, then stops.
func TestTimerBoundaryCycle(t *testing.T) {
	en := start(t, Config{NoSync: true})
	en.deploy("tc.bpmn", boundaryProc("tc", task("work", "work"), timerDef("timeCycle", "R3/PT0.3S"), false))
	k := en.create("tc", "")
	j := waitJob(t, en, "work", 5*time.Second)
	n := 0
	deadline := time.Now().Add(5 * time.Second)
	for n < 3 && time.Now().Before(deadline) {
		for _, s := range en.activate("side", 10, 200) {
			complete(t, en, s.Key, "")
			n++
		}
	}
	if n != 3 {
		t.Fatalf("cycle fired %d times, want 3", n)
	}
	noJob(t, en, "side", 600*time.Millisecond)
	if s := instanceState(t, en, k); s != active {
		t.Fatalf("state %v", s)
	}
	complete(t, en, j.Key, "")
	waitState(t, en, k, completed)
}

// A timer start event with a cycle creates one instance per repetition.
func TestTimerStartCycle(t *testing.T) {
	en := start(t, Config{NoSync: true, Partitions: 2})
	en.deploy("ts.bpmn", proc("ts", nil, strings.Join([]string{
		`<bpmn:startEvent id="s">` + timerDef("timeCycle", "R2/PT0.4S") + `</bpmn:startEvent>`,
		flow("f1", "s", "t"), task("t", "tick"), flow("f2", "t", "e"), `<bpmn:endEvent id="e"/>`}, "\n")))
	seen := map[int64]bool{}
	deadline := time.Now().Add(5 * time.Second)
	for len(seen) < 2 && time.Now().Before(deadline) {
		for _, j := range en.activate("tick", 10, 200) {
			seen[j.ProcessInstanceKey] = true
			complete(t, en, j.Key, "")
		}
	}
	if len(seen) != 2 {
		t.Fatalf("timer start created %d instances, want 2", len(seen))
	}
	noJob(t, en, "tick", 800*time.Millisecond)
	// A timer date start event in the past fires at once.
	en.deploy("td.bpmn", proc("td", nil, strings.Join([]string{
		`<bpmn:startEvent id="s">` + timerDef("timeDate", "2020-01-01T00:00:00Z") + `</bpmn:startEvent>`,
		flow("f1", "s", "t"), task("t", "dated"), flow("f2", "t", "e"), `<bpmn:endEvent id="e"/>`}, "\n")))
	waitJob(t, en, "dated", 5*time.Second)
	noJob(t, en, "dated", 300*time.Millisecond)
}

// Deploy-time validation of the new elements.
func TestEventDeployErrors(t *testing.T) {
	en := start(t, Config{NoSync: true, Partitions: 1})
	cases := map[string][]byte{
		"bad duration": proc("x", nil, `<bpmn:startEvent id="s"/>`+flow("f", "s", "w")+
			`<bpmn:intermediateCatchEvent id="w">`+timerDef("timeDuration", "5 seconds")+`</bpmn:intermediateCatchEvent>`+flow("g", "w", "e")+`<bpmn:endEvent id="e"/>`),
		"cycle on interrupting boundary": boundaryProc("y", task("work", "work"), timerDef("timeCycle", "R2/PT1S"), true),
		"no correlation key": proc("z", map[string]string{"m": ""}, `<bpmn:startEvent id="s"/>`+flow("f", "s", "w")+
			`<bpmn:intermediateCatchEvent id="w"><bpmn:messageEventDefinition messageRef="m-m"/></bpmn:intermediateCatchEvent>`+flow("g", "w", "e")+`<bpmn:endEvent id="e"/>`),
		"undefined message": proc("u", nil, `<bpmn:startEvent id="s"/>`+flow("f", "s", "w")+
			`<bpmn:receiveTask id="w" messageRef="nope"/>`+flow("g", "w", "e")+`<bpmn:endEvent id="e"/>`),
	}
	for name, b := range cases {
		_, err := en.gw.DeployResource(ctx(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "x.bpmn", Content: b}}})
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "line") {
			t.Errorf("%s: %v, want INVALID_ARGUMENT naming the line", name, err)
		}
	}
}

// A pending timer and an open message subscription survive a restart:
// once after a clean shutdown (snapshot) and once from a crash-consistent
// copy of the data directory (log replay without snapshot).
func TestEventsSurviveRestart(t *testing.T) {
	for _, mode := range []string{"snapshot", "replay"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			e1, err := Start(Config{DataDir: dir, Partitions: 3})
			if err != nil {
				t.Fatal(err)
			}
			_, gw, _ := dial(t, e1.Addr())
			en1 := &env{t: t, e: e1, gw: gw}
			en1.deploy("catch.bpmn", catchMsg)
			en1.deploy("it.bpmn", proc("it", nil, strings.Join([]string{
				`<bpmn:startEvent id="s"/>`, flow("f1", "s", "wait"),
				`<bpmn:intermediateCatchEvent id="wait">` + timerDef("timeDuration", "PT1.5S") + `</bpmn:intermediateCatchEvent>`,
				flow("f2", "wait", "t"), task("t", "after"), flow("f3", "t", "e"), `<bpmn:endEvent id="e"/>`}, "\n")))
			var msgKeys []int64
			for i := 0; i < 4; i++ {
				msgKeys = append(msgKeys, en1.create("catch", fmt.Sprintf(`{"orderId": "r%d"}`, i)))
			}
			tk := en1.create("it", "")
			// A message published before a process with a matching message
			// start event was deployed starts nothing, also on replay (the
			// partition replays with every definition already registered).
			lsKey := "ls-0" // on another partition than the deployment (partition 1 replays first)
			for i := 1; partition.MessagePartition(lsKey, 3) == 1; i++ {
				lsKey = fmt.Sprintf("ls-%d", i)
			}
			en1.mustPublish("late-start", lsKey, "", 0)
			en1.deploy("ls.bpmn", proc("ls", map[string]string{"late-start": ""}, strings.Join([]string{
				`<bpmn:startEvent id="s"><bpmn:messageEventDefinition messageRef="m-late-start"/></bpmn:startEvent>`,
				flow("f1", "s", "t"), task("t", "late-started"), flow("f2", "t", "e"), `<bpmn:endEvent id="e"/>`}, "\n")))
			time.Sleep(200 * time.Millisecond) // subscriptions reach their message partitions
			dir2 := dir
			if mode == "replay" {
				dir2 = t.TempDir()
				copyDir(t, dir, dir2)
			}
			e1.Close()
			e2, err := Start(Config{DataDir: dir2, Partitions: 3})
			if err != nil {
				t.Fatal(err)
			}
			conn, gw2, admin2 := dial(t, e2.Addr())
			_ = conn
			en := &env{t: t, e: e2, gw: gw2, admin: admin2}
			t.Cleanup(func() { e2.Close() })
			noJob(t, en, "late-started", 200*time.Millisecond)
			j := waitJob(t, en, "after", 5*time.Second)
			if j.ProcessInstanceKey != tk {
				t.Fatal("timer of another instance")
			}
			for i, k := range msgKeys {
				en.mustPublish("paid", fmt.Sprintf("r%d", i), "", 0)
				if s := waitJob(t, en, "ship", 5*time.Second); s.ProcessInstanceKey != k {
					t.Fatalf("message r%d continued %d, want %d", i, s.ProcessInstanceKey, k)
				}
			}
		})
	}
}

// BenchmarkMessageCorrelation: N instances on 3 partitions wait for a
// message each; N messages are published (8 publishers); it reports
// messages correlated per second, until every waiting instance has its
// job (go test ./internal/engine -run '^$' -bench MessageCorrelation).
func BenchmarkMessageCorrelation(b *testing.B) {
	t := &testing.T{}
	e, err := Start(Config{NoSync: true, Partitions: 3, DataDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	_, gw, admin := dial(t, e.Addr())
	en := &env{t: t, e: e, gw: gw, admin: admin}
	if _, err := gw.DeployResource(context.Background(), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "c.bpmn", Content: catchMsg}}}); err != nil {
		b.Fatal(err)
	}
	n := 2000
	for i := 0; i < n; i++ {
		if _, err := gw.CreateProcessInstance(context.Background(), &pb.CreateProcessInstanceRequest{BpmnProcessId: "catch", Version: -1,
			Variables: fmt.Sprintf(`{"orderId": "b-%d"}`, i)}); err != nil {
			b.Fatal(err)
		}
	}
	time.Sleep(500 * time.Millisecond)
	b.ResetTimer()
	began := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				gw.PublishMessage(context.Background(), &pb.PublishMessageRequest{Name: "paid", CorrelationKey: fmt.Sprintf("b-%d", i)})
			}
		}(w)
	}
	wg.Wait()
	published := time.Since(began)
	for {
		r, err := en.admin.ListJobs(context.Background(), &apb.ListJobsRequest{Type: "ship"})
		if err != nil {
			b.Fatal(err)
		}
		var total int64
		for _, c := range r.CountsByState {
			total += c
		}
		if total >= int64(n) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	all := time.Since(began)
	b.ReportMetric(float64(n)/all.Seconds(), "correlations/s")
	b.Logf("%d messages published in %v, all %d instances continued after %v", n, published, n, all)
}
