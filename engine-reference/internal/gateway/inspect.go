package gateway

import (
	"context"
	"sort"

	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	"github.com/jobwire/jobwire/engine-reference/internal/vars"
)

// Inspector answers the partition-level admin queries. Local implements it
// for in-process partitions; a remote broker merges the answers of every
// broker process.
type Inspector interface {
	GetPartitions(ctx context.Context, r *apb.GetPartitionsRequest) (*apb.GetPartitionsResponse, error)
	ListJobs(ctx context.Context, r *apb.ListJobsRequest) (*apb.ListJobsResponse, error)
	ListProcessInstances(ctx context.Context, r *apb.ListProcessInstancesRequest) (*apb.ListProcessInstancesResponse, error)
	ListIncidents(ctx context.Context, r *apb.ListIncidentsRequest) (*apb.ListIncidentsResponse, error)
}

// eachPartition runs fn on every local partition's goroutine (after its
// current batch), so reads see committed, consistent state without locks.
func (l *Local) eachPartition(ctx context.Context, fn func(*partition.State)) error {
	for _, pid := range l.ids() {
		if err := l.Parts[pid].Query(ctx, fn); err != nil {
			return err
		}
	}
	return nil
}

// GetPartitions lists partitions and their counters.
func (l *Local) GetPartitions(ctx context.Context, _ *apb.GetPartitionsRequest) (*apb.GetPartitionsResponse, error) {
	out := &apb.GetPartitionsResponse{}
	for _, pid := range l.ids() {
		s := l.Parts[pid].Stats()
		out.Partitions = append(out.Partitions, &apb.PartitionInfo{PartitionId: s.ID, LogPosition: s.LogPosition,
			CommittedBatches: s.Batches, Fsyncs: s.Fsyncs, ActiveProcessInstances: s.ActiveInstances,
			JobsActivatable: s.Activatable, JobsActivated: s.Activated, Healthy: true})
	}
	return out, nil
}

// ListJobs counts (and optionally lists) jobs.
func (l *Local) ListJobs(ctx context.Context, r *apb.ListJobsRequest) (*apb.ListJobsResponse, error) {
	out := &apb.ListJobsResponse{CountsByState: map[string]int64{}}
	err := l.eachPartition(ctx, func(s *partition.State) {
		for typ, byState := range s.History.EvictedJobs {
			if r.Type != "" && typ != r.Type {
				continue
			}
			for st, n := range byState {
				out.CountsByState[partition.JobStateNames[st]] += n
			}
		}
		each := func(fn func(j *partition.Job)) {
			for _, j := range s.Jobs {
				fn(j)
			}
			for _, j := range s.History.Jobs {
				fn(j)
			}
		}
		each(func(j *partition.Job) {
			if r.Type != "" && j.Type != r.Type {
				return
			}
			out.CountsByState[partition.JobStateNames[j.State]]++
			if r.IncludeJobs {
				out.Jobs = append(out.Jobs, &apb.JobInfo{Key: j.Key, Type: j.Type, State: apb.JobState(j.State), Retries: j.Retries,
					Worker: j.Worker, Deadline: j.Deadline, ProcessInstanceKey: j.InstanceKey, ActivationCount: j.Activations,
					YieldCount: j.Yields, TimeoutCount: j.Timeouts, CompleteCount: j.Completes, FailCount: j.Fails,
					ErrorMessage: j.ErrorMessage, ElementInstanceKey: j.ElemKey, IncidentKey: j.IncidentKey, RetryAt: retryAt(j),
					ErrorCode: j.ErrorCode, ErrorVariables: j.ErrorVariables, Variables: jobVars(s, j, r.IncludeVariables),
					FetchVariables: j.LastFetch, FetchVariablesAll: j.Fetched && len(j.LastFetch) == 0, LastRetryBackoffMs: j.LastBackoff})
			}
		})
	})
	sort.Slice(out.Jobs, func(i, k int) bool { return out.Jobs[i].Key < out.Jobs[k].Key })
	return out, err
}

// jobVars: the variables the job's live element instance sees ("" once it ended).
func jobVars(s *partition.State, j *partition.Job, want bool) string {
	if !want {
		return ""
	}
	in, e := s.Instances[j.InstanceKey], s.Elems[j.ElemKey]
	if in == nil || e == nil {
		return ""
	}
	return vars.Encode(s.ScopeVars(in, e))
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
func (l *Local) ListProcessInstances(ctx context.Context, r *apb.ListProcessInstancesRequest) (*apb.ListProcessInstancesResponse, error) {
	out := &apb.ListProcessInstancesResponse{CountsByState: map[string]int64{}}
	err := l.eachPartition(ctx, func(s *partition.State) {
		for pid, byState := range s.History.EvictedInstances {
			if r.BpmnProcessId != "" && pid != r.BpmnProcessId {
				continue
			}
			for st, n := range byState {
				switch st {
				case partition.InstCompleted:
					out.CountsByState["COMPLETED"] += n
				case partition.InstCanceled:
					out.CountsByState["CANCELED"] += n
				}
			}
		}
		var elems map[int64][]*apb.ElementInstanceInfo // live element instances by process instance
		if r.IncludeInstances && r.IncludeElements {
			elems = map[int64][]*apb.ElementInstanceInfo{}
			for _, e := range s.Elems {
				if e.Element == nil {
					continue
				}
				elems[e.InstanceKey] = append(elems[e.InstanceKey], &apb.ElementInstanceInfo{Key: e.Key,
					ElementId: e.Element.ID, ScopeKey: e.ScopeKey, Variables: vars.Encode(e.Vars)})
			}
		}
		each := func(fn func(in *partition.Instance)) {
			for _, in := range s.Instances {
				fn(in)
			}
			for _, in := range s.History.Instances {
				fn(in)
			}
		}
		each(func(in *partition.Instance) {
			if r.BpmnProcessId != "" && in.BpmnProcessID != r.BpmnProcessId {
				return
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
					ProcessDefinitionKey: in.DefKey, Version: in.Version, IncidentCount: int32(in.Incidents),
					ActiveElements: sortedElems(elems[in.Key])})
			}
		})
	})
	sort.Slice(out.Instances, func(i, k int) bool { return out.Instances[i].Key < out.Instances[k].Key })
	return out, err
}

// ListIncidents lists open incidents.
func (l *Local) ListIncidents(ctx context.Context, r *apb.ListIncidentsRequest) (*apb.ListIncidentsResponse, error) {
	out := &apb.ListIncidentsResponse{}
	err := l.eachPartition(ctx, func(s *partition.State) {
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

func sortedElems(es []*apb.ElementInstanceInfo) []*apb.ElementInstanceInfo {
	sort.Slice(es, func(i, k int) bool { return es[i].Key < es[k].Key })
	return es
}
