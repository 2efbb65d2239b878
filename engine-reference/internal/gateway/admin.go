package gateway

import (
	"context"
	"sort"
	"time"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Admin implements jobwire.admin.v1.AdminService. Reads run on each
// partition's goroutine (after its current batch), so they see committed,
// consistent state without locks.
type Admin struct {
	apb.UnimplementedAdminServiceServer
	g *Gateway
}

// NewAdmin returns the admin service for a gateway.
func NewAdmin(g *Gateway) *Admin { return &Admin{g: g} }

// GetPartitions lists partitions and their counters.
func (a *Admin) GetPartitions(ctx context.Context, r *apb.GetPartitionsRequest) (*apb.GetPartitionsResponse, error) {
	return a.g.broker.GetPartitions(ctx, r)
}

// ListJobs counts (and optionally lists) jobs.
func (a *Admin) ListJobs(ctx context.Context, r *apb.ListJobsRequest) (*apb.ListJobsResponse, error) {
	return a.g.broker.ListJobs(ctx, r)
}

// ListProcessInstances counts (and optionally lists) process instances.
func (a *Admin) ListProcessInstances(ctx context.Context, r *apb.ListProcessInstancesRequest) (*apb.ListProcessInstancesResponse, error) {
	return a.g.broker.ListProcessInstances(ctx, r)
}

// ListIncidents lists open incidents.
func (a *Admin) ListIncidents(ctx context.Context, r *apb.ListIncidentsRequest) (*apb.ListIncidentsResponse, error) {
	return a.g.broker.ListIncidents(ctx, r)
}

// ListStreams lists open push streams.
func (a *Admin) ListStreams(ctx context.Context, _ *apb.ListStreamsRequest) (*apb.ListStreamsResponse, error) {
	out := &apb.ListStreamsResponse{}
	for _, s := range a.g.Streams.Snapshot() {
		out.Streams = append(out.Streams, &apb.StreamInfo{Id: s.ID, Type: s.Type, Worker: s.Worker, Peer: s.Peer,
			JobsPushed: s.Pushed, JobsYielded: s.Yielded, Ready: s.Ready, AggregateId: s.AggregateID})
	}
	return out, nil
}

// ListLongPolls lists parked long polls.
func (a *Admin) ListLongPolls(ctx context.Context, _ *apb.ListLongPollsRequest) (*apb.ListLongPollsResponse, error) {
	out := &apb.ListLongPollsResponse{}
	for _, w := range a.g.Polls.Snapshot() {
		out.LongPolls = append(out.LongPolls, &apb.LongPollInfo{Type: w.typ, Worker: w.worker, Peer: w.peer,
			MaxJobsToActivate: w.max, ParkedAt: w.parkedAt})
	}
	sort.Slice(out.LongPolls, func(i, k int) bool { return out.LongPolls[i].ParkedAt < out.LongPolls[k].ParkedAt })
	return out, nil
}

// GetRequestCounts returns per-method, per-peer request counts.
func (a *Admin) GetRequestCounts(ctx context.Context, r *apb.GetRequestCountsRequest) (*apb.GetRequestCountsResponse, error) {
	out := &apb.GetRequestCountsResponse{}
	for _, c := range a.g.Faults.Counts(r.Method) {
		out.Counts = append(out.Counts, &apb.RequestCount{Method: c.Method, Peer: c.Peer, Count: c.Total, ByCode: c.ByCode, Timestamps: c.Timestamps})
	}
	sort.Slice(out.Counts, func(i, k int) bool {
		if out.Counts[i].Method != out.Counts[k].Method {
			return out.Counts[i].Method < out.Counts[k].Method
		}
		return out.Counts[i].Peer < out.Counts[k].Peer
	})
	return out, nil
}

// InjectFault adds a fault.
func (a *Admin) InjectFault(ctx context.Context, r *apb.InjectFaultRequest) (*apb.InjectFaultResponse, error) {
	switch f := r.Fault.(type) {
	case *apb.InjectFaultRequest_Reject:
		x := f.Reject
		if x.Code <= 0 || x.Code > 16 {
			return nil, status.Errorf(codes.InvalidArgument, "reject.code must be a gRPC status code 1..16, got %d", x.Code)
		}
		if x.Count < 1 {
			return nil, status.Error(codes.InvalidArgument, "reject.count must be at least 1")
		}
		if x.PartitionId < 0 || x.PartitionId > a.g.broker.PartitionCount() {
			return nil, status.Errorf(codes.InvalidArgument, "reject.partition_id %d does not exist", x.PartitionId)
		}
		if x.AfterApply {
			if x.PartitionId != 0 {
				return nil, status.Error(codes.InvalidArgument, "reject.after_apply is gateway-level: partition_id must be 0")
			}
			a.g.Faults.AddRejectAfterApply(x.Method, codes.Code(x.Code), x.Count, x.Message)
			break
		}
		a.g.Faults.AddReject(x.Method, x.PartitionId, codes.Code(x.Code), x.Count, x.Message)
	case *apb.InjectFaultRequest_Latency:
		if f.Latency.DelayMs < 0 {
			return nil, status.Error(codes.InvalidArgument, "latency.delay_ms must not be negative")
		}
		a.g.Faults.SetLatency(f.Latency.Method, time.Duration(f.Latency.DelayMs)*time.Millisecond)
	case *apb.InjectFaultRequest_StallStreams:
		d := time.Duration(f.StallStreams.DurationMs) * time.Millisecond
		if f.StallStreams.DurationMs <= 0 {
			d = 24 * time.Hour
		}
		a.g.Streams.Stall(f.StallStreams.Type, time.Now().Add(d))
	case *apb.InjectFaultRequest_LongPoll:
		x := f.LongPoll
		if x.Code <= 0 || x.Code > 16 {
			return nil, status.Errorf(codes.InvalidArgument, "long_poll.code must be a gRPC status code 1..16, got %d", x.Code)
		}
		if x.Count < 1 || x.AfterMs < 0 {
			return nil, status.Error(codes.InvalidArgument, "long_poll.count must be at least 1 and after_ms not negative")
		}
		a.g.Faults.AddLongPollFault(codes.Code(x.Code), x.Count, time.Duration(x.AfterMs)*time.Millisecond)
	case *apb.InjectFaultRequest_GoAway:
		if a.g.GoAway == nil {
			return nil, status.Error(codes.FailedPrecondition, "this server cannot send GOAWAY")
		}
		a.g.GoAway(time.Duration(f.GoAway.GraceMs) * time.Millisecond)
	case *apb.InjectFaultRequest_ExpireTokens:
		a.g.Faults.ExpireTokens(f.ExpireTokens.IssuedUpToUnixS)
	default:
		return nil, status.Error(codes.InvalidArgument, "no fault given")
	}
	return &apb.InjectFaultResponse{}, nil
}

// ClearFaults removes every fault (including stream stalls).
func (a *Admin) ClearFaults(ctx context.Context, _ *apb.ClearFaultsRequest) (*apb.ClearFaultsResponse, error) {
	a.g.Faults.Clear()
	a.g.Streams.ClearStalls()
	return &apb.ClearFaultsResponse{}, nil
}

// ResetStreams ends open streams (and parked long polls) with a status.
func (a *Admin) ResetStreams(ctx context.Context, r *apb.ResetStreamsRequest) (*apb.ResetStreamsResponse, error) {
	code := codes.Unavailable
	if r.Code > 0 && r.Code <= 16 {
		code = codes.Code(r.Code)
	}
	out := &apb.ResetStreamsResponse{StreamsClosed: int32(a.g.Streams.ResetAll(code))}
	if r.IncludeLongPolls {
		out.LongPollsClosed = int32(a.g.Polls.ResetAll(code))
	}
	return out, nil
}
