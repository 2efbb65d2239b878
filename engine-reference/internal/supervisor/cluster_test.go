package supervisor

import (
	"io"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	cpb "github.com/jobwire/jobwire/engine-reference/internal/pb/clusterpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

func healthByPartition(t *testing.T, gw pb.GatewayClient) map[int32]pb.Partition_PartitionBrokerHealth {
	t.Helper()
	top, err := gw.Topology(ctxT(t, 5*time.Second), &pb.TopologyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32]pb.Partition_PartitionBrokerHealth{}
	for _, b := range top.Brokers {
		for _, p := range b.Partitions {
			out[p.PartitionId] = p.Health
		}
	}
	if top.PartitionsCount != 6 || len(top.Brokers) != 3 {
		t.Fatalf("topology %v", top)
	}
	return out
}

// A broker that is killed makes its partitions DEAD and UNAVAILABLE, new
// instances go to the other partitions, and a restart recovers its state;
// pushes and notifications cross processes; deployments reach every broker.
func TestClusterBrokerStopStart(t *testing.T) {
	tc := startCluster(t, 2, 3, 6)
	// Ready means ready: each gateway's grpc.health.v1 status is SERVING at
	// once, not one health interval later (pyzeebe's test_ping checks it
	// right after start).
	for i, c := range tc.conns[:2] {
		h, err := healthpb.NewHealthClient(c).Check(ctxT(t, time.Second), &healthpb.HealthCheckRequest{})
		if err != nil || h.Status != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("gateway %d health right after start: %v %v", i, h, err)
		}
	}
	for _, gw := range tc.gws {
		for pid, h := range healthByPartition(t, gw) {
			if h != pb.Partition_HEALTHY {
				t.Fatalf("partition %d %v", pid, h)
			}
		}
	}
	tc.deploy(0, "p1", "t1")
	// A push stream on gateway 1 gets jobs of instances created through
	// gateway 0 on every partition (the deployment reached every broker).
	stream, err := tc.gws[1].StreamActivatedJobs(ctxT(t, 30*time.Second), &pb.StreamActivatedJobsRequest{Type: "t1", Worker: "w", Timeout: 60000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Header(); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "stream registered", func() bool {
		r, err := tc.admin.ListStreams(ctxT(t, time.Second), &apb.ListStreamsRequest{})
		return err == nil && len(r.Streams) == 1
	})
	time.Sleep(200 * time.Millisecond) // the registration travels to every broker
	keys := map[int32]int64{}
	for i := 0; i < 6; i++ {
		r, err := tc.gws[0].CreateProcessInstance(ctxT(t, 5*time.Second), &pb.CreateProcessInstanceRequest{BpmnProcessId: "p1", Version: -1})
		if err != nil {
			t.Fatal(err)
		}
		keys[partition.PartitionOf(r.ProcessInstanceKey)] = r.ProcessInstanceKey
	}
	if len(keys) != 6 {
		t.Fatalf("instances on partitions %v, want all 6", keys)
	}
	var jobs []*pb.ActivatedJob
	for len(jobs) < 6 {
		j, err := stream.Recv()
		if err != nil {
			t.Fatalf("after %d pushed jobs: %v", len(jobs), err)
		}
		jobs = append(jobs, j)
	}
	// Kill broker 2 (partitions 3 and 6).
	if _, err := tc.admin.StopBroker(ctxT(t, 10*time.Second), &apb.StopBrokerRequest{NodeId: 2}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "partitions 3 and 6 DEAD on both gateways", func() bool {
		for _, gw := range tc.gws {
			h := healthByPartition(t, gw)
			if h[3] != pb.Partition_DEAD || h[6] != pb.Partition_DEAD || h[1] != pb.Partition_HEALTHY {
				return false
			}
		}
		return true
	})
	var onDead *pb.ActivatedJob
	for _, j := range jobs {
		if partition.PartitionOf(j.Key) == 3 {
			onDead = j
		}
	}
	_, err = tc.gws[0].CompleteJob(ctxT(t, 5*time.Second), &pb.CompleteJobRequest{JobKey: onDead.Key})
	if status.Code(err) != codes.Unavailable {
		t.Fatalf("complete on a dead partition: %v, want UNAVAILABLE", err)
	}
	for i := 0; i < 8; i++ { // creation skips the dead partitions
		r, err := tc.gws[1].CreateProcessInstance(ctxT(t, 5*time.Second), &pb.CreateProcessInstanceRequest{BpmnProcessId: "p1", Version: -1})
		if err != nil {
			t.Fatalf("create while a broker is down: %v", err)
		}
		if p := partition.PartitionOf(r.ProcessInstanceKey); p == 3 || p == 6 {
			t.Fatalf("instance created on dead partition %d", p)
		}
	}
	parts, err := tc.admin.GetPartitions(ctxT(t, 5*time.Second), &apb.GetPartitionsRequest{})
	if err != nil || len(parts.Partitions) != 6 || parts.Partitions[2].Healthy || !parts.Partitions[0].Healthy {
		t.Fatalf("partitions %v %v", parts, err)
	}
	// Restart: the job activated before the crash is still there.
	if _, err := tc.admin.StartBroker(ctxT(t, 20*time.Second), &apb.StartBrokerRequest{NodeId: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := tc.gws[1].CompleteJob(ctxT(t, 5*time.Second), &pb.CompleteJobRequest{JobKey: onDead.Key}); err != nil {
		t.Fatalf("complete after restart: %v", err)
	}
	// The stream was re-registered with the restarted broker: new
	// instances on partitions 3 and 6 are pushed too.
	for i := 0; i < 6; i++ {
		if _, err := tc.gws[0].CreateProcessInstance(ctxT(t, 5*time.Second), &pb.CreateProcessInstanceRequest{BpmnProcessId: "p1", Version: -1}); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[int32]bool{}
	deadline := time.After(10 * time.Second)
	got := make(chan *pb.ActivatedJob)
	go func() {
		for {
			j, err := stream.Recv()
			if err != nil {
				close(got)
				return
			}
			got <- j
		}
	}()
	for !seen[3] || !seen[6] {
		select {
		case j, ok := <-got:
			if !ok {
				t.Fatal("stream ended")
			}
			seen[partition.PartitionOf(j.Key)] = true
		case <-deadline:
			t.Fatalf("no push from the restarted broker; saw partitions %v", seen)
		}
	}
	r, err := tc.admin.ListProcessInstances(ctxT(t, 5*time.Second), &apb.ListProcessInstancesRequest{BpmnProcessId: "p1"})
	if err != nil || r.CountsByState["COMPLETED"] != 1 || r.CountsByState["ACTIVE"] != 19 {
		t.Fatalf("instances %v %v", r, err)
	}
}

// Long polls are woken across processes, faults work per gateway, and a
// restarted gateway serves again on the same port.
func TestClusterGatewayFaults(t *testing.T) {
	tc := startCluster(t, 2, 3, 6)
	tc.deploy(1, "p2", "t2")
	// A long poll parked on gateway 1 is woken by a job created via gateway 0.
	poll, err := tc.gws[1].ActivateJobs(ctxT(t, 20*time.Second), &pb.ActivateJobsRequest{Type: "t2", Worker: "w", Timeout: 60000,
		MaxJobsToActivate: 5, RequestTimeout: 15000})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "poll parked", func() bool {
		r, err := tc.admin.ListLongPolls(ctxT(t, time.Second), &apb.ListLongPollsRequest{})
		return err == nil && len(r.LongPolls) == 1
	})
	t0 := time.Now()
	if _, err := tc.gws[0].CreateProcessInstance(ctxT(t, 5*time.Second), &pb.CreateProcessInstanceRequest{BpmnProcessId: "p2", Version: -1}); err != nil {
		t.Fatal(err)
	}
	resp, err := poll.Recv()
	if err != nil || len(resp.Jobs) != 1 || time.Since(t0) > 3*time.Second {
		t.Fatalf("woken poll: %v %v after %v", resp, err, time.Since(t0))
	}
	// Long-poll fault: the next parked poll ends with DEADLINE_EXCEEDED.
	if _, err := tc.admin.InjectFault(ctxT(t, 5*time.Second), &apb.InjectFaultRequest{Fault: &apb.InjectFaultRequest_LongPoll{
		LongPoll: &apb.LongPollFault{Code: int32(codes.DeadlineExceeded), Count: 1, AfterMs: 100}}}); err != nil {
		t.Fatal(err)
	}
	poll, err = tc.gws[0].ActivateJobs(ctxT(t, 20*time.Second), &pb.ActivateJobsRequest{Type: "t2-none", Worker: "w", Timeout: 60000,
		MaxJobsToActivate: 5, RequestTimeout: 10000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := poll.Recv(); status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("long-poll fault: %v", err)
	}
	// Reject fault through the supervisor reaches every gateway.
	if _, err := tc.admin.InjectFault(ctxT(t, 5*time.Second), &apb.InjectFaultRequest{Fault: &apb.InjectFaultRequest_Reject{
		Reject: &apb.RejectFault{Method: "Topology", Code: int32(codes.ResourceExhausted), Count: 1}}}); err != nil {
		t.Fatal(err)
	}
	for i, gw := range tc.gws {
		if _, err := gw.Topology(ctxT(t, 5*time.Second), &pb.TopologyRequest{}); status.Code(err) != codes.ResourceExhausted {
			t.Fatalf("gateway %d: %v", i, err)
		}
	}
	// GOAWAY: an open stream is closed after the grace; new calls work.
	stream, err := tc.gws[0].StreamActivatedJobs(ctxT(t, 20*time.Second), &pb.StreamActivatedJobsRequest{Type: "t2", Worker: "w", Timeout: 60000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Header(); err != nil {
		t.Fatal(err)
	}
	if _, err := tc.admin.InjectFault(ctxT(t, 5*time.Second), &apb.InjectFaultRequest{Fault: &apb.InjectFaultRequest_GoAway{
		GoAway: &apb.GoAwayFault{GraceMs: 200}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err == nil || err == io.EOF {
		t.Fatalf("stream after GOAWAY: %v", err)
	}
	if _, err := tc.gws[0].Topology(ctxT(t, 5*time.Second), &pb.TopologyRequest{}); err != nil {
		t.Fatalf("after GOAWAY: %v", err)
	}
	// Restart gateway 1 on the same port: clients reconnect.
	addr := tc.s.GatewayAddrs()[1]
	if _, err := tc.admin.RestartGateway(ctxT(t, 20*time.Second), &apb.RestartGatewayRequest{Index: 1}); err != nil {
		t.Fatal(err)
	}
	if tc.s.GatewayAddrs()[1] != addr {
		t.Fatalf("gateway moved from %s to %s", addr, tc.s.GatewayAddrs()[1])
	}
	eventually(t, 5*time.Second, "restarted gateway answers", func() bool {
		_, err := tc.gws[1].Topology(ctxT(t, time.Second), &pb.TopologyRequest{})
		return err == nil
	})
	cl, err := tc.admin.GetCluster(ctxT(t, 5*time.Second), &apb.GetClusterRequest{})
	if err != nil || len(cl.Gateways) != 2 || len(cl.Brokers) != 3 || !cl.Gateways[1].Running {
		t.Fatalf("cluster %v %v", cl, err)
	}
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

// TestClusterBrokerPortsNeedTheClusterCertificate: the supervisor's
// gateway<->broker links are mutual TLS, so a plaintext client (or one
// without the cluster's certificate) cannot talk to a broker port.
func TestClusterBrokerPortsNeedTheClusterCertificate(t *testing.T) {
	tc := startCluster(t, 1, 1, 1)
	addr := tc.s.brokers[0].addr()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, err = cpb.NewBrokerServiceClient(conn).GetTopology(ctxT(t, 3*time.Second), &cpb.GetTopologyRequest{})
	if status.Code(err) != codes.Unavailable {
		t.Fatalf("plaintext client on broker port %s: %v (want the TLS handshake to fail)", addr, err)
	}
	creds, err := tc.s.link.ClientCreds()
	if err != nil {
		t.Fatal(err)
	}
	ok, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	defer ok.Close()
	if _, err := cpb.NewBrokerServiceClient(ok).GetTopology(ctxT(t, 3*time.Second), &cpb.GetTopologyRequest{}); err != nil {
		t.Fatalf("with the cluster certificate: %v", err)
	}
}
