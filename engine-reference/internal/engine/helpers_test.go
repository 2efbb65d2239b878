package engine

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// env is a running engine plus clients, torn down with the test.
type env struct {
	t     *testing.T
	e     *Engine
	conn  *grpc.ClientConn
	gw    pb.GatewayClient
	admin apb.AdminServiceClient
}

func start(t *testing.T, cfg Config) *env {
	t.Helper()
	if cfg.Partitions == 0 {
		cfg.Partitions = 3
	}
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	e, err := Start(cfg)
	if err != nil {
		t.Fatalf("engine start: %v", err)
	}
	conn, err := grpc.NewClient(e.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		e.Close()
		t.Fatal(err)
	}
	en := &env{t: t, e: e, conn: conn, gw: pb.NewGatewayClient(conn), admin: apb.NewAdminServiceClient(conn)}
	t.Cleanup(func() { conn.Close(); e.Close() })
	return en
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

func bpmnFile(t *testing.T, name string) []byte {
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (en *env) deploy(name string, content []byte) *pb.ProcessMetadata {
	en.t.Helper()
	r, err := en.gw.DeployResource(ctx(en.t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: name, Content: content}}})
	if err != nil {
		en.t.Fatalf("deploy %s: %v", name, err)
	}
	return r.Deployments[0].GetProcess()
}

func (en *env) create(pid, vars string) int64 {
	en.t.Helper()
	r, err := en.gw.CreateProcessInstance(ctx(en.t), &pb.CreateProcessInstanceRequest{BpmnProcessId: pid, Version: -1, Variables: vars})
	if err != nil {
		en.t.Fatalf("create %s: %v", pid, err)
	}
	return r.ProcessInstanceKey
}

// activate polls once (no long polling) and returns the jobs.
func (en *env) activate(typ string, max int32, reqTimeout int64) []*pb.ActivatedJob {
	en.t.Helper()
	s, err := en.gw.ActivateJobs(ctx(en.t), &pb.ActivateJobsRequest{Type: typ, Worker: "test", Timeout: 30000,
		MaxJobsToActivate: max, RequestTimeout: reqTimeout})
	if err != nil {
		en.t.Fatal(err)
	}
	var jobs []*pb.ActivatedJob
	for {
		r, err := s.Recv()
		if err != nil {
			if !strings.Contains(err.Error(), "EOF") && err.Error() != "EOF" {
				en.t.Fatalf("activate: %v", err)
			}
			return jobs
		}
		jobs = append(jobs, r.Jobs...)
	}
}

func (en *env) instances(pid string) *apb.ListProcessInstancesResponse {
	en.t.Helper()
	r, err := en.admin.ListProcessInstances(ctx(en.t), &apb.ListProcessInstancesRequest{BpmnProcessId: pid, IncludeInstances: true})
	if err != nil {
		en.t.Fatal(err)
	}
	return r
}

func (en *env) jobs(typ string) *apb.ListJobsResponse {
	en.t.Helper()
	r, err := en.admin.ListJobs(ctx(en.t), &apb.ListJobsRequest{Type: typ, IncludeJobs: true})
	if err != nil {
		en.t.Fatal(err)
	}
	return r
}

func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out after %v waiting for %s", d, what)
}

var _ = fmt.Sprintf
