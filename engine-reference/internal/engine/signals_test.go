package engine

import (
	"os"
	"strings"
	"testing"
	"time"

	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Signals, event-based gateways and catch-event output mappings in one
// in-process engine (partition.VerifyResults on: after every batch the
// results records alone must rebuild the live state), across a clean
// restart (snapshot) in the middle. The corpus cases run the same models
// against a killed (-9) dev process and a cluster.
func TestSignalsEventGatewaysAndMappingsRecover(t *testing.T) {
	dir := t.TempDir()
	en := start(t, Config{DataDir: dir})
	var res []*pb.Resource
	for _, f := range []string{"signal-catch-and-boundary/catch.bpmn", "signal-catch-and-boundary/boundary.bpmn",
		"signal-throw-and-end/thrower.bpmn", "signal-throw-and-end/listener.bpmn",
		"event-based-gateway-message-wins/gateway.bpmn", "catch-event-output-mappings/flow.bpmn",
		"catch-event-output-mappings/starts.bpmn"} {
		b, err := os.ReadFile("../../corpus/" + f)
		if err != nil {
			t.Fatal(err)
		}
		res = append(res, &pb.Resource{Name: strings.ReplaceAll(f, "/", "-"), Content: b})
	}
	if _, err := en.gw.DeployResource(ctx(t), &pb.DeployResourceRequest{Resources: res}); err != nil {
		t.Fatal(err)
	}
	broadcast := func(en *env, name, vars string) {
		t.Helper()
		r, err := en.gw.BroadcastSignal(ctx(t), &pb.BroadcastSignalRequest{SignalName: name, Variables: vars})
		if err != nil || r.Key <= 0 || r.TenantId != "<default>" {
			t.Fatalf("broadcast %s: %v %v", name, r, err)
		}
	}
	one := func(en *env, typ string) *pb.ActivatedJob {
		t.Helper()
		var jobs []*pb.ActivatedJob
		eventually(t, 5*time.Second, "a job of type "+typ, func() bool {
			jobs = en.activate(typ, 10, -1)
			return len(jobs) > 0
		})
		if len(jobs) != 1 {
			t.Fatalf("%d jobs of type %s", len(jobs), typ)
		}
		return jobs[0]
	}
	complete := func(en *env, j *pb.ActivatedJob) {
		t.Helper()
		if _, err := en.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: j.Key}); err != nil {
			t.Fatal(err)
		}
	}
	en.create("corpus-signal-catch", `{"orderId":"x1"}`)
	en.create("corpus-signal-boundary", `{"n":1}`)
	en.create("corpus-event-gateway-message", `{"orderId":"ebm-x"}`)
	en.create("corpus-signal-listener", `{"who":"l"}`)
	en.create("corpus-catch-mappings", `{"orderId":"com-x"}`)
	broadcast(en, "corpus-sc-ping", `{"ping":1}`)
	complete(en, one(en, "corpus-sc-pinged"))
	// a message for the instance with output mappings, before the restart
	if _, err := en.gw.PublishMessage(ctx(t), &pb.PublishMessageRequest{Name: "corpus-com-paid", CorrelationKey: "com-x",
		TimeToLive: 60000, Variables: `{"amount":5,"card":{"last4":"1111"}}`}); err != nil {
		t.Fatal(err)
	}
	if _, err := en.gw.BroadcastSignal(ctx(t), &pb.BroadcastSignalRequest{SignalName: " "}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("blank signal name: %v", err)
	}
	if _, err := en.gw.BroadcastSignal(ctx(t), &pb.BroadcastSignalRequest{SignalName: "x", Variables: "[1]"}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("variables not an object: %v", err)
	}

	en.conn.Close()
	en.e.Close()
	en = start(t, Config{DataDir: dir})

	broadcast(en, "corpus-sc-x1", `{"approved":true}`)
	if j := one(en, "corpus-sc-after"); !strings.Contains(j.Variables, `"approved":true`) {
		t.Fatalf("catch event: %s", j.Variables)
	} else {
		complete(en, j)
	}
	// the gateway's signal wins: its message subscription and timer go
	broadcast(en, "corpus-ebm-cancel", `{"reason":"late"}`)
	complete(en, one(en, "corpus-ebm-refund"))
	if _, err := en.gw.PublishMessage(ctx(t), &pb.PublishMessageRequest{Name: "corpus-ebm-paid", CorrelationKey: "ebm-x"}); err != nil {
		t.Fatal(err)
	}
	if jobs := en.activate("corpus-ebm-ship", 10, -1); len(jobs) != 0 {
		t.Fatalf("the message after the gateway's signal moved the instance: %v", jobs)
	}
	// a thrown signal reaches the listener; the end event's starts a process
	en.create("corpus-signal-thrower", `{"orderId":"t-x","total":2}`)
	complete(en, one(en, "corpus-st-heard"))
	complete(en, one(en, "corpus-st-after-throw"))
	complete(en, one(en, "corpus-st-finished"))
	if j := one(en, "corpus-st-started"); j.Variables != `{"sum":2}` {
		t.Fatalf("signal start from an end event: %s", j.Variables)
	}
	// the mapped message (before the restart), then signal and timer
	broadcast(en, "corpus-com-alert", `{"level":1,"noise":1}`)
	j := one(en, "corpus-com-work")
	for _, want := range []string{`"doubled":10`, `"last4":"1111"`, `"alert":{"level":1}`, `"timerState":"fired"`} {
		if !strings.Contains(j.Variables, want) {
			t.Fatalf("work variables %s lack %s", j.Variables, want)
		}
	}
	if strings.Contains(j.Variables, "noise") || strings.Contains(j.Variables, "amount") {
		t.Fatalf("unmapped event variables reached the instance: %s", j.Variables)
	}
	broadcast(en, "corpus-sc-stop", `{}`)
	complete(en, one(en, "corpus-sc-stopped"))
	if jobs := en.activate("corpus-sc-work", 10, -1); len(jobs) != 0 {
		t.Fatalf("the interrupted task's job is still there")
	}
}

// A receive task's input mappings are its local variables (its correlation
// key may use them) and its output mappings decide what the message sets.
func TestReceiveTaskMappings(t *testing.T) {
	en := start(t, Config{})
	bpmn := `<?xml version="1.0"?><bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d">
<bpmn:message id="m" name="rt-paid"><bpmn:extensionElements><zeebe:subscription correlationKey="=key"/></bpmn:extensionElements></bpmn:message>
<bpmn:process id="rt-mapped" isExecutable="true"><bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="r"/>
<bpmn:receiveTask id="r" messageRef="m"><bpmn:extensionElements><zeebe:ioMapping><zeebe:input source="=&quot;rt-&quot; + orderId" target="key"/>
<zeebe:output source="=amount + 1" target="paid"/></zeebe:ioMapping></bpmn:extensionElements></bpmn:receiveTask>
<bpmn:sequenceFlow id="f2" sourceRef="r" targetRef="t"/><bpmn:serviceTask id="t"><bpmn:extensionElements><zeebe:taskDefinition type="rt-after"/></bpmn:extensionElements></bpmn:serviceTask>
<bpmn:sequenceFlow id="f3" sourceRef="t" targetRef="e"/><bpmn:endEvent id="e"/></bpmn:process></bpmn:definitions>`
	en.deploy("rt.bpmn", []byte(bpmn))
	en.create("rt-mapped", `{"orderId":"7"}`)
	if _, err := en.gw.PublishMessage(ctx(t), &pb.PublishMessageRequest{Name: "rt-paid", CorrelationKey: "rt-7", TimeToLive: 60000,
		Variables: `{"amount":41}`}); err != nil {
		t.Fatal(err)
	}
	var jobs []*pb.ActivatedJob
	eventually(t, 5*time.Second, "the job after the receive task", func() bool {
		jobs = en.activate("rt-after", 10, -1)
		return len(jobs) > 0
	})
	if jobs[0].Variables != `{"orderId":"7","paid":42}` {
		t.Fatalf("variables after the receive task: %s", jobs[0].Variables)
	}
}
