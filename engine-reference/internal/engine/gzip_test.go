package engine

import (
	"testing"

	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding/gzip"
)

// @camunda8/sdk sends every request gzip-compressed (a hard-coded channel
// option), as Zeebe's gateway accepts. Without the codec registered the
// engine answered UNIMPLEMENTED "Decompressor is not installed".
func TestGzipCompressedRequestsAccepted(t *testing.T) {
	en := start(t, Config{Partitions: 1})
	conn, err := grpc.NewClient(en.e.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.UseCompressor(gzip.Name)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	gw := pb.NewGatewayClient(conn)
	dep, err := gw.DeployResource(ctx(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "one-task.bpmn", Content: bpmnFile(t, "one-task.bpmn")}}})
	if err != nil {
		t.Fatalf("gzip deploy: %v", err)
	}
	if len(dep.Deployments) != 1 {
		t.Fatalf("deployments %v", dep.Deployments)
	}
	if _, err := gw.CreateProcessInstance(ctx(t), &pb.CreateProcessInstanceRequest{BpmnProcessId: "one-task", Version: -1, Variables: `{"a":1}`}); err != nil {
		t.Fatalf("gzip create: %v", err)
	}
	jobs := en.activate("work", 10, -1)
	if len(jobs) != 1 {
		t.Fatalf("want 1 job, got %d", len(jobs))
	}
}
