package gateway

import (
	"context"
	"sort"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	"github.com/jobwire/jobwire/engine-reference/internal/vars"
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

func (a *Admin) eachPartition(ctx context.Context, fn func(*partition.State)) error {
	for pid := int32(1); pid <= a.g.broker.PartitionCount(); pid++ {
		if err := a.g.broker.Query(ctx, pid, fn); err != nil {
			return err
		}
	}
	return nil
}

// GetPartitions lists partitions and their counters.
func (a *Admin) GetPartitions(ctx context.Context, _ *apb.GetPartitionsRequest) (*apb.GetPartitionsResponse, error) {
	out := &apb.GetPartitionsResponse{}
	for _, s := range a.g.broker.Stats() {
		out.Partitions = append(out.Partitions, &apb.PartitionInfo{PartitionId: s.ID, LogPosition: s.LogPosition,
			CommittedBatches: s.Batches, Fsyncs: s.Fsyncs, ActiveProcessInstances: s.ActiveInstances,
			JobsActivatable: s.Activatable, JobsActivated: s.Activated, Healthy: a.g.broker.Healthy(s.ID)})
	}
	return out, nil
}

// ListJobs counts (and optionally lists) jobs.
func (a *Admin) ListJobs(ctx context.Context, r *apb.ListJobsRequest) (*apb.ListJobsResponse, error) {
	out := &apb.ListJobsResponse{CountsByState: map[string]int64{}}
	err := a.eachPartition(ctx, func(s *partition.State) {
		for _, j := range s.Jobs {
			if r.Type != "" && j.Type != r.Type {
				continue
			}
			out.CountsByState[partition.JobStateNames[j.State]]++
			if r.IncludeJobs {
				out.Jobs = append(out.Jobs, &apb.JobInfo{Key: j.Key, Type: j.Type, State: apb.JobState(j.State), Retries: j.Retries,
					Worker: j.Worker, Deadline: j.Deadline, ProcessInstanceKey: j.InstanceKey, ActivationCount: j.Activations,
					YieldCount: j.Yields, TimeoutCount: j.Timeouts, CompleteCount: j.Completes, FailCount: j.Fails,
					ErrorMessage: j.ErrorMessage, ElementInstanceKey: j.ElemKey, IncidentKey: j.IncidentKey, RetryAt: retryAt(j)})
			}
		}
	})
	sort.Slice(out.Jobs, func(i, k int) bool { return out.Jobs[i].Key < out.Jobs[k].Key })
	return out, err
}

func retryAt(j *partition.Job) int64 {
	if j.State == partition.JobFailedBackoff {
		return j.RecurAt
	}
	return 0
}

var instStateNames = map[apb.ProcessInstanceState]string{
	apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_ACTIVE:    "ACTIVE",
	apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_COMPLETED: "COMPLETED",
	apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_CANCELED:  "CANCELED",
	apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_INCIDENT:  "INCIDENT",
}

// ListProcessInstances counts (and optionally lists) process instances.
func (a *Admin) ListProcessInstances(ctx context.Context, r *apb.ListProcessInstancesRequest) (*apb.ListProcessInstancesResponse, error) {
	out := &apb.ListProcessInstancesResponse{CountsByState: map[string]int64{}}
	err := a.eachPartition(ctx, func(s *partition.State) {
		for _, in := range s.Instances {
			if r.BpmnProcessId != "" && in.BpmnProcessID != r.BpmnProcessId {
				continue
			}
			st := apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_ACTIVE
			switch {
			case in.State == partition.InstCompleted:
				st = apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_COMPLETED
			case in.State == partition.InstCanceled:
				st = apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_CANCELED
			case in.Incidents > 0:
				st = apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_INCIDENT
			}
			out.CountsByState[instStateNames[st]]++
			if r.IncludeInstances {
				out.Instances = append(out.Instances, &apb.ProcessInstanceInfo{Key: in.Key, BpmnProcessId: in.BpmnProcessID,
					State: st, Variables: vars.Encode(in.Vars), CompletionCount: in.Completions,
					ProcessDefinitionKey: in.DefKey, Version: in.Version, IncidentCount: int32(in.Incidents)})
			}
		}
	})
	sort.Slice(out.Instances, func(i, k int) bool { return out.Instances[i].Key < out.Instances[k].Key })
	return out, err
}

// ListIncidents lists open incidents.
func (a *Admin) ListIncidents(ctx context.Context, r *apb.ListIncidentsRequest) (*apb.ListIncidentsResponse, error) {
	out := &apb.ListIncidentsResponse{}
	err := a.eachPartition(ctx, func(s *partition.State) {
		for _, inc := range s.Incidents {
			if r.ProcessInstanceKey != 0 && inc.InstanceKey != r.ProcessInstanceKey {
				continue
			}
			out.Incidents = append(out.Incidents, &apb.IncidentInfo{Key: inc.Key, ProcessInstanceKey: inc.InstanceKey,
				ElementInstanceKey: inc.ElemKey, JobKey: inc.JobKey, Type: inc.Type, Message: inc.Message})
		}
	})
	sort.Slice(out.Incidents, func(i, k int) bool { return out.Incidents[i].Key < out.Incidents[k].Key })
	return out, err
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
