// Package gateway serves the Zeebe gateway API (gateway_protocol.Gateway)
// over a Broker, plus jobwire's admin API, long polling, push streams,
// fault injection and token checks.
package gateway

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/gateway/faults"
	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Broker is what the gateway needs from the partitions: Local (the same
// process, `dev`) or a remote set of broker processes (cluster mode,
// package cluster). The gateway code is the same for both.
type Broker interface {
	PartitionCount() int32
	Submit(ctx context.Context, pid int32, c *partition.Command) (any, error)
	SubmitWithResult(ctx context.Context, pid int32, c *partition.Command) (any, <-chan partition.Result, error)
	// Post sends a command without waiting (yields, fail-backs).
	Post(pid int32, c *partition.Command)
	// Healthy reports whether a partition's leader is reachable.
	Healthy(pid int32) bool
	// Topology lists the brokers and the partitions they lead.
	Topology() []*pb.BrokerInfo
	Inspector
}

// StreamObserver is told about aggregated push streams as they come and go
// (a remote broker registers them with every broker process).
type StreamObserver interface {
	AggregateAdded(a Aggregate)
	AggregateRemoved(id string)
}

// Aggregate describes an aggregated push stream.
type Aggregate struct {
	ID, Type, Worker string
	Timeout          int64
	FetchVariables   []string
	TenantIDs        []string
}

// Version is reported as gatewayVersion in Topology.
const Version = "8.8.0"

// Gateway implements gateway_protocol.Gateway.
type Gateway struct {
	pb.UnimplementedGatewayServer
	broker  Broker
	Streams *Streams
	Polls   *LongPolls
	Faults  *faults.Faults
	rr      atomic.Uint32
	// brokerSet: SetBroker ran (partitions may forward commands from then on).
	brokerSet atomic.Bool
	host      string
	port      int32
	// DefaultLongPoll is used when requestTimeout is 0 (Zeebe: 10 s).
	DefaultLongPoll time.Duration
	// NoLongPolling answers every ActivateJobs at once, whatever its
	// requestTimeout (Zeebe with long polling disabled in its gateway config).
	NoLongPolling bool
	// RequestTimeout bounds waits on the broker (Zeebe: 15 s).
	RequestTimeout time.Duration
	// GoAway, set by the server, sends GOAWAY on every client connection
	// and closes them after grace (admin GoAwayFault).
	GoAway func(grace time.Duration) int

	closing   chan struct{} // closed by Shutdown
	closeOnce sync.Once
}

// errShuttingDown ends calls that wait (streams, long polls, results) when
// the gateway stops.
var errShuttingDown = status.Error(codes.Unavailable, "the gateway is shutting down")

// Shutdown ends every push stream, parked long poll and waiting
// CreateProcessInstanceWithResult call with UNAVAILABLE, and every such
// call that arrives later, so a graceful server stop does not wait on them.
func (g *Gateway) Shutdown() { g.closeOnce.Do(func() { close(g.closing) }) }

// PushedJob hands a job a broker pushed for an aggregated stream to a ready
// client stream, or yields it back to its partition.
func (g *Gateway) PushedJob(aggID string, job *pb.ActivatedJob) {
	if !g.Streams.DeliverPushed(aggID, job) {
		g.Streams.yield(job)
	}
}

// New creates a gateway; SetBroker must be called before serving.
func New() *Gateway {
	g := &Gateway{DefaultLongPoll: 10 * time.Second, RequestTimeout: 15 * time.Second, Faults: faults.NewFaults(),
		closing: make(chan struct{})}
	g.Streams = newStreams(g)
	g.Polls = newLongPolls()
	return g
}

// SetBroker connects the gateway to its partitions.
func (g *Gateway) SetBroker(b Broker, host string, port int) {
	g.broker = b
	g.brokerSet.Store(true)
	g.host, g.port = host, int32(port)
	if o, ok := b.(StreamObserver); ok {
		g.Streams.setObserver(o)
	}
}

// Broker returns the gateway's broker.
func (g *Gateway) Broker() Broker { return g.broker }

// NotifyJobsAvailable wakes long polls parked on a job type.
func (g *Gateway) NotifyJobsAvailable(jobType string) { g.Polls.notify(jobType) }

// NotifyAll wakes every parked long poll (e.g. a broker came back with
// jobs nobody was told about).
func (g *Gateway) NotifyAll() { g.Polls.notifyAll() }

// Hooks returns what the partitions call back into (push + notifications).
func (g *Gateway) Hooks() partition.Hooks { return hooks{g} }

type hooks struct{ g *Gateway }

func (h hooks) ReservePush(jobType, tenant string) (partition.PushTarget, bool) {
	return h.g.Streams.reserve(jobType, tenant)
}
func (h hooks) JobsAvailable(jobType string) { h.g.Polls.notify(jobType) }

// Forward delivers a partition's command to another partition of this
// process (message subscriptions, messages.go); false until the gateway
// has its broker (partitions start before it).
func (h hooks) Forward(pid int32, c *partition.Command) bool {
	if !h.g.brokerSet.Load() {
		return false
	}
	h.g.broker.Post(pid, c)
	return true
}

func (g *Gateway) partitionFor(op string, key int64, what string) (int32, error) {
	pid := partition.PartitionOf(key)
	if key <= 0 || pid < 1 || pid > g.broker.PartitionCount() {
		return 0, partition.Reject(op, partition.RejNotFound, "Expected to %s with key '%d', but no such %s was found", what, key, strings.Fields(what)[len(strings.Fields(what))-1])
	}
	return pid, nil
}

func (g *Gateway) submitKey(ctx context.Context, op string, key int64, what string, c *partition.Command) (any, error) {
	pid, err := g.partitionFor(op, key, what)
	if err != nil {
		return nil, err
	}
	c.Op, c.Key = op, key
	return g.broker.Submit(ctx, pid, c)
}

func checkTenant(t string) error {
	if t != "" && t != partition.DefaultTenant {
		return status.Errorf(codes.InvalidArgument, "Expected to handle request with tenant identifier '%s', but multi-tenancy is disabled", t)
	}
	return nil
}

func checkTenants(ts []string) error {
	for _, t := range ts {
		if err := checkTenant(t); err != nil {
			return err
		}
	}
	return nil
}

// CompleteJob completes a job.
func (g *Gateway) CompleteJob(ctx context.Context, r *pb.CompleteJobRequest) (*pb.CompleteJobResponse, error) {
	res, err := g.submitKey(ctx, partition.OpComplete, r.JobKey, "complete job", &partition.Command{Variables: r.Variables})
	if err != nil {
		return nil, err
	}
	return res.(*pb.CompleteJobResponse), nil
}

// FailJob fails a job.
func (g *Gateway) FailJob(ctx context.Context, r *pb.FailJobRequest) (*pb.FailJobResponse, error) {
	res, err := g.submitKey(ctx, partition.OpFail, r.JobKey, "fail job", &partition.Command{Retries: r.Retries,
		ErrorMessage: r.ErrorMessage, Backoff: r.RetryBackOff, Variables: r.Variables})
	if err != nil {
		return nil, err
	}
	return res.(*pb.FailJobResponse), nil
}

// ThrowError throws a BPMN error for a job.
func (g *Gateway) ThrowError(ctx context.Context, r *pb.ThrowErrorRequest) (*pb.ThrowErrorResponse, error) {
	res, err := g.submitKey(ctx, partition.OpThrowError, r.JobKey, "throw an error for job", &partition.Command{ErrorCode: r.ErrorCode,
		ErrorMessage: r.ErrorMessage, Variables: r.Variables})
	if err != nil {
		return nil, err
	}
	return res.(*pb.ThrowErrorResponse), nil
}

// UpdateJobRetries sets a job's retries.
func (g *Gateway) UpdateJobRetries(ctx context.Context, r *pb.UpdateJobRetriesRequest) (*pb.UpdateJobRetriesResponse, error) {
	res, err := g.submitKey(ctx, partition.OpUpdateRetries, r.JobKey, "update retries of job", &partition.Command{Retries: r.Retries})
	if err != nil {
		return nil, err
	}
	return res.(*pb.UpdateJobRetriesResponse), nil
}

// UpdateJobTimeout moves an activated job's deadline.
func (g *Gateway) UpdateJobTimeout(ctx context.Context, r *pb.UpdateJobTimeoutRequest) (*pb.UpdateJobTimeoutResponse, error) {
	res, err := g.submitKey(ctx, partition.OpUpdateTimeout, r.JobKey, "update the timeout of job", &partition.Command{Timeout: r.Timeout})
	if err != nil {
		return nil, err
	}
	return res.(*pb.UpdateJobTimeoutResponse), nil
}

// CancelProcessInstance cancels an instance.
func (g *Gateway) CancelProcessInstance(ctx context.Context, r *pb.CancelProcessInstanceRequest) (*pb.CancelProcessInstanceResponse, error) {
	res, err := g.submitKey(ctx, partition.OpCancel, r.ProcessInstanceKey, "cancel a process instance", &partition.Command{})
	if err != nil {
		return nil, err
	}
	return res.(*pb.CancelProcessInstanceResponse), nil
}

// SetVariables sets variables on a scope.
func (g *Gateway) SetVariables(ctx context.Context, r *pb.SetVariablesRequest) (*pb.SetVariablesResponse, error) {
	res, err := g.submitKey(ctx, partition.OpSetVariables, r.ElementInstanceKey, "update variables for element", &partition.Command{Variables: r.Variables, Local: r.Local})
	if err != nil {
		return nil, err
	}
	return res.(*pb.SetVariablesResponse), nil
}

// ResolveIncident resolves an incident.
func (g *Gateway) ResolveIncident(ctx context.Context, r *pb.ResolveIncidentRequest) (*pb.ResolveIncidentResponse, error) {
	res, err := g.submitKey(ctx, partition.OpResolve, r.IncidentKey, "resolve incident", &partition.Command{})
	if err != nil {
		return nil, err
	}
	return res.(*pb.ResolveIncidentResponse), nil
}

// DeployResource deploys BPMN resources on the deployment partition (1).
func (g *Gateway) DeployResource(ctx context.Context, r *pb.DeployResourceRequest) (*pb.DeployResourceResponse, error) {
	if err := checkTenant(r.TenantId); err != nil {
		return nil, err
	}
	c := &partition.Command{Op: partition.OpDeploy}
	for _, res := range r.Resources {
		c.Resources = append(c.Resources, partition.Resource{Name: res.Name, Content: res.Content})
	}
	res, err := g.broker.Submit(ctx, 1, c)
	if err != nil {
		return nil, err
	}
	out := res.(*pb.DeployResourceResponse)
	g.distribute(ctx, c.Resources, out)
	return out, nil
}

// distribute copies a deployment from partition 1 to every other partition
// (Zeebe distributes deployments the same way). Reachable partitions get it
// before the deploy is answered; unreachable ones are retried in the
// background until their broker is back (for as long as this gateway runs).
func (g *Gateway) distribute(ctx context.Context, res []partition.Resource, out *pb.DeployResourceResponse) {
	var defs []partition.DefMeta
	for _, d := range out.Deployments {
		if p := d.GetProcess(); p != nil {
			defs = append(defs, partition.DefMeta{Key: p.ProcessDefinitionKey, BpmnProcessID: p.BpmnProcessId,
				Version: p.Version, ResourceName: p.ResourceName, DeploymentKey: out.Key})
		}
	}
	dmns := partition.DecisionMetas(out)
	forms := partition.FormMetas(out)
	if len(defs) == 0 && len(dmns) == 0 && len(forms) == 0 {
		return
	}
	for pid := int32(2); pid <= g.broker.PartitionCount(); pid++ {
		cmd := func() *partition.Command {
			return &partition.Command{Op: partition.OpDistribute, Resources: res, Defs: defs, DMN: dmns, Forms: forms}
		}
		if g.broker.Healthy(pid) {
			if _, err := g.broker.Submit(ctx, pid, cmd()); err == nil {
				continue
			}
		}
		go func(pid int32) {
			for i := 0; i < 3000; i++ {
				time.Sleep(200 * time.Millisecond)
				if !g.broker.Healthy(pid) {
					continue
				}
				c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				_, err := g.broker.Submit(c, pid, cmd())
				cancel()
				if err == nil {
					return
				}
			}
		}(pid)
	}
}

// nextPartition picks the next partition round-robin, skipping partitions
// whose leader is unreachable (Zeebe's round-robin skips partitions without
// a leader). With none reachable it returns one anyway (UNAVAILABLE).
func (g *Gateway) nextPartition() int32 {
	n := g.broker.PartitionCount()
	var pid int32
	for i := int32(0); i < n; i++ {
		pid = int32(g.rr.Add(1)-1)%n + 1
		if g.broker.Healthy(pid) {
			return pid
		}
	}
	return pid
}

func createCommand(r *pb.CreateProcessInstanceRequest) (*partition.Command, error) {
	if r == nil {
		return nil, status.Error(codes.InvalidArgument, "Expected a create process instance request, but none given")
	}
	if err := checkTenant(r.TenantId); err != nil {
		return nil, err
	}
	if len(r.StartInstructions) > 0 || len(r.RuntimeInstructions) > 0 {
		return nil, status.Error(codes.InvalidArgument, "start and runtime instructions are not supported by jobwire-engine")
	}
	return &partition.Command{Op: partition.OpCreate, DefKey: r.ProcessDefinitionKey, BpmnProcessID: r.BpmnProcessId,
		Version: r.Version, Variables: r.Variables}, nil
}

// CreateProcessInstance starts an instance on the next partition
// (round-robin, as the Zeebe gateway spreads instances).
func (g *Gateway) CreateProcessInstance(ctx context.Context, r *pb.CreateProcessInstanceRequest) (*pb.CreateProcessInstanceResponse, error) {
	c, err := createCommand(r)
	if err != nil {
		return nil, err
	}
	res, err := g.broker.Submit(ctx, g.nextPartition(), c)
	if err != nil {
		return nil, err
	}
	out := res.(*pb.CreateProcessInstanceResponse)
	out.Tags = r.Tags
	return out, nil
}

// CreateProcessInstanceWithResult starts an instance and waits for it to
// complete.
func (g *Gateway) CreateProcessInstanceWithResult(ctx context.Context, r *pb.CreateProcessInstanceWithResultRequest) (*pb.CreateProcessInstanceWithResultResponse, error) {
	c, err := createCommand(r.Request)
	if err != nil {
		return nil, err
	}
	c.FetchVariables = r.FetchVariables
	timeout := g.RequestTimeout
	if r.RequestTimeout > 0 {
		timeout = time.Duration(r.RequestTimeout) * time.Millisecond
	}
	_, ch, err := g.broker.SubmitWithResult(ctx, g.nextPartition(), c)
	if err != nil {
		return nil, err
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case res := <-ch:
		if res.Err != nil {
			return nil, res.Err
		}
		out := res.Resp.(*pb.CreateProcessInstanceWithResultResponse)
		out.Tags = r.Request.Tags
		return out, nil
	case <-t.C:
		return nil, status.Errorf(codes.DeadlineExceeded, "Time out between gateway and broker: the process instance did not complete within %v", timeout)
	case <-g.closing:
		return nil, errShuttingDown
	case <-ctx.Done():
		return nil, status.FromContextError(ctx.Err()).Err()
	}
}

// PublishMessage stores a message on the partition of its correlation key.
func (g *Gateway) PublishMessage(ctx context.Context, r *pb.PublishMessageRequest) (*pb.PublishMessageResponse, error) {
	if err := checkTenant(r.TenantId); err != nil {
		return nil, err
	}
	if strings.TrimSpace(r.Name) == "" {
		return nil, status.Error(codes.InvalidArgument, "Expected to publish a message with a name, but the name was empty")
	}
	if r.TimeToLive < 0 {
		return nil, status.Errorf(codes.InvalidArgument, "Expected timeToLive to be zero or positive, but was '%d'", r.TimeToLive)
	}
	pid := partition.MessagePartition(r.CorrelationKey, g.broker.PartitionCount())
	res, err := g.broker.Submit(ctx, pid, &partition.Command{Op: partition.OpPublish, Name: r.Name,
		CorrelationKey: r.CorrelationKey, MessageID: r.MessageId, TTL: r.TimeToLive, Variables: r.Variables})
	if err != nil {
		return nil, err
	}
	return res.(*pb.PublishMessageResponse), nil
}

// Topology describes the brokers and the partitions they lead (one
// embedded broker in `dev`; a stopped broker's partitions are DEAD).
func (g *Gateway) Topology(ctx context.Context, r *pb.TopologyRequest) (*pb.TopologyResponse, error) {
	bs := g.broker.Topology()
	return &pb.TopologyResponse{Brokers: bs, ClusterSize: int32(len(bs)), PartitionsCount: g.broker.PartitionCount(),
		ReplicationFactor: 1, GatewayVersion: Version}, nil
}
