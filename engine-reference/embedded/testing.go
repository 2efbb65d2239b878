package embedded

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/jobwire/jobwire/engine-reference/internal/gateway"
	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
)

// The methods below are the engine's admin API (the one `jobwire-engine dev`
// serves over gRPC) as Go calls, for test kits: engine time, state reset,
// inspection and faults. They need an engine started without NoAdmin.

var errNoAdmin = errors.New("jobwire embedded engine: started with NoAdmin")

func (e *Engine) admin() (*gateway.Admin, error) {
	if e.noAdmin {
		return nil, errNoAdmin
	}
	return gateway.NewAdmin(e.e.GW), nil
}

// Clock returns engine time: wall time plus the offset AdvanceClock and
// SetClock added. Timers, job deadlines, retry back-offs and message TTLs
// follow it; network timeouts stay on wall time.
func (e *Engine) Clock(ctx context.Context) (time.Time, error) {
	a, err := e.admin()
	if err != nil {
		return time.Time{}, err
	}
	r, err := a.GetClock(ctx, &apb.GetClockRequest{})
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(r.NowMs), nil
}

// AdvanceClock moves engine time forward by d (millisecond precision) and
// returns once everything that became due (timer events, job time-outs, retry
// back-offs, message TTLs) is processed, with the new engine time.
func (e *Engine) AdvanceClock(ctx context.Context, d time.Duration) (time.Time, error) {
	a, err := e.admin()
	if err != nil {
		return time.Time{}, err
	}
	r, err := a.AdvanceClock(ctx, &apb.AdvanceClockRequest{DurationMs: d.Milliseconds()})
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(r.NowMs), nil
}

// SetClock sets engine time to t, as AdvanceClock does; engine time never
// runs backwards (an earlier t is an error).
func (e *Engine) SetClock(ctx context.Context, t time.Time) (time.Time, error) {
	a, err := e.admin()
	if err != nil {
		return time.Time{}, err
	}
	r, err := a.SetClock(ctx, &apb.SetClockRequest{EpochMs: t.UnixMilli()})
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(r.NowMs), nil
}

// Reset drops everything clients created (deployments, instances, jobs,
// messages, incidents, timers, decisions) and sets engine time back to wall
// time. Open connections, streams and long polls stay; keys keep growing.
func (e *Engine) Reset(ctx context.Context) error {
	a, err := e.admin()
	if err != nil {
		return err
	}
	_, err = a.ResetState(ctx, &apb.ResetStateRequest{})
	return err
}

// Job is a job as the engine holds it.
type Job struct {
	Key                int64
	Type               string
	State              string // "activatable", "activated", "failed_backoff", "incident", "completed", "error_thrown", "canceled"
	Retries            int32
	Worker             string
	Deadline           time.Time // activation deadline (engine time), zero unless activated
	ProcessInstanceKey int64
	ElementInstanceKey int64
	ErrorMessage       string
}

// Jobs lists the jobs of jobType ("" for every type) the engine knows.
func (e *Engine) Jobs(ctx context.Context, jobType string) ([]Job, error) {
	a, err := e.admin()
	if err != nil {
		return nil, err
	}
	r, err := a.ListJobs(ctx, &apb.ListJobsRequest{Type: jobType, IncludeJobs: true})
	if err != nil {
		return nil, err
	}
	out := make([]Job, 0, len(r.Jobs))
	for _, j := range r.Jobs {
		var dl time.Time
		if j.Deadline > 0 {
			dl = time.UnixMilli(j.Deadline)
		}
		out = append(out, Job{Key: j.Key, Type: j.Type, State: enumName(j.State.String(), "JOB_STATE_"), Retries: j.Retries,
			Worker: j.Worker, Deadline: dl, ProcessInstanceKey: j.ProcessInstanceKey, ElementInstanceKey: j.ElementInstanceKey,
			ErrorMessage: j.ErrorMessage})
	}
	return out, nil
}

// Instance is a process instance as the engine holds it.
type Instance struct {
	Key           int64
	ProcessID     string
	Version       int32
	State         string          // "active", "completed", "canceled", "incident"
	Variables     json.RawMessage // the root scope's variables, a JSON object
	IncidentCount int32
}

// Instances lists the process instances of processID ("" for every process).
func (e *Engine) Instances(ctx context.Context, processID string) ([]Instance, error) {
	a, err := e.admin()
	if err != nil {
		return nil, err
	}
	r, err := a.ListProcessInstances(ctx, &apb.ListProcessInstancesRequest{BpmnProcessId: processID, IncludeInstances: true})
	if err != nil {
		return nil, err
	}
	out := make([]Instance, 0, len(r.Instances))
	for _, i := range r.Instances {
		v := json.RawMessage(i.Variables)
		if len(v) == 0 {
			v = json.RawMessage("{}")
		}
		out = append(out, Instance{Key: i.Key, ProcessID: i.BpmnProcessId, Version: i.Version,
			State: enumName(i.State.String(), "PROCESS_INSTANCE_STATE_"), Variables: v, IncidentCount: i.IncidentCount})
	}
	return out, nil
}

// Incident is an open incident.
type Incident struct {
	Key                int64
	ProcessInstanceKey int64
	ElementInstanceKey int64
	JobKey             int64 // 0 unless a job's incident
	Type               string
	Message            string
}

// Incidents lists the open incidents of a process instance (0 for all).
func (e *Engine) Incidents(ctx context.Context, processInstanceKey int64) ([]Incident, error) {
	a, err := e.admin()
	if err != nil {
		return nil, err
	}
	r, err := a.ListIncidents(ctx, &apb.ListIncidentsRequest{ProcessInstanceKey: processInstanceKey})
	if err != nil {
		return nil, err
	}
	out := make([]Incident, 0, len(r.Incidents))
	for _, i := range r.Incidents {
		out = append(out, Incident{Key: i.Key, ProcessInstanceKey: i.ProcessInstanceKey, ElementInstanceKey: i.ElementInstanceKey,
			JobKey: i.JobKey, Type: i.Type, Message: i.Message})
	}
	return out, nil
}

// RejectNext makes the gateway reject the next count requests of method (a
// short name such as "ActivateJobs"; "" for every method) with code, e.g.
// codes.ResourceExhausted, until ClearFaults.
func (e *Engine) RejectNext(ctx context.Context, method string, code codes.Code, count int) error {
	a, err := e.admin()
	if err != nil {
		return err
	}
	_, err = a.InjectFault(ctx, &apb.InjectFaultRequest{Fault: &apb.InjectFaultRequest_Reject{Reject: &apb.RejectFault{
		Method: method, Code: int32(code), Count: int32(count), Message: "injected by the test"}}})
	return err
}

// ClearFaults removes every injected fault.
func (e *Engine) ClearFaults(ctx context.Context) error {
	a, err := e.admin()
	if err != nil {
		return err
	}
	_, err = a.ClearFaults(ctx, &apb.ClearFaultsRequest{})
	return err
}

// DropStreams ends every open job push stream (and parked long poll) with
// UNAVAILABLE, as a gateway restart would; workers reconnect.
func (e *Engine) DropStreams(ctx context.Context) error {
	a, err := e.admin()
	if err != nil {
		return err
	}
	_, err = a.ResetStreams(ctx, &apb.ResetStreamsRequest{Code: int32(codes.Unavailable), IncludeLongPolls: true})
	return err
}

func enumName(s, prefix string) string { return strings.ToLower(strings.TrimPrefix(s, prefix)) }
