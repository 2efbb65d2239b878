// Package cluster is the reference engine's multi-process mode: broker
// processes that lead partitions (BrokerServer) and the gateway side that
// reaches them over jobwire.cluster.v1 (Remote, a gateway.Broker).
package cluster

import (
	"encoding/json"

	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// MaxMessageSize bounds gateway↔broker messages (commands carry up to
// 4 MB of variables, JSON-escaped).
const MaxMessageSize = 16 << 20

func encodeCommand(c *partition.Command) ([]byte, error) { return json.Marshal(c) }

func decodeCommand(b []byte) (*partition.Command, error) {
	var c partition.Command
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "bad command: %v", err)
	}
	if !partition.WireOps[c.Op] {
		return nil, status.Errorf(codes.InvalidArgument, "bad command: operation %q cannot be sent to a broker", c.Op)
	}
	// Decisions the partition pins while processing (time, chosen jobs,
	// push/yield outcomes) are its own; a peer cannot pre-set them.
	c.Now, c.JobKeys, c.Pushes, c.Yields, c.KeyMark, c.Latest = 0, nil, nil, nil, 0, nil
	c.V = 0 // the record version is the partition's to set
	return &c, nil
}

// encodeResult wraps a partition's answer; activations travel as an
// ActivateJobsResponse.
func encodeResult(resp any) (*anypb.Any, error) {
	switch v := resp.(type) {
	case nil:
		return nil, nil
	case []*pb.ActivatedJob:
		return anypb.New(&pb.ActivateJobsResponse{Jobs: v})
	case proto.Message:
		return anypb.New(v)
	}
	return nil, status.Errorf(codes.Internal, "cannot encode answer of type %T", resp)
}

func decodeResult(a *anypb.Any) (any, error) {
	if a == nil {
		return nil, nil
	}
	m, err := a.UnmarshalNew()
	if err != nil {
		return nil, status.Errorf(codes.Internal, "bad answer from broker: %v", err)
	}
	if r, ok := m.(*pb.ActivateJobsResponse); ok {
		return r.Jobs, nil
	}
	return m, nil
}

func tenantMatch(ts []string, tenant string) bool {
	if len(ts) == 0 {
		return tenant == partition.DefaultTenant || tenant == ""
	}
	for _, t := range ts {
		if t == tenant || (t == "" && tenant == partition.DefaultTenant) {
			return true
		}
	}
	return false
}
