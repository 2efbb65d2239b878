package main

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding/gzip"
)

// @camunda8/sdk sends every request gzip-compressed (a hard-coded channel
// option), which Zeebe's gateway accepts. Without the codec registered in the
// engine binary every call answered UNIMPLEMENTED "Decompressor is not
// installed". The engine runs as its own process here, so the codec this
// test registers for its client cannot mask a missing one on the server.
func TestGzipCompressedRequestsAccepted(t *testing.T) {
	cmd, _, m := run(t, "--port", "0", "--partitions", "1")
	defer func() { cmd.Process.Signal(syscall.SIGTERM); waitExit(t, cmd) }()
	conn, err := grpc.NewClient("127.0.0.1:"+m[1], grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.UseCompressor(gzip.Name)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	gw := pb.NewGatewayClient(conn)
	bpmn, err := os.ReadFile("../../internal/engine/testdata/one-task.bpmn")
	if err != nil {
		t.Fatal(err)
	}
	dep, err := gw.DeployResource(ctx, &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "one-task.bpmn", Content: bpmn}}})
	if err != nil {
		t.Fatalf("gzip deploy: %v", err)
	}
	if len(dep.Deployments) != 1 {
		t.Fatalf("deployments %v", dep.Deployments)
	}
	if _, err := gw.CreateProcessInstance(ctx, &pb.CreateProcessInstanceRequest{BpmnProcessId: "one-task", Version: -1, Variables: `{"a":1}`}); err != nil {
		t.Fatalf("gzip create: %v", err)
	}
	st, err := gw.ActivateJobs(ctx, &pb.ActivateJobsRequest{Type: "work", MaxJobsToActivate: 5, Timeout: 60000, Worker: "gz", RequestTimeout: 5000})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := st.Recv()
	if err != nil {
		t.Fatalf("gzip activate: %v", err)
	}
	if len(resp.Jobs) != 1 || resp.Jobs[0].Variables != `{"a":1}` {
		t.Fatalf("jobs %v", resp.Jobs)
	}
}
