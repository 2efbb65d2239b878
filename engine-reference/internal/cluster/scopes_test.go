package cluster

import (
	"encoding/json"
	"io"
	"os"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/engine"
	"github.com/jobwire/jobwire/engine-reference/internal/gateway"
	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// Call activities and multi-instance across broker processes: the called
// process is distributed to every partition, a called instance runs on its
// caller's partition, and a caller created with result on each of the 4
// partitions (2 brokers) completes with the mapped variables.
func TestCallActivityAcrossBrokers(t *testing.T) {
	_, gw := twoBrokerGateway(t)
	var res []*pb.Resource
	for _, f := range []string{"parent.bpmn", "child.bpmn"} {
		b, err := os.ReadFile("../../corpus/call-activity/" + f)
		if err != nil {
			t.Fatal(err)
		}
		res = append(res, &pb.Resource{Name: f, Content: b})
	}
	if _, err := gw.DeployResource(ctxT(t), &pb.DeployResourceRequest{Resources: res}); err != nil {
		t.Fatal(err)
	}
	type result struct {
		r   *pb.CreateProcessInstanceWithResultResponse
		err error
	}
	results := make(chan result, 4)
	for i := 0; i < 4; i++ {
		go func() {
			r, err := gw.CreateProcessInstanceWithResult(ctxT(t), &pb.CreateProcessInstanceWithResultRequest{
				Request:        &pb.CreateProcessInstanceRequest{BpmnProcessId: "corpus-ca-parent", Version: -1, Variables: `{"orderId":"c"}`},
				RequestTimeout: 15000})
			results <- result{r, err}
		}()
	}
	parts := map[int64]bool{}
	done := 0
	waitFor(t, "8 child jobs completed", func() bool {
		s, err := gw.ActivateJobs(ctxT(t), &pb.ActivateJobsRequest{Type: "corpus-ca-work", Worker: "w", Timeout: 30000, MaxJobsToActivate: 8, RequestTimeout: -1})
		if err != nil {
			return false
		}
		for {
			r, err := s.Recv()
			if err != nil {
				break
			}
			for _, j := range r.Jobs {
				if j.ProcessInstanceKey>>partition.KeyBits != j.ElementInstanceKey>>partition.KeyBits {
					t.Errorf("job %d: called instance and element on different partitions", j.Key)
				}
				parts[j.ProcessInstanceKey>>partition.KeyBits] = true
				// The first call maps childResult out (only it); the
				// second propagates every child variable.
				vars := `{"childResult":7,"noise":1}`
				var jv map[string]any
				json.Unmarshal([]byte(j.Variables), &jv)
				if _, second := jv["result"]; second {
					vars = `{"second":"yes"}`
				}
				if _, err := gw.CompleteJob(ctxT(t), &pb.CompleteJobRequest{JobKey: j.Key, Variables: vars}); err != nil {
					t.Fatal(err)
				}
				done++
			}
		}
		return done == 8
	})
	if len(parts) != 4 {
		t.Fatalf("called instances ran on partitions %v, want all 4", parts)
	}
	for i := 0; i < 4; i++ {
		r := <-results
		if r.err != nil {
			t.Fatal(r.err)
		}
		var v map[string]any
		json.Unmarshal([]byte(r.r.Variables), &v)
		if v["result"] != float64(7) || v["second"] != "yes" || v["orderId"] != "c" || v["noise"] != nil || v["childResult"] != nil {
			t.Fatalf("caller variables %s", r.r.Variables)
		}
	}
}

// twoBrokerGateway starts two broker processes' partitions (2 each) and a
// gateway in front of them, waits until all 4 partitions are healthy, and
// returns a client connection to the gateway; everything is stopped when
// the test ends.
func twoBrokerGateway(t *testing.T) (*grpc.ClientConn, pb.GatewayClient) {
	t.Helper()
	b0, b1 := startBroker(t, 0, 0, t.TempDir()), startBroker(t, 1, 0, t.TempDir())
	t.Cleanup(func() { b0.Close(); b1.Close() })
	e, err := engine.StartGateway(engine.Config{Port: 0}, func(gw *gateway.Gateway) (gateway.Broker, io.Closer, error) {
		r, err := NewRemote(gw, "gw-test", []string{b0.Addr(), b1.Addr()}, 5*time.Second, nil)
		return r, r, err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	conn, err := grpc.NewClient(e.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	gw := pb.NewGatewayClient(conn)
	waitFor(t, "4 healthy partitions", func() bool {
		top, err := gw.Topology(ctxT(t), &pb.TopologyRequest{})
		if err != nil {
			return false
		}
		n := 0
		for _, b := range top.Brokers {
			for _, p := range b.Partitions {
				if p.Health == pb.Partition_HEALTHY {
					n++
				}
			}
		}
		return n == 4
	})
	return conn, gw
}
