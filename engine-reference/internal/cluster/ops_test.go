package cluster

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/engine"
	"github.com/jobwire/jobwire/engine-reference/internal/gateway"
	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// DeleteResource, MigrateProcessInstance and ModifyProcessInstance across
// two brokers (4 partitions, each broker with its own registry): a
// definition with instances on either broker is not deleted; a deletion
// reaches every partition; migrated jobs on both brokers show the target;
// with a broker down a deletion is refused (its partitions cannot be
// checked), and after its restart (from its data dir) the deletion and
// everything before it holds there.
func TestOpsAcrossBrokers(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	b0, b1 := startBroker(t, 0, 0, dirs[0]), startBroker(t, 1, 0, dirs[1])
	defer func() { b0.Close(); b1.Close() }()
	e, err := engine.StartGateway(engine.Config{Port: 0}, func(gw *gateway.Gateway) (gateway.Broker, io.Closer, error) {
		r, err := NewRemote(gw, "gw-test", []string{b0.Addr(), b1.Addr()}, 5*time.Second, nil)
		return r, r, err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	conn, err := grpc.NewClient(e.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	gw := pb.NewGatewayClient(conn)
	healthy := func() int {
		top, err := gw.Topology(ctxT(t), &pb.TopologyRequest{})
		if err != nil {
			return 0
		}
		n := 0
		for _, b := range top.Brokers {
			for _, p := range b.Partitions {
				if p.Health == pb.Partition_HEALTHY {
					n++
				}
			}
		}
		return n
	}
	waitFor(t, "4 healthy partitions", func() bool { return healthy() == 4 })
	deploy := func(typ string) *pb.ProcessMetadata {
		t.Helper()
		r, err := gw.DeployResource(ctxT(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "p.bpmn",
			Content: []byte(strings.Replace(bpmnXML, `type="t"`, `type="`+typ+`"`, 1))}}})
		if err != nil {
			t.Fatal(err)
		}
		return r.Deployments[0].GetProcess()
	}
	del := func(k int64) error {
		_, err := gw.DeleteResource(ctxT(t), &pb.DeleteResourceRequest{ResourceKey: k})
		return err
	}
	createAll := func(want int32) []int64 {
		t.Helper()
		parts := map[int32]int64{}
		for i := 0; i < 8 && len(parts) < 4; i++ {
			c, err := gw.CreateProcessInstance(ctxT(t), &pb.CreateProcessInstanceRequest{BpmnProcessId: "p", Version: -1})
			if err != nil || c.Version != want {
				t.Fatalf("create: %v %v (want version %d)", c, err, want)
			}
			parts[partition.PartitionOf(c.ProcessInstanceKey)] = c.ProcessInstanceKey
		}
		if len(parts) != 4 {
			t.Fatalf("instances on partitions %v, want all 4", parts)
		}
		var keys []int64
		for _, k := range parts {
			keys = append(keys, k)
		}
		return keys
	}
	jobs := func(typ string, n int) []*pb.ActivatedJob {
		t.Helper()
		var out []*pb.ActivatedJob
		waitFor(t, "jobs of type "+typ, func() bool {
			st, err := gw.ActivateJobs(ctxT(t), &pb.ActivateJobsRequest{Type: typ, Worker: "w", Timeout: 60000, MaxJobsToActivate: 10, RequestTimeout: -1})
			if err != nil {
				t.Fatal(err)
			}
			for {
				r, err := st.Recv()
				if err != nil {
					break
				}
				out = append(out, r.Jobs...)
			}
			return len(out) >= n
		})
		return out
	}

	v1 := deploy("t1")
	v2 := deploy("t2")
	keys := createAll(2)
	if err := del(v2.ProcessDefinitionKey); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("delete v2 with instances on both brokers: %v", err)
	}
	// Migrate every instance (both brokers) to v1: the jobs follow.
	byInstance := map[int64]*pb.ActivatedJob{}
	for _, j := range jobs("t2", 4) {
		byInstance[j.ProcessInstanceKey] = j
	}
	for _, k := range keys {
		_, err := gw.MigrateProcessInstance(ctxT(t), &pb.MigrateProcessInstanceRequest{ProcessInstanceKey: k,
			MigrationPlan: &pb.MigrateProcessInstanceRequest_MigrationPlan{TargetProcessDefinitionKey: v1.ProcessDefinitionKey,
				MappingInstructions: []*pb.MigrateProcessInstanceRequest_MappingInstruction{{SourceElementId: "task", TargetElementId: "task"}}}})
		if err != nil {
			t.Fatalf("migrate %d: %v", k, err)
		}
	}
	// v2 has no instance left anywhere: deleted on every partition.
	if err := del(v2.ProcessDefinitionKey); err != nil {
		t.Fatalf("delete v2: %v", err)
	}
	createAll(1)
	if err := del(v1.ProcessDefinitionKey); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("delete v1 with migrated instances: %v", err)
	}
	// Terminate the migrated tasks (their jobs keep their keys): the
	// instances end; the ones created on v1 are canceled.
	for _, k := range keys {
		j := byInstance[k]
		_, err := gw.ModifyProcessInstance(ctxT(t), &pb.ModifyProcessInstanceRequest{ProcessInstanceKey: k,
			TerminateInstructions: []*pb.ModifyProcessInstanceRequest_TerminateInstruction{{ElementInstanceKey: j.ElementInstanceKey}}})
		if err != nil {
			t.Fatalf("modify %d: %v", k, err)
		}
		if _, err := gw.CompleteJob(ctxT(t), &pb.CompleteJobRequest{JobKey: j.Key}); status.Code(err) != codes.NotFound {
			t.Fatalf("complete the terminated task's job: %v", err)
		}
	}
	for _, j := range jobs("t1", 4) {
		if _, err := gw.CancelProcessInstance(ctxT(t), &pb.CancelProcessInstanceRequest{ProcessInstanceKey: j.ProcessInstanceKey}); err != nil {
			t.Fatal(err)
		}
	}
	// Broker 1 down: its partitions cannot be checked, nothing is deleted.
	port := b1.lis.Addr().(*net.TCPAddr).Port
	b1.Close()
	waitFor(t, "2 healthy partitions", func() bool { return healthy() == 2 })
	if err := del(v1.ProcessDefinitionKey); status.Code(err) != codes.Unavailable {
		t.Fatalf("delete with a broker down: %v", err)
	}
	b1 = startBroker(t, 1, port, dirs[1])
	waitFor(t, "4 healthy partitions again", func() bool { return healthy() == 4 })
	// v2's deletion survived broker 1's restart; v1 is deleted now.
	if err := del(v1.ProcessDefinitionKey); err != nil {
		t.Fatalf("delete v1: %v", err)
	}
	for i := 0; i < 4; i++ {
		_, err := gw.CreateProcessInstance(ctxT(t), &pb.CreateProcessInstanceRequest{BpmnProcessId: "p", Version: -1})
		if status.Code(err) != codes.NotFound {
			t.Fatalf("create with every version deleted: %v", err)
		}
		_, err = gw.CreateProcessInstance(ctxT(t), &pb.CreateProcessInstanceRequest{ProcessDefinitionKey: v2.ProcessDefinitionKey})
		if status.Code(err) != codes.NotFound {
			t.Fatalf("create by the deleted v2 key: %v", err)
		}
	}
	if v3 := deploy("t3"); v3.Version != 3 {
		t.Fatalf("version after deletions: %d", v3.Version)
	}
	createAll(3)
}
