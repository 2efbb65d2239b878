package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

func dial(t *testing.T, addr string) (*grpc.ClientConn, pb.GatewayClient, apb.AdminServiceClient) {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn, pb.NewGatewayClient(conn), apb.NewAdminServiceClient(conn)
}

// worker polls and completes jobs until stop; it records every completion
// the engine acknowledged.
func worker(gw pb.GatewayClient, stop <-chan struct{}, acked *sync.Map) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		c, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		s, err := gw.ActivateJobs(c, &pb.ActivateJobsRequest{Type: "work", Worker: "crash", Timeout: 1000, MaxJobsToActivate: 16, RequestTimeout: 500})
		if err != nil {
			cancel()
			time.Sleep(20 * time.Millisecond)
			continue
		}
		for {
			r, err := s.Recv()
			if err != nil {
				break
			}
			for _, j := range r.Jobs {
				if _, err := gw.CompleteJob(c, &pb.CompleteJobRequest{JobKey: j.Key, Variables: `{"ok":true}`}); err == nil {
					if _, dup := acked.LoadOrStore(j.Key, true); dup {
						panic("job acknowledged twice")
					}
				}
			}
		}
		cancel()
	}
}

// TestCrashRecoveryExactlyOnce kills an engine process with SIGKILL in the
// middle of a load, restarts it on the same data dir, and checks that every
// instance completes exactly once and every acknowledged completion survived.
func TestCrashRecoveryExactlyOnce(t *testing.T) {
	dir := t.TempDir()
	c1 := startChild(t, dir)
	_, gw, _ := dial(t, c1.addr)
	if _, err := gw.DeployResource(ctx(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "one-task.bpmn", Content: bpmnFile(t, "one-task.bpmn")}}}); err != nil {
		t.Fatal(err)
	}
	const n = 300
	created := map[int64]bool{}
	for i := 0; i < n; i++ {
		r, err := gw.CreateProcessInstance(ctx(t), &pb.CreateProcessInstanceRequest{BpmnProcessId: "one-task", Version: -1, Variables: `{"i":` + itoa(i) + `}`})
		if err != nil {
			t.Fatal(err)
		}
		created[r.ProcessInstanceKey] = true
	}
	var acked sync.Map
	stop1 := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); worker(gw, stop1, &acked) }()
	}
	eventually(t, 15*time.Second, "some completions", func() bool {
		k := 0
		acked.Range(func(any, any) bool { k++; return true })
		return k >= n/3
	})
	c1.kill() // mid-load
	close(stop1)
	wg.Wait()

	c2 := startChild(t, dir)
	_, gw2, admin2 := dial(t, c2.addr)
	stop2 := make(chan struct{})
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); worker(gw2, stop2, &acked) }()
	}
	eventually(t, 30*time.Second, "all instances completed", func() bool {
		r, err := admin2.ListProcessInstances(ctx(t), &apb.ListProcessInstancesRequest{})
		return err == nil && r.CountsByState["COMPLETED"] == n
	})
	close(stop2)
	wg.Wait()

	insts, _ := admin2.ListProcessInstances(ctx(t), &apb.ListProcessInstancesRequest{IncludeInstances: true})
	if len(insts.Instances) != n {
		t.Fatalf("%d instances after recovery, want %d", len(insts.Instances), n)
	}
	for _, in := range insts.Instances {
		if !created[in.Key] || in.CompletionCount != 1 || in.Variables == "" {
			t.Fatalf("instance %v", in)
		}
	}
	jobs, _ := admin2.ListJobs(ctx(t), &apb.ListJobsRequest{IncludeJobs: true})
	if len(jobs.Jobs) != n {
		t.Fatalf("%d jobs, want %d (one per instance, none duplicated)", len(jobs.Jobs), n)
	}
	completed := map[int64]bool{}
	unacked := 0
	for _, j := range jobs.Jobs {
		if j.CompleteCount != 1 || j.State != apb.JobState_JOB_STATE_COMPLETED {
			t.Fatalf("job %v", j)
		}
		completed[j.Key] = true
		if _, ok := acked.Load(j.Key); !ok {
			unacked++ // committed, but the reply died with the process
		}
	}
	// Only completions in flight at the kill (one per worker) may lack an ack.
	if unacked > 4 {
		t.Fatalf("%d completions without acknowledgement", unacked)
	}
	// Every acknowledged completion survived the crash.
	acked.Range(func(k, _ any) bool {
		if !completed[k.(int64)] {
			t.Errorf("acknowledged completion of job %d lost", k)
		}
		return true
	})
}

// TestRestartRecoversState closes and reopens an engine in-process and
// compares what the admin API reports.
func TestRestartRecoversState(t *testing.T) {
	dir := t.TempDir()
	e1, err := Start(Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	_, gw, admin := dial(t, e1.Addr())
	gw.DeployResource(ctx(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "flow.bpmn", Content: bpmnFile(t, "flow.bpmn")}}})
	for i := 0; i < 5; i++ {
		gw.CreateProcessInstance(ctx(t), &pb.CreateProcessInstanceRequest{BpmnProcessId: "flow", Version: -1, Variables: `{"x":9,"status":"ok","big":123456789012345678901234567890}`})
	}
	s, _ := gw.ActivateJobs(ctx(t), &pb.ActivateJobsRequest{Type: "a", Worker: "w", Timeout: 60000, MaxJobsToActivate: 2, RequestTimeout: -1})
	r, _ := s.Recv()
	gw.FailJob(ctx(t), &pb.FailJobRequest{JobKey: r.Jobs[0].Key, Retries: 0, ErrorMessage: "x"})
	gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: r.Jobs[1].Key})
	before, _ := admin.ListJobs(ctx(t), &apb.ListJobsRequest{IncludeJobs: true})
	ib, _ := admin.ListProcessInstances(ctx(t), &apb.ListProcessInstancesRequest{IncludeInstances: true})
	e1.Close()

	e2, err := Start(Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	_, gw2, admin2 := dial(t, e2.Addr())
	after, _ := admin2.ListJobs(ctx(t), &apb.ListJobsRequest{IncludeJobs: true})
	ia, _ := admin2.ListProcessInstances(ctx(t), &apb.ListProcessInstancesRequest{IncludeInstances: true})
	if before.String() != after.String() || ib.String() != ia.String() {
		t.Fatalf("state differs after restart:\n%v\n%v\n%v\n%v", before, after, ib, ia)
	}
	// Keys keep increasing after recovery (no reuse).
	c, err := gw2.CreateProcessInstance(ctx(t), &pb.CreateProcessInstanceRequest{BpmnProcessId: "flow", Version: -1, Variables: `{"x":1}`})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range ia.Instances {
		if in.Key == c.ProcessInstanceKey {
			t.Fatal("key reused")
		}
	}
}

func itoa(i int) string {
	const d = "0123456789"
	if i < 10 {
		return d[i : i+1]
	}
	return itoa(i/10) + d[i%10:i%10+1]
}
