package gateway

import (
	"context"
	"strings"

	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// BroadcastSignal broadcasts a signal (Zeebe 8.8): the partition that takes
// it (the next healthy one, round-robin) triggers its signal subscriptions,
// starts the processes with a matching signal start event and answers with
// the signal's key; it distributes the signal to every other partition
// (partition/signals.go).
func (g *Gateway) BroadcastSignal(ctx context.Context, r *pb.BroadcastSignalRequest) (*pb.BroadcastSignalResponse, error) {
	if err := checkTenant(r.TenantId); err != nil {
		return nil, err
	}
	if strings.TrimSpace(r.SignalName) == "" {
		return nil, status.Error(codes.InvalidArgument, "Expected to broadcast a signal with a name, but the name was empty")
	}
	res, err := g.broker.Submit(ctx, g.nextPartition(), &partition.Command{Op: partition.OpSignal, Name: r.SignalName,
		Variables: r.Variables})
	if err != nil {
		return nil, err
	}
	return res.(*pb.BroadcastSignalResponse), nil
}
