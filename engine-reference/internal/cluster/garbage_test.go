package cluster

import (
	"strings"
	"testing"

	cpb "github.com/jobwire/jobwire/engine-reference/internal/pb/clusterpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// Raw garbage on the broker port: in the old broker `{"op":"query"}` made
// the partition goroutine call a nil function and took the process down.
// Every case now gets a clear INVALID_ARGUMENT and the broker keeps serving.
func TestBrokerPortGarbage(t *testing.T) {
	b := startBroker(t, 0, 0, t.TempDir())
	defer b.Close()
	conn, err := grpc.NewClient(b.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := cpb.NewBrokerServiceClient(conn)
	pid := b.Partitions()[0]
	cases := map[string]string{
		`not json at all`:              "bad command",
		`{"op":"query"}`:               `operation "query" cannot be sent`,
		`{"op":"keys","key":99999999}`: `operation "keys" cannot be sent`,
		`{"op":"timeout","key":1}`:     `operation "timeout" cannot be sent`,
		`{"op":""}`:                    `operation "" cannot be sent`,
		`{"op":"create"}`:              "Expected either a bpmnProcessId or a processDefinitionKey",
		`{"op":"deploy","res":[{"name":"x.bpmn","content":"PDw8"}]}`: "INVALID_ARGUMENT",
		`[1,2,3]`: "bad command",
	}
	for cmd, want := range cases {
		_, err := c.Execute(ctxT(t), &cpb.ExecuteRequest{PartitionId: pid, Command: []byte(cmd)})
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want INVALID_ARGUMENT containing %q", cmd, err, want)
		}
	}
	// Pinned decisions cannot be smuggled in: an activation naming jobs
	// activates only what the partition itself chooses (nothing here).
	r, err := c.Execute(ctxT(t), &cpb.ExecuteRequest{PartitionId: pid, MaxJobs: 5, Command: []byte(`{"op":"activate","type":"x","worker":"w","timeout":1000,"jobs":[1,2,3]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Result != nil {
		var got pb.ActivateJobsResponse
		if err := r.Result.UnmarshalTo(&got); err != nil || len(got.Jobs) != 0 {
			t.Fatalf("activation with smuggled job keys: %v %v", got.Jobs, err)
		}
	}
	// A session that does not start with hello.
	s, err := c.Connect(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	s.Send(&cpb.ConnectRequest{Kind: &cpb.ConnectRequest_RemoveStream{RemoveStream: &cpb.RemoveStream{AggregateId: "x"}}})
	if _, err := s.Recv(); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("session without hello: %v", err)
	}
	// Still alive and serving: a real command succeeds.
	if _, err := c.GetTopology(ctxT(t), &cpb.GetTopologyRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Execute(ctxT(t), &cpb.ExecuteRequest{PartitionId: pid, Command: []byte(`{"op":"publish","name":"m","corr":"k"}`)}); err != nil {
		t.Fatalf("broker not serving after garbage: %v", err)
	}
}
