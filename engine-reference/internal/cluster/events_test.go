package cluster

import (
	"fmt"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
)

const catchXML = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="x">
  <bpmn:message id="m" name="paid"><bpmn:extensionElements><zeebe:subscription correlationKey="=orderId"/></bpmn:extensionElements></bpmn:message>
  <bpmn:process id="catch" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="wait"/>
    <bpmn:intermediateCatchEvent id="wait"><bpmn:messageEventDefinition messageRef="m"/></bpmn:intermediateCatchEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="wait" targetRef="task"/>
    <bpmn:serviceTask id="task"><bpmn:extensionElements><zeebe:taskDefinition type="ship"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f3" sourceRef="task" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>`

// Message subscriptions across broker processes: an instance on one
// broker waits for a message whose correlation key hashes to a partition
// of the other broker; the subscription and the correlation travel as
// ForwardCommands through the gateway.
func TestMessagesAcrossBrokers(t *testing.T) {
	_, gw := twoBrokerGateway(t)
	var err error
	if _, err := gw.DeployResource(ctxT(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "c.bpmn", Content: []byte(catchXML)}}}); err != nil {
		t.Fatal(err)
	}
	broker := func(pid int32) int32 { return (pid - 1) % 2 }
	keys := map[string]int64{}
	cross := 0
	for i := 0; i < 8; i++ {
		id := fmt.Sprintf("o-%d", i)
		var r *pb.CreateProcessInstanceResponse
		waitFor(t, "create", func() bool {
			r, err = gw.CreateProcessInstance(ctxT(t), &pb.CreateProcessInstanceRequest{BpmnProcessId: "catch", Version: -1,
				Variables: fmt.Sprintf(`{"orderId": %q}`, id)})
			return err == nil
		})
		keys[id] = r.ProcessInstanceKey
		if broker(partition.PartitionOf(r.ProcessInstanceKey)) != broker(partition.MessagePartition(id, 4)) {
			cross++
		}
	}
	if cross < 2 {
		t.Fatalf("test set-up: only %d instances wait for a message on the other broker", cross)
	}
	time.Sleep(300 * time.Millisecond) // subscriptions reach their message partitions
	for id, k := range keys {
		if _, err := gw.PublishMessage(ctxT(t), &pb.PublishMessageRequest{Name: "paid", CorrelationKey: id, Variables: `{"paid": true}`}); err != nil {
			t.Fatal(err)
		}
		var job *pb.ActivatedJob
		waitFor(t, "the job after message "+id, func() bool {
			s, err := gw.ActivateJobs(ctxT(t), &pb.ActivateJobsRequest{Type: "ship", Worker: "w", Timeout: 60000, MaxJobsToActivate: 1, RequestTimeout: 200})
			if err != nil {
				return false
			}
			for {
				r, err := s.Recv()
				if err != nil {
					return job != nil
				}
				if len(r.Jobs) > 0 {
					job = r.Jobs[0]
				}
			}
		})
		if job.ProcessInstanceKey != k {
			t.Fatalf("message %s continued instance %d, want %d", id, job.ProcessInstanceKey, k)
		}
		if _, err := gw.CompleteJob(ctxT(t), &pb.CompleteJobRequest{JobKey: job.Key}); err != nil {
			t.Fatal(err)
		}
	}
}
