package ui

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"

	"github.com/jobwire/jobwire/engine-reference/internal/gateway"
	"github.com/jobwire/jobwire/engine-reference/internal/gateway/auth"
	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
)

// LocalSeeder reads the starting point from in-process partitions (one
// Query per partition, run after its current batch).
func LocalSeeder(l *gateway.Local) Seeder {
	return func(ctx context.Context, limit int) ([]partition.InstanceView, []partition.JobView, error) {
		var insts []partition.InstanceView
		var jobs []partition.JobView
		for _, id := range l.IDs() {
			err := l.Parts[id].Query(ctx, func(s *partition.State) {
				i, j := partition.Views(s, limit)
				insts = append(insts, i...)
				jobs = append(jobs, j...)
			})
			if err != nil {
				return nil, nil, err
			}
		}
		return insts, jobs, nil
	}
}

// InspectorSeeder reads the starting point through the admin queries of a
// Broker (cluster mode: merged from every broker process). Instances get
// their open incidents; active elements are filled in by the next batch.
func InspectorSeeder(in gateway.Inspector) Seeder {
	return func(ctx context.Context, limit int) ([]partition.InstanceView, []partition.JobView, error) {
		ir, err := in.ListProcessInstances(ctx, &apb.ListProcessInstancesRequest{IncludeInstances: true})
		if err != nil {
			return nil, nil, err
		}
		jr, err := in.ListJobs(ctx, &apb.ListJobsRequest{IncludeJobs: true})
		if err != nil {
			return nil, nil, err
		}
		xr, err := in.ListIncidents(ctx, &apb.ListIncidentsRequest{})
		if err != nil {
			return nil, nil, err
		}
		incs := map[int64][]partition.IncidentView{}
		for _, x := range xr.Incidents {
			incs[x.ProcessInstanceKey] = append(incs[x.ProcessInstanceKey], partition.IncidentView{Key: x.Key,
				Instance: x.ProcessInstanceKey, Job: x.JobKey, Type: x.Type, Message: x.Message})
		}
		procs := map[int64]string{}
		var insts []partition.InstanceView
		done := 0
		for i := len(ir.Instances) - 1; i >= 0; i-- { // newest first
			x := ir.Instances[i]
			procs[x.Key] = x.BpmnProcessId
			st := strings.TrimPrefix(x.State.String(), "PROCESS_INSTANCE_STATE_")
			if st == "COMPLETED" || st == "CANCELED" {
				if done >= limit {
					continue
				}
				done++
			}
			v := partition.InstanceView{Key: x.Key, Process: x.BpmnProcessId, Version: x.Version, State: st,
				Incidents: incs[x.Key]}
			if len(x.Variables) <= partition.MaxViewVariables {
				v.Variables = x.Variables
			} else {
				v.Variables = x.Variables[:partition.MaxViewVariables]
			}
			insts = append(insts, v)
		}
		var jobs []partition.JobView
		done = 0
		for i := len(jr.Jobs) - 1; i >= 0; i-- {
			x := jr.Jobs[i]
			st := strings.TrimPrefix(x.State.String(), "JOB_STATE_")
			if st == "COMPLETED" || st == "CANCELED" || st == "ERROR_THROWN" {
				if done >= limit {
					continue
				}
				done++
			}
			v := partition.JobView{Key: x.Key, Instance: x.ProcessInstanceKey, Process: procs[x.ProcessInstanceKey],
				Type: x.Type, State: st, Worker: x.Worker, Retries: x.Retries, RetryAt: x.RetryAt,
				ErrorMessage: x.ErrorMessage, ErrorCode: x.ErrorCode, Incident: x.IncidentKey, Activations: x.ActivationCount,
				Yields: x.YieldCount, Timeouts: x.TimeoutCount, Fails: x.FailCount}
			if st == "ACTIVATED" {
				v.Deadline = x.Deadline
			}
			jobs = append(jobs, v)
		}
		return insts, jobs, nil
	}
}

// TablesOf reads a gateway's streams, parked polls and request counts
// through its admin service (gateway memory; no partition is asked).
func TablesOf(g *gateway.Gateway) GatewayTables {
	a := gateway.NewAdmin(g)
	return func(ctx context.Context) (*Tables, error) {
		t := &Tables{Streams: []Stream{}, Polls: []Poll{}, Requests: []RequestCount{}}
		ss, err := a.ListStreams(ctx, &apb.ListStreamsRequest{})
		if err != nil {
			return nil, err
		}
		for _, s := range ss.Streams {
			t.Streams = append(t.Streams, Stream{ID: s.Id, Aggregate: s.AggregateId, Type: s.Type, Worker: s.Worker,
				Peer: s.Peer, Received: s.JobsPushed, Yielded: s.JobsYielded, Ready: s.Ready})
		}
		ps, err := a.ListLongPolls(ctx, &apb.ListLongPollsRequest{})
		if err != nil {
			return nil, err
		}
		for _, p := range ps.LongPolls {
			t.Polls = append(t.Polls, Poll{Type: p.Type, Worker: p.Worker, Peer: p.Peer, Max: p.MaxJobsToActivate,
				ParkedAt: p.ParkedAt})
		}
		rc, err := a.GetRequestCounts(ctx, &apb.GetRequestCountsRequest{})
		if err != nil {
			return nil, err
		}
		for _, c := range rc.Counts {
			t.Requests = append(t.Requests, RequestCount{Method: c.Method, Peer: c.Peer, Count: c.Count, ByCode: c.ByCode})
		}
		return t, nil
	}
}

// ResolverOf resolves incidents through the gateway, as Operate's retry
// does: a JOB_NO_RETRIES incident whose job has no retries left gets one
// retry first, then the incident is resolved.
func ResolverOf(g *gateway.Gateway, h *Hub) Resolver {
	return func(ctx context.Context, key int64) error {
		if inc, job, ok := h.incident(key); ok && inc.Job != 0 && job.Retries <= 0 {
			if _, err := g.UpdateJobRetries(ctx, &pb.UpdateJobRetriesRequest{JobKey: inc.Job, Retries: 1}); err != nil {
				return err
			}
		}
		_, err := g.ResolveIncident(ctx, &pb.ResolveIncidentRequest{IncidentKey: key})
		return err
	}
}

// AdminCheck is the live view's credential check: the page lists jobs with
// their variables and resolves incidents, so it takes the admin API's
// credential, never a worker's token. With an admin token configured
// (--admin-token-file) a request must carry it, as "Authorization: Bearer
// <admin token>" or as the password of HTTP Basic credentials (what a
// browser can send; the user name is ignored). While the gateway requires
// tokens and no admin token is set, the admin API is off, and so is the
// page. With auth off it is open (nil Authorizer).
func AdminCheck(g *auth.AdminGuard) Authorizer {
	if g == nil || (g.Token == "" && !g.Off) {
		return nil
	}
	return func(r *http.Request) error {
		if g.Token == "" {
			return errors.New("the live view is off: the gateway requires authentication and no admin token was configured (--admin-token-file)")
		}
		var given string
		if _, pass, ok := r.BasicAuth(); ok {
			given = pass
		} else if v := r.Header.Get("Authorization"); len(v) > 7 && strings.EqualFold(v[:7], "bearer ") {
			given = strings.TrimSpace(v[7:])
		}
		if given == "" || subtle.ConstantTimeCompare([]byte(given), []byte(g.Token)) != 1 {
			return ErrUnauthenticated
		}
		return nil
	}
}
