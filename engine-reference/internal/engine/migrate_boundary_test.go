package engine

import (
	"strings"
	"testing"
	"time"

	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
)

// Boundary events of a migrated task (Zeebe 8.8's catch event migration):
// a mapped timer boundary event keeps its due time and leads to the
// target's path; an unmapped message boundary event is unsubscribed; a
// target message boundary event nothing is mapped to is subscribed.
func TestMigrateBoundaryEvents(t *testing.T) {
	en := start(t, Config{})
	v1 := en.deploy("mb.bpmn", []byte(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
  <bpmn:message id="m-cancel" name="mb-cancel"><bpmn:extensionElements><zeebe:subscription correlationKey="=k"/></bpmn:extensionElements></bpmn:message>
  <bpmn:process id="mb" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="w"/>
    <bpmn:serviceTask id="w"><bpmn:extensionElements><zeebe:taskDefinition type="mb-w"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:boundaryEvent id="late" attachedToRef="w"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
    <bpmn:boundaryEvent id="cancel" attachedToRef="w" cancelActivity="false"><bpmn:messageEventDefinition messageRef="m-cancel"/></bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="w" targetRef="e"/>
    <bpmn:sequenceFlow id="f3" sourceRef="late" targetRef="esc"/>
    <bpmn:sequenceFlow id="f4" sourceRef="cancel" targetRef="note"/>
    <bpmn:serviceTask id="esc"><bpmn:extensionElements><zeebe:taskDefinition type="mb-esc"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:serviceTask id="note"><bpmn:extensionElements><zeebe:taskDefinition type="mb-note"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f5" sourceRef="esc" targetRef="e"/>
    <bpmn:sequenceFlow id="f6" sourceRef="note" targetRef="e"/>
    <bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`))
	v2 := en.deploy("mb.bpmn", []byte(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
  <bpmn:message id="m-new" name="mb-new"><bpmn:extensionElements><zeebe:subscription correlationKey="=k"/></bpmn:extensionElements></bpmn:message>
  <bpmn:process id="mb" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="w2"/>
    <bpmn:serviceTask id="w2"><bpmn:extensionElements><zeebe:taskDefinition type="mb-w"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:boundaryEvent id="late2" attachedToRef="w2"><bpmn:timerEventDefinition><bpmn:timeDuration>PT5H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
    <bpmn:boundaryEvent id="new" attachedToRef="w2" cancelActivity="false"><bpmn:messageEventDefinition messageRef="m-new"/></bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="w2" targetRef="e"/>
    <bpmn:sequenceFlow id="f3" sourceRef="late2" targetRef="esc2"/>
    <bpmn:sequenceFlow id="f4" sourceRef="new" targetRef="note2"/>
    <bpmn:serviceTask id="esc2"><bpmn:extensionElements><zeebe:taskDefinition type="mb-esc2"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:serviceTask id="note2"><bpmn:extensionElements><zeebe:taskDefinition type="mb-note2"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f5" sourceRef="esc2" targetRef="e"/>
    <bpmn:sequenceFlow id="f6" sourceRef="note2" targetRef="e"/>
    <bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`))
	c, err := en.gw.CreateProcessInstance(ctx(t), &pb.CreateProcessInstanceRequest{ProcessDefinitionKey: v1.ProcessDefinitionKey, Variables: `{"k":"k1"}`})
	if err != nil {
		t.Fatal(err)
	}
	pi := c.ProcessInstanceKey
	migrate := func(maps ...*mapping) error {
		_, err := en.gw.MigrateProcessInstance(ctx(t), &pb.MigrateProcessInstanceRequest{ProcessInstanceKey: pi,
			MigrationPlan: &pb.MigrateProcessInstanceRequest_MigrationPlan{TargetProcessDefinitionKey: v2.ProcessDefinitionKey, MappingInstructions: maps}})
		return err
	}
	wantStatus(t, "timer boundary mapped to a message boundary", migrate(maps("w", "w2", "late", "new")...), codes.FailedPrecondition)
	wantStatus(t, "interrupting boundary mapped to a non-interrupting one", migrate(maps("w", "w2", "cancel", "late2")...), codes.FailedPrecondition)
	en.advance(30 * 60 * 1000)
	if err := migrate(maps("w", "w2", "late", "late2")...); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	publish := func(name string) {
		if _, err := en.gw.PublishMessage(ctx(t), &pb.PublishMessageRequest{Name: name, CorrelationKey: "k1"}); err != nil {
			t.Fatal(err)
		}
	}
	publish("mb-cancel") // the unmapped boundary event no longer listens
	publish("mb-new")    // the new one does
	var notes []*pb.ActivatedJob
	eventually(t, 5*time.Second, "the new boundary event's job", func() bool {
		notes = append(notes, en.activate("mb-note2", 10, -1)...)
		return len(notes) > 0
	})
	if n := len(en.activate("mb-note", 10, -1)); n != 0 {
		t.Fatalf("the unmapped message boundary event still correlates: %d jobs", n)
	}
	// The timer keeps its due time (created + 1 h, not migration + 5 h).
	en.advance(31 * 60 * 1000)
	var esc []*pb.ActivatedJob
	eventually(t, 5*time.Second, "the migrated timer's path", func() bool {
		esc = append(esc, en.activate("mb-esc2", 10, -1)...)
		return len(esc) > 0
	})
	if esc[0].ProcessDefinitionKey != v2.ProcessDefinitionKey || !strings.HasPrefix(esc[0].ElementId, "esc2") {
		t.Fatalf("job after the timer: %v", esc[0])
	}
	if n := len(en.activate("mb-w", 10, -1)); n != 0 {
		t.Fatalf("the interrupted task's job is still there: %d", n)
	}
}

// Active catch events move with their subscriptions: a timer catch event
// keeps its due time, a message catch event its subscription (mapped to a
// catch event of the same message); one mapped to another message is
// refused.
func TestMigrateCatchEvents(t *testing.T) {
	en := start(t, Config{})
	proc := func(suffix, timer, msg string) []byte {
		return []byte(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
  <bpmn:message id="m" name="` + msg + `"><bpmn:extensionElements><zeebe:subscription correlationKey="=k"/></bpmn:extensionElements></bpmn:message>
  <bpmn:process id="mc" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="fork"/>
    <bpmn:parallelGateway id="fork"/>
    <bpmn:sequenceFlow id="f2" sourceRef="fork" targetRef="wait` + suffix + `"/>
    <bpmn:sequenceFlow id="f3" sourceRef="fork" targetRef="paid` + suffix + `"/>
    <bpmn:intermediateCatchEvent id="wait` + suffix + `"><bpmn:timerEventDefinition><bpmn:timeDuration>` + timer + `</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
    <bpmn:intermediateCatchEvent id="paid` + suffix + `"><bpmn:messageEventDefinition messageRef="m"/></bpmn:intermediateCatchEvent>
    <bpmn:sequenceFlow id="f4" sourceRef="wait` + suffix + `" targetRef="late` + suffix + `"/>
    <bpmn:sequenceFlow id="f5" sourceRef="paid` + suffix + `" targetRef="ship` + suffix + `"/>
    <bpmn:serviceTask id="late` + suffix + `"><bpmn:extensionElements><zeebe:taskDefinition type="mc-late` + suffix + `"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:serviceTask id="ship` + suffix + `"><bpmn:extensionElements><zeebe:taskDefinition type="mc-ship` + suffix + `"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f6" sourceRef="late` + suffix + `" targetRef="e1"/>
    <bpmn:sequenceFlow id="f7" sourceRef="ship` + suffix + `" targetRef="e2"/>
    <bpmn:endEvent id="e1"/>
    <bpmn:endEvent id="e2"/>
  </bpmn:process>
</bpmn:definitions>`)
	}
	v1 := en.deploy("mc.bpmn", proc("", "PT1H", "mc-paid"))
	v2 := en.deploy("mc.bpmn", proc("2", "PT5H", "mc-paid"))
	v3 := en.deploy("mc.bpmn", proc("3", "PT1H", "mc-other"))
	c, err := en.gw.CreateProcessInstance(ctx(t), &pb.CreateProcessInstanceRequest{ProcessDefinitionKey: v1.ProcessDefinitionKey, Variables: `{"k":"c1"}`})
	if err != nil {
		t.Fatal(err)
	}
	migrate := func(target int64, maps ...*mapping) error {
		_, err := en.gw.MigrateProcessInstance(ctx(t), &pb.MigrateProcessInstanceRequest{ProcessInstanceKey: c.ProcessInstanceKey,
			MigrationPlan: &pb.MigrateProcessInstanceRequest_MigrationPlan{TargetProcessDefinitionKey: target, MappingInstructions: maps}})
		return err
	}
	wantStatus(t, "message catch event mapped to one of another message", migrate(v3.ProcessDefinitionKey, maps("wait", "wait3", "paid", "paid3")...), codes.FailedPrecondition)
	wantStatus(t, "timer catch event mapped to a message catch event", migrate(v2.ProcessDefinitionKey, maps("wait", "paid2", "paid", "wait2")...), codes.FailedPrecondition)
	en.advance(30 * 60 * 1000)
	if err := migrate(v2.ProcessDefinitionKey, maps("wait", "wait2", "paid", "paid2")...); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if _, err := en.gw.PublishMessage(ctx(t), &pb.PublishMessageRequest{Name: "mc-paid", CorrelationKey: "c1"}); err != nil {
		t.Fatal(err)
	}
	var ship []*pb.ActivatedJob
	eventually(t, 5*time.Second, "the migrated message catch event's path", func() bool {
		ship = append(ship, en.activate("mc-ship2", 10, -1)...)
		return len(ship) > 0
	})
	en.advance(31 * 60 * 1000) // the timer's old due time (created + 1 h)
	var late []*pb.ActivatedJob
	eventually(t, 5*time.Second, "the migrated timer catch event's path", func() bool {
		late = append(late, en.activate("mc-late2", 10, -1)...)
		return len(late) > 0
	})
	if late[0].ProcessDefinitionKey != v2.ProcessDefinitionKey || ship[0].ElementId != "ship2" {
		t.Fatalf("jobs after migration: %v %v", late[0], ship[0])
	}
}
