package embedded_test

import (
	"context"
	"net"
	"os"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/jobwire/jobwire/engine-reference/embedded"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
)

const bpmn = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
  <bpmn:process id="embedded-one" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t1"/>
    <bpmn:serviceTask id="t1"><bpmn:extensionElements><zeebe:taskDefinition type="embedded-work"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="t1" targetRef="e"/>
    <bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`

func dial(t *testing.T, addr string) pb.GatewayClient {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return pb.NewGatewayClient(conn)
}

// A job goes through an embedded engine end to end, and the data directory
// keeps the deployment across a restart.
func TestStartRunsJobsAndKeepsData(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir := t.TempDir()
	eng, err := embedded.Start(embedded.Options{DataDir: dir, Partitions: 1})
	if err != nil {
		t.Fatal(err)
	}
	if host, _, _ := net.SplitHostPort(eng.Address()); host != "127.0.0.1" {
		t.Fatalf("address %s: want 127.0.0.1", eng.Address())
	}
	gw := dial(t, eng.Address())
	if _, err := gw.DeployResource(ctx, &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "p.bpmn", Content: []byte(bpmn)}}}); err != nil {
		t.Fatal(err)
	}
	created, err := gw.CreateProcessInstance(ctx, &pb.CreateProcessInstanceRequest{BpmnProcessId: "embedded-one", Version: -1})
	if err != nil {
		t.Fatal(err)
	}
	stream, err := gw.ActivateJobs(ctx, &pb.ActivateJobsRequest{Type: "embedded-work", Worker: "t", Timeout: 10000, MaxJobsToActivate: 1, RequestTimeout: 5000})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil || len(resp.Jobs) != 1 || resp.Jobs[0].ProcessInstanceKey != created.ProcessInstanceKey {
		t.Fatalf("activate: %v %v", resp, err)
	}
	if _, err := gw.CompleteJob(ctx, &pb.CompleteJobRequest{JobKey: resp.Jobs[0].Key}); err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(); err != nil { // a second Close does nothing
		t.Fatal(err)
	}

	again, err := embedded.Start(embedded.Options{DataDir: dir, Partitions: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	gw2 := dial(t, again.Address())
	if _, err := gw2.CreateProcessInstance(ctx, &pb.CreateProcessInstanceRequest{BpmnProcessId: "embedded-one", Version: -1}); err != nil {
		t.Fatalf("the deployment did not survive the restart: %v", err)
	}
}

// Without a data directory the engine's temporary one is removed by Close.
func TestTemporaryDataDirRemoved(t *testing.T) {
	eng, err := embedded.Start(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := eng.DataDir()
	eng.Close()
	if _, err := net.Dial("tcp", eng.Address()); err == nil {
		t.Fatal("the engine still listens after Close")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the temporary data dir %s is still there (%v)", dir, err)
	}
	if _, err := embedded.Start(embedded.Options{DataDir: dir + "/../" + "x\x00bad"}); err == nil {
		t.Fatal("an invalid data dir must fail Start")
	}
}
