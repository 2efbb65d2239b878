package jobwire

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/jobwire/jobwire/sdk-go/internal/pb"
)

// Process is a deployed process definition.
type Process struct {
	BPMNProcessID        string
	Version              int32
	ProcessDefinitionKey int64
	ResourceName         string
	TenantID             string
}

// Decision is a deployed DMN decision.
type Decision struct {
	DecisionID              string
	Name                    string
	Version                 int32
	DecisionKey             int64
	DecisionRequirementsID  string
	DecisionRequirementsKey int64
	TenantID                string
}

// Form is a deployed form.
type Form struct {
	FormID       string
	Version      int32
	FormKey      int64
	ResourceName string
	TenantID     string
}

// Deployment is the result of DeployResource / DeployFiles.
type Deployment struct {
	Key       int64
	TenantID  string
	Processes []Process
	Decisions []Decision
	Forms     []Form
}

// Resource is one file to deploy; the extension of Name (.bpmn, .dmn, .form) selects the parser.
type Resource struct {
	Name    string
	Content []byte
}

// DeployResource deploys one resource.
//
//	d, err := client.DeployResource(ctx, "order.bpmn", bpmnBytes)
//	fmt.Println(d.Processes[0].ProcessDefinitionKey)
func (c *Client) DeployResource(ctx context.Context, name string, content []byte) (*Deployment, error) {
	return c.DeployResources(ctx, "", Resource{Name: name, Content: content})
}

// DeployFiles reads and deploys files in one deployment.
func (c *Client) DeployFiles(ctx context.Context, paths ...string) (*Deployment, error) {
	var rs []Resource
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("jobwire: deploy: %w", err)
		}
		rs = append(rs, Resource{Name: filepath.Base(p), Content: b})
	}
	return c.DeployResources(ctx, "", rs...)
}

// DeployResources deploys resources for a tenant ("" = default tenant).
func (c *Client) DeployResources(ctx context.Context, tenantID string, resources ...Resource) (*Deployment, error) {
	req := &pb.DeployResourceRequest{TenantId: tenantID}
	for _, r := range resources {
		req.Resources = append(req.Resources, &pb.Resource{Name: r.Name, Content: r.Content})
	}
	resp, err := c.gw.DeployResource(ctx, req)
	if err != nil {
		return nil, wrapError("DeployResource", err)
	}
	d := &Deployment{Key: resp.GetKey(), TenantID: resp.GetTenantId()}
	for _, m := range resp.GetDeployments() {
		if p := m.GetProcess(); p != nil {
			d.Processes = append(d.Processes, Process{p.GetBpmnProcessId(), p.GetVersion(), p.GetProcessDefinitionKey(), p.GetResourceName(), p.GetTenantId()})
		}
		if x := m.GetDecision(); x != nil {
			d.Decisions = append(d.Decisions, Decision{x.GetDmnDecisionId(), x.GetDmnDecisionName(), x.GetVersion(), x.GetDecisionKey(), x.GetDmnDecisionRequirementsId(), x.GetDecisionRequirementsKey(), x.GetTenantId()})
		}
		if f := m.GetForm(); f != nil {
			d.Forms = append(d.Forms, Form{f.GetFormId(), f.GetVersion(), f.GetFormKey(), f.GetResourceName(), f.GetTenantId()})
		}
	}
	return d, nil
}

// CreateInstance describes a process instance to create: by
// ProcessDefinitionKey, or by BPMNProcessID and Version (-1 = latest; 0 is
// treated as latest too).
type CreateInstance struct {
	BPMNProcessID        string
	Version              int32
	ProcessDefinitionKey int64
	Variables            any // map, struct, json.RawMessage or nil
	TenantID             string
	StartElementIDs      []string // start at these elements instead of the start event
	Tags                 []string
}

// ProcessInstance is a created process instance.
type ProcessInstance struct {
	ProcessInstanceKey   int64
	ProcessDefinitionKey int64
	BPMNProcessID        string
	Version              int32
	TenantID             string
	Tags                 []string
}

// ProcessInstanceResult is a completed process instance with its variables.
type ProcessInstanceResult struct {
	ProcessInstance
	Variables json.RawMessage
}

// Decode unmarshals the result variables into v (numbers as json.Number when v is a map or any).
func (r *ProcessInstanceResult) Decode(v any) error { return decodeJSON(r.Variables, v) }

func (ci CreateInstance) request() (*pb.CreateProcessInstanceRequest, error) {
	vars, err := marshalVariables(ci.Variables)
	if err != nil {
		return nil, err
	}
	v := ci.Version
	if v == 0 {
		v = -1
	}
	req := &pb.CreateProcessInstanceRequest{ProcessDefinitionKey: ci.ProcessDefinitionKey, BpmnProcessId: ci.BPMNProcessID,
		Version: v, Variables: vars, TenantId: ci.TenantID, Tags: ci.Tags}
	for _, e := range ci.StartElementIDs {
		req.StartInstructions = append(req.StartInstructions, &pb.ProcessInstanceCreationStartInstruction{ElementId: e})
	}
	return req, nil
}

// CreateProcessInstance starts a process instance.
//
//	pi, err := client.CreateProcessInstance(ctx, jobwire.CreateInstance{
//		BPMNProcessID: "order", Version: -1, Variables: map[string]any{"orderId": 42}})
func (c *Client) CreateProcessInstance(ctx context.Context, ci CreateInstance) (*ProcessInstance, error) {
	req, err := ci.request()
	if err != nil {
		return nil, err
	}
	r, err := c.gw.CreateProcessInstance(ctx, req)
	if err != nil {
		return nil, wrapError("CreateProcessInstance", err)
	}
	c.checkTags(req, r.GetTags())
	return &ProcessInstance{r.GetProcessInstanceKey(), r.GetProcessDefinitionKey(), r.GetBpmnProcessId(), r.GetVersion(), r.GetTenantId(), r.GetTags()}, nil
}

// CreateProcessInstanceWithResult starts a process instance and waits until it
// completes, up to timeout (0 = the gateway's default). fetchVariables limits
// the returned variables (none = all).
func (c *Client) CreateProcessInstanceWithResult(ctx context.Context, ci CreateInstance, timeout time.Duration, fetchVariables ...string) (*ProcessInstanceResult, error) {
	req, err := ci.request()
	if err != nil {
		return nil, err
	}
	r, err := c.gw.CreateProcessInstanceWithResult(ctx, &pb.CreateProcessInstanceWithResultRequest{
		Request: req, RequestTimeout: timeout.Milliseconds(), FetchVariables: fetchVariables})
	if err != nil {
		return nil, wrapError("CreateProcessInstanceWithResult", err)
	}
	c.checkTags(req, r.GetTags())
	return &ProcessInstanceResult{
		ProcessInstance: ProcessInstance{r.GetProcessInstanceKey(), r.GetProcessDefinitionKey(), r.GetBpmnProcessId(), r.GetVersion(), r.GetTenantId(), r.GetTags()},
		Variables:       json.RawMessage(r.GetVariables()),
	}, nil
}

// checkTags logs once per client when instance tags were sent but the
// gateway's answer carries none: a gateway before Zeebe 8.8 does not know the
// field and creates the instance without them (protobuf drops unknown fields).
func (c *Client) checkTags(req *pb.CreateProcessInstanceRequest, got []string) {
	if len(req.GetTags()) == 0 || len(got) > 0 {
		return
	}
	c.tagsDropped.Do(func() {
		c.log.Warn("the gateway created the process instance without its tags: process instance tags need Zeebe 8.8 or newer; tags are ignored by this gateway",
			"tags", req.GetTags(), "bpmnProcessId", req.GetBpmnProcessId())
	})
}

// CancelProcessInstance cancels a running process instance.
func (c *Client) CancelProcessInstance(ctx context.Context, processInstanceKey int64) error {
	_, err := c.gw.CancelProcessInstance(ctx, &pb.CancelProcessInstanceRequest{ProcessInstanceKey: processInstanceKey})
	return wrapError("CancelProcessInstance", err)
}

// Message is a message to publish.
type Message struct {
	Name           string
	CorrelationKey string
	TimeToLive     time.Duration // how long it stays correlatable; 0 = correlate now or drop
	MessageID      string        // optional; a second message with the same id is rejected while alive
	Variables      any
	TenantID       string
}

// PublishMessage publishes a message and returns its key.
func (c *Client) PublishMessage(ctx context.Context, m Message) (int64, error) {
	vars, err := marshalVariables(m.Variables)
	if err != nil {
		return 0, err
	}
	r, err := c.gw.PublishMessage(ctx, &pb.PublishMessageRequest{Name: m.Name, CorrelationKey: m.CorrelationKey,
		TimeToLive: m.TimeToLive.Milliseconds(), MessageId: m.MessageID, Variables: vars, TenantId: m.TenantID})
	if err != nil {
		return 0, wrapError("PublishMessage", err)
	}
	return r.GetKey(), nil
}

// SetVariables sets variables on a scope (process or element instance key);
// local=false propagates each variable to the scope that already holds it.
func (c *Client) SetVariables(ctx context.Context, elementInstanceKey int64, variables any, local bool) (int64, error) {
	vars, err := marshalVariables(variables)
	if err != nil {
		return 0, err
	}
	if vars == "" {
		vars = "{}"
	}
	r, err := c.gw.SetVariables(ctx, &pb.SetVariablesRequest{ElementInstanceKey: elementInstanceKey, Variables: vars, Local: local})
	if err != nil {
		return 0, wrapError("SetVariables", err)
	}
	return r.GetKey(), nil
}

// ResolveIncident resolves an incident (after fixing its cause, e.g. UpdateJobRetries).
func (c *Client) ResolveIncident(ctx context.Context, incidentKey int64) error {
	_, err := c.gw.ResolveIncident(ctx, &pb.ResolveIncidentRequest{IncidentKey: incidentKey})
	return wrapError("ResolveIncident", err)
}

// UpdateJobRetries sets a job's retries.
func (c *Client) UpdateJobRetries(ctx context.Context, jobKey int64, retries int32) error {
	_, err := c.gw.UpdateJobRetries(ctx, &pb.UpdateJobRetriesRequest{JobKey: jobKey, Retries: retries})
	return wrapError("UpdateJobRetries", err)
}

// UpdateJobTimeout sets a job's activation timeout to timeout from now.
func (c *Client) UpdateJobTimeout(ctx context.Context, jobKey int64, timeout time.Duration) error {
	_, err := c.gw.UpdateJobTimeout(ctx, &pb.UpdateJobTimeoutRequest{JobKey: jobKey, Timeout: timeout.Milliseconds()})
	return wrapError("UpdateJobTimeout", err)
}

// CompleteJob completes a job with variables (nil = none).
func (c *Client) CompleteJob(ctx context.Context, jobKey int64, variables any) error {
	vars, err := marshalVariables(variables)
	if err != nil {
		return err
	}
	_, err = c.gw.CompleteJob(ctx, &pb.CompleteJobRequest{JobKey: jobKey, Variables: vars})
	return wrapError("CompleteJob", err)
}

// FailJob fails a job, leaving it retries attempts (0 raises an incident).
func (c *Client) FailJob(ctx context.Context, jobKey int64, retries int32, message string, opts ...FailOption) error {
	f := failConfig{retries: retries}
	for _, o := range opts {
		o(&f)
	}
	vars, err := marshalVariables(f.variables)
	if err != nil {
		return err
	}
	_, err = c.gw.FailJob(ctx, &pb.FailJobRequest{JobKey: jobKey, Retries: f.retries, ErrorMessage: message,
		RetryBackOff: f.backoff.Milliseconds(), Variables: vars})
	return wrapError("FailJob", err)
}

// ThrowError raises a BPMN error from a job, caught by an error boundary event with the same code.
func (c *Client) ThrowError(ctx context.Context, jobKey int64, code, message string, variables any) error {
	vars, err := marshalVariables(variables)
	if err != nil {
		return err
	}
	_, err = c.gw.ThrowError(ctx, &pb.ThrowErrorRequest{JobKey: jobKey, ErrorCode: code, ErrorMessage: message, Variables: vars})
	return wrapError("ThrowError", err)
}

// ActivateJobsRequest is a one-shot activation (use NewWorker for a worker).
type ActivateJobsRequest struct {
	Type           string
	Worker         string        // default: host name
	MaxJobs        int32         // default: 32
	Timeout        time.Duration // activation timeout; default 5 min
	RequestTimeout time.Duration // long-poll time; 0 = gateway default, < 0 = do not wait
	FetchVariables []string
	TenantIDs      []string
}

// ActivateJobs activates up to MaxJobs jobs once. The caller must complete or
// fail them (job.Complete etc. work on the returned jobs).
func (c *Client) ActivateJobs(ctx context.Context, r ActivateJobsRequest) ([]*Job, error) {
	if r.Worker == "" {
		r.Worker = defaultWorkerName()
	}
	if r.MaxJobs <= 0 {
		r.MaxJobs = 32
	}
	if r.Timeout <= 0 {
		r.Timeout = 5 * time.Minute
	}
	rt := r.RequestTimeout.Milliseconds()
	if r.RequestTimeout < 0 {
		rt = -1
	}
	stream, err := c.gw.ActivateJobs(ctx, &pb.ActivateJobsRequest{Type: r.Type, Worker: r.Worker, Timeout: r.Timeout.Milliseconds(),
		MaxJobsToActivate: r.MaxJobs, FetchVariable: r.FetchVariables, RequestTimeout: rt, TenantIds: r.TenantIDs})
	if err != nil {
		return nil, wrapError("ActivateJobs", err)
	}
	var jobs []*Job
	for {
		resp, err := stream.Recv()
		if err != nil {
			if isEOF(err) {
				return jobs, nil
			}
			return jobs, wrapError("ActivateJobs", err)
		}
		for _, j := range resp.GetJobs() {
			jobs = append(jobs, newJob(j, "poll", nil, c))
		}
	}
}

// Topology describes the cluster behind the gateway.
type Topology struct {
	Brokers           []Broker
	ClusterSize       int32
	PartitionsCount   int32
	ReplicationFactor int32
	GatewayVersion    string
}

// Broker is one broker of the topology.
type Broker struct {
	NodeID     int32
	Host       string
	Port       int32
	Version    string
	Partitions []Partition
}

// Partition is a partition as seen by one broker.
type Partition struct {
	PartitionID int32
	Role        string // LEADER, FOLLOWER, INACTIVE
	Health      string // HEALTHY, UNHEALTHY, DEAD
}

// Topology asks the gateway for the cluster topology (a cheap health check).
func (c *Client) Topology(ctx context.Context) (*Topology, error) {
	r, err := c.gw.Topology(ctx, &pb.TopologyRequest{})
	if err != nil {
		return nil, wrapError("Topology", err)
	}
	t := &Topology{ClusterSize: r.GetClusterSize(), PartitionsCount: r.GetPartitionsCount(), ReplicationFactor: r.GetReplicationFactor(), GatewayVersion: r.GetGatewayVersion()}
	for _, b := range r.GetBrokers() {
		br := Broker{NodeID: b.GetNodeId(), Host: b.GetHost(), Port: b.GetPort(), Version: b.GetVersion()}
		for _, p := range b.GetPartitions() {
			br.Partitions = append(br.Partitions, Partition{p.GetPartitionId(), p.GetRole().String(), p.GetHealth().String()})
		}
		t.Brokers = append(t.Brokers, br)
	}
	return t, nil
}
