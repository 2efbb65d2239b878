package supervisor

import (
	"context"
	"fmt"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/cluster"
	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// admin is the supervisor's AdminService: process-level faults here;
// partition reads go to a running gateway (which merges every broker);
// gateway-level reads and faults go to every running gateway (use a
// gateway's own port to target one).
type admin struct {
	apb.UnimplementedAdminServiceServer
	s *Supervisor
}

func (a *admin) liveGateways() []apb.AdminServiceClient {
	var out []apb.AdminServiceClient
	for i, g := range a.s.gateways {
		if ok, _, _ := g.running(); ok {
			out = append(out, apb.NewAdminServiceClient(a.s.gwConns[i]))
		}
	}
	return out
}

// first calls fn on running gateways until one answers.
func first[T any](a *admin, fn func(apb.AdminServiceClient) (T, error)) (T, error) {
	var zero T
	err := status.Error(codes.Unavailable, "no gateway is running")
	for _, c := range a.liveGateways() {
		var out T
		if out, err = fn(c); err == nil {
			return out, nil
		}
	}
	return zero, err
}

func (a *admin) GetPartitions(ctx context.Context, r *apb.GetPartitionsRequest) (*apb.GetPartitionsResponse, error) {
	return first(a, func(c apb.AdminServiceClient) (*apb.GetPartitionsResponse, error) { return c.GetPartitions(ctx, r) })
}

func (a *admin) ListJobs(ctx context.Context, r *apb.ListJobsRequest) (*apb.ListJobsResponse, error) {
	return first(a, func(c apb.AdminServiceClient) (*apb.ListJobsResponse, error) { return c.ListJobs(ctx, r) })
}

func (a *admin) ListProcessInstances(ctx context.Context, r *apb.ListProcessInstancesRequest) (*apb.ListProcessInstancesResponse, error) {
	return first(a, func(c apb.AdminServiceClient) (*apb.ListProcessInstancesResponse, error) {
		return c.ListProcessInstances(ctx, r)
	})
}

func (a *admin) ListIncidents(ctx context.Context, r *apb.ListIncidentsRequest) (*apb.ListIncidentsResponse, error) {
	return first(a, func(c apb.AdminServiceClient) (*apb.ListIncidentsResponse, error) { return c.ListIncidents(ctx, r) })
}

// each calls fn on every running gateway; the first error wins.
func (a *admin) each(fn func(apb.AdminServiceClient) error) error {
	for _, c := range a.liveGateways() {
		if err := fn(c); err != nil {
			return err
		}
	}
	return nil
}

func (a *admin) ListStreams(ctx context.Context, r *apb.ListStreamsRequest) (*apb.ListStreamsResponse, error) {
	out := &apb.ListStreamsResponse{}
	err := a.each(func(c apb.AdminServiceClient) error {
		x, err := c.ListStreams(ctx, r)
		if err == nil {
			out.Streams = append(out.Streams, x.Streams...)
		}
		return err
	})
	return out, err
}

func (a *admin) ListLongPolls(ctx context.Context, r *apb.ListLongPollsRequest) (*apb.ListLongPollsResponse, error) {
	out := &apb.ListLongPollsResponse{}
	err := a.each(func(c apb.AdminServiceClient) error {
		x, err := c.ListLongPolls(ctx, r)
		if err == nil {
			out.LongPolls = append(out.LongPolls, x.LongPolls...)
		}
		return err
	})
	return out, err
}

func (a *admin) GetRequestCounts(ctx context.Context, r *apb.GetRequestCountsRequest) (*apb.GetRequestCountsResponse, error) {
	out := &apb.GetRequestCountsResponse{}
	err := a.each(func(c apb.AdminServiceClient) error {
		x, err := c.GetRequestCounts(ctx, r)
		if err == nil {
			out.Counts = append(out.Counts, x.Counts...)
		}
		return err
	})
	// the cluster's token endpoint (served here) counts "oauth/token"
	for _, c := range a.s.sec.faults.Counts(r.Method) {
		out.Counts = append(out.Counts, &apb.RequestCount{Method: c.Method, Peer: c.Peer, Count: c.Total, ByCode: c.ByCode, Timestamps: c.Timestamps})
	}
	return out, err
}

func (a *admin) InjectFault(ctx context.Context, r *apb.InjectFaultRequest) (*apb.InjectFaultResponse, error) {
	if x := r.GetReject(); x != nil && x.Method == "oauth/token" {
		// the cluster's token endpoint is served here, not by a gateway
		if x.Code <= 0 || x.Code > 16 || x.Count < 1 {
			return nil, status.Error(codes.InvalidArgument, "reject.code must be 1..16 and reject.count at least 1")
		}
		a.s.sec.faults.AddReject(x.Method, 0, codes.Code(x.Code), x.Count, x.Message)
		return &apb.InjectFaultResponse{}, nil
	}
	if x := r.GetExpireTokens(); x != nil {
		// one cutoff for every gateway, remembered for gateways restarted later
		upTo := a.s.sec.faults.ExpireTokens(x.IssuedUpToUnixS)
		r = &apb.InjectFaultRequest{Fault: &apb.InjectFaultRequest_ExpireTokens{ExpireTokens: &apb.ExpireTokensFault{IssuedUpToUnixS: upTo}}}
	}
	return &apb.InjectFaultResponse{}, a.each(func(c apb.AdminServiceClient) error {
		_, err := c.InjectFault(ctx, r)
		return err
	})
}

func (a *admin) ClearFaults(ctx context.Context, r *apb.ClearFaultsRequest) (*apb.ClearFaultsResponse, error) {
	a.s.sec.faults.Clear()
	return &apb.ClearFaultsResponse{}, a.each(func(c apb.AdminServiceClient) error {
		_, err := c.ClearFaults(ctx, r)
		return err
	})
}

func (a *admin) ResetStreams(ctx context.Context, r *apb.ResetStreamsRequest) (*apb.ResetStreamsResponse, error) {
	out := &apb.ResetStreamsResponse{}
	err := a.each(func(c apb.AdminServiceClient) error {
		x, err := c.ResetStreams(ctx, r)
		if err == nil {
			out.StreamsClosed += x.StreamsClosed
			out.LongPollsClosed += x.LongPollsClosed
		}
		return err
	})
	return out, err
}

// GetCluster lists the processes.
func (a *admin) GetCluster(ctx context.Context, _ *apb.GetClusterRequest) (*apb.GetClusterResponse, error) {
	s := a.s
	out := &apb.GetClusterResponse{PartitionCount: int32(s.cfg.Partitions)}
	for i, g := range s.gateways {
		ok, pid, _ := g.running()
		out.Gateways = append(out.Gateways, &apb.GatewayProcess{Index: int32(i), Address: g.addr(), Running: ok, Pid: int32(pid)})
	}
	for i, b := range s.brokers {
		ok, pid, _ := b.running()
		out.Brokers = append(out.Brokers, &apb.BrokerProcess{NodeId: int32(i), Address: b.addr(), Running: ok, Pid: int32(pid),
			PartitionIds: cluster.PartitionsOf(int32(i), int32(s.cfg.Brokers), int32(s.cfg.Partitions)),
			DataDir:      fmt.Sprintf("%s/broker-%d", s.cfg.DataDir, i)})
	}
	return out, nil
}

func (a *admin) broker(id int32) (*proc, error) {
	if id < 0 || int(id) >= len(a.s.brokers) {
		return nil, status.Errorf(codes.InvalidArgument, "no broker %d", id)
	}
	return a.s.brokers[id], nil
}

// StopBroker kills (or terminates) a broker.
func (a *admin) StopBroker(ctx context.Context, r *apb.StopBrokerRequest) (*apb.StopBrokerResponse, error) {
	b, err := a.broker(r.NodeId)
	if err != nil {
		return nil, err
	}
	a.s.opMu.Lock()
	defer a.s.opMu.Unlock()
	b.stop(r.Graceful)
	return &apb.StopBrokerResponse{}, nil
}

// StartBroker starts a stopped broker and waits until the gateways see it.
func (a *admin) StartBroker(ctx context.Context, r *apb.StartBrokerRequest) (*apb.StartBrokerResponse, error) {
	b, err := a.broker(r.NodeId)
	if err != nil {
		return nil, err
	}
	a.s.opMu.Lock()
	defer a.s.opMu.Unlock()
	if ok, _, _ := b.running(); !ok {
		if err := b.start(a.s.cfg.Bin, startTimeout); err != nil {
			return nil, status.Errorf(codes.Internal, "starting broker %d: %v", r.NodeId, err)
		}
	}
	if err := a.s.waitHealthy(startTimeout); err != nil {
		return nil, status.Error(codes.DeadlineExceeded, err.Error())
	}
	return &apb.StartBrokerResponse{}, nil
}

// RestartGateway stops a gateway and starts it on the same port.
func (a *admin) RestartGateway(ctx context.Context, r *apb.RestartGatewayRequest) (*apb.RestartGatewayResponse, error) {
	if r.Index < 0 || int(r.Index) >= len(a.s.gateways) {
		return nil, status.Errorf(codes.InvalidArgument, "no gateway %d", r.Index)
	}
	g := a.s.gateways[r.Index]
	a.s.opMu.Lock()
	defer a.s.opMu.Unlock()
	g.stop(r.Graceful)
	var err error
	for i := 0; i < 20; i++ { // the port can take a moment to be free again
		if err = g.start(a.s.cfg.Bin, startTimeout); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		return nil, status.Errorf(codes.Internal, "restarting gateway %d: %v", r.Index, err)
	}
	if err := a.s.waitHealthy(startTimeout); err != nil {
		return nil, status.Error(codes.DeadlineExceeded, err.Error())
	}
	if upTo := a.s.sec.faults.TokensExpiredUpTo(); upTo > 0 {
		// a fresh process has forgotten the expiry: tokens it covered stay expired
		c := apb.NewAdminServiceClient(a.s.gwConns[r.Index])
		if _, err := c.InjectFault(ctx, &apb.InjectFaultRequest{Fault: &apb.InjectFaultRequest_ExpireTokens{
			ExpireTokens: &apb.ExpireTokensFault{IssuedUpToUnixS: upTo}}}); err != nil {
			return nil, status.Errorf(codes.Internal, "restarted gateway %d: re-applying the token expiry: %v", r.Index, err)
		}
	}
	return &apb.RestartGatewayResponse{}, nil
}

// The engine clock and ResetState would have to move every broker process
// at once (and their partitions' logs in step); cluster mode does not
// offer them. Test kits use `jobwire-engine dev`.
const noClusterClock = "cluster mode does not support the engine clock or ResetState (GetClock, AdvanceClock, SetClock, ResetState): use `jobwire-engine dev`"

func (a *admin) GetClock(context.Context, *apb.GetClockRequest) (*apb.GetClockResponse, error) {
	return nil, status.Error(codes.Unimplemented, noClusterClock)
}

func (a *admin) AdvanceClock(context.Context, *apb.AdvanceClockRequest) (*apb.AdvanceClockResponse, error) {
	return nil, status.Error(codes.Unimplemented, noClusterClock)
}

func (a *admin) SetClock(context.Context, *apb.SetClockRequest) (*apb.SetClockResponse, error) {
	return nil, status.Error(codes.Unimplemented, noClusterClock)
}

func (a *admin) ResetState(context.Context, *apb.ResetStateRequest) (*apb.ResetStateResponse, error) {
	return nil, status.Error(codes.Unimplemented, noClusterClock)
}
