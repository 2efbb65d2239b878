package cluster

import (
	"context"
	"sort"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
)

// The admin reads are answered by every broker for its own partitions and
// merged here. Brokers without a session are skipped (their partitions show
// as unhealthy in GetPartitions; their jobs and instances are not listed
// until they are back).

func (r *Remote) alive() []*link {
	var out []*link
	for _, l := range r.links {
		if l.alive.Load() {
			out = append(out, l)
		}
	}
	return out
}

// GetPartitions merges every broker's partitions.
func (r *Remote) GetPartitions(ctx context.Context, req *apb.GetPartitionsRequest) (*apb.GetPartitionsResponse, error) {
	out := &apb.GetPartitionsResponse{}
	seen := map[int32]bool{}
	for _, l := range r.alive() {
		resp, err := l.admin.GetPartitions(ctx, req)
		if err != nil {
			continue
		}
		for _, p := range resp.Partitions {
			seen[p.PartitionId] = true
			out.Partitions = append(out.Partitions, p)
		}
	}
	for pid := int32(1); pid <= r.count; pid++ {
		if !seen[pid] {
			out.Partitions = append(out.Partitions, &apb.PartitionInfo{PartitionId: pid, Healthy: false})
		}
	}
	sort.Slice(out.Partitions, func(i, j int) bool { return out.Partitions[i].PartitionId < out.Partitions[j].PartitionId })
	return out, nil
}

func addCounts(dst, src map[string]int64) {
	for k, v := range src {
		dst[k] += v
	}
}

// ListJobs merges every broker's jobs.
func (r *Remote) ListJobs(ctx context.Context, req *apb.ListJobsRequest) (*apb.ListJobsResponse, error) {
	out := &apb.ListJobsResponse{CountsByState: map[string]int64{}}
	for _, l := range r.alive() {
		resp, err := l.admin.ListJobs(ctx, req)
		if err != nil {
			continue
		}
		addCounts(out.CountsByState, resp.CountsByState)
		out.Jobs = append(out.Jobs, resp.Jobs...)
	}
	sort.Slice(out.Jobs, func(i, k int) bool { return out.Jobs[i].Key < out.Jobs[k].Key })
	return out, nil
}

// ListProcessInstances merges every broker's instances.
func (r *Remote) ListProcessInstances(ctx context.Context, req *apb.ListProcessInstancesRequest) (*apb.ListProcessInstancesResponse, error) {
	out := &apb.ListProcessInstancesResponse{CountsByState: map[string]int64{}}
	for _, l := range r.alive() {
		resp, err := l.admin.ListProcessInstances(ctx, req)
		if err != nil {
			continue
		}
		addCounts(out.CountsByState, resp.CountsByState)
		out.Instances = append(out.Instances, resp.Instances...)
	}
	sort.Slice(out.Instances, func(i, k int) bool { return out.Instances[i].Key < out.Instances[k].Key })
	return out, nil
}

// ListIncidents merges every broker's incidents.
func (r *Remote) ListIncidents(ctx context.Context, req *apb.ListIncidentsRequest) (*apb.ListIncidentsResponse, error) {
	out := &apb.ListIncidentsResponse{}
	for _, l := range r.alive() {
		resp, err := l.admin.ListIncidents(ctx, req)
		if err != nil {
			continue
		}
		out.Incidents = append(out.Incidents, resp.Incidents...)
	}
	sort.Slice(out.Incidents, func(i, k int) bool { return out.Incidents[i].Key < out.Incidents[k].Key })
	return out, nil
}
