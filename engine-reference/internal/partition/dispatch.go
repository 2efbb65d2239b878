package partition

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/jobwire/jobwire/engine-reference/internal/bpmn"
	"github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"github.com/jobwire/jobwire/engine-reference/internal/vars"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// DefaultTenant is Zeebe's tenant id when multi-tenancy is off.
const DefaultTenant = "<default>"

// dispatchHook, if set, sees every command before it is processed (tests:
// recovery from results records must not process anything).
var dispatchHook func(*Command)

func (p *Partition) dispatch(c *Command, fx *effects) (any, error) {
	if dispatchHook != nil {
		dispatchHook(c)
	}
	switch c.Op {
	case OpDeploy:
		return p.deploy(c)
	case OpDistribute:
		return p.distribute(c)
	case OpCreate:
		return p.create(c, fx)
	case OpCancel:
		return p.cancel(c, fx)
	case OpSetVariables:
		return p.setVariables(c)
	case OpComplete:
		return p.complete(c, fx)
	case OpFail:
		return p.fail(c, fx)
	case OpThrowError:
		return p.throwError(c, fx)
	case OpUpdateRetries:
		return p.updateRetries(c)
	case OpUpdateTimeout:
		return p.updateTimeout(c)
	case OpResolve:
		return p.resolve(c, fx)
	case OpPublish:
		return p.publishAndCorrelate(c, fx)
	case OpEvaluate:
		return p.evaluate(c)
	case OpActivate:
		return p.activate(c)
	case OpTimeOut, OpRecur, OpYield, OpReturn:
		return p.jobTimerLike(c, fx)
	case OpKeys:
		if c.Key > p.st.counter {
			p.st.counter = c.Key
		}
		return nil, nil
	}
	if resp, err, ok := p.dispatchEvents(c, fx); ok {
		return resp, err
	}
	if resp, err, ok := p.dispatchOps(c, fx); ok {
		return resp, err
	}
	return nil, status.Errorf(codes.Internal, "unknown command %q", c.Op)
}

func (p *Partition) deploy(c *Command) (any, error) {
	if len(c.Resources) == 0 {
		return nil, reject(c.Op, RejInvalidArgument, "Expected to deploy at least one resource, but none given")
	}
	type parsed struct {
		res   Resource
		procs []*bpmn.Process
	}
	var all []parsed
	var errs []string
	seen := map[string]bool{}
	for _, r := range c.Resources {
		lower := strings.ToLower(r.Name)
		if isDMN(lower) {
			continue // parsed below (decisions.go)
		}
		if !strings.HasSuffix(lower, ".bpmn") && !strings.HasSuffix(lower, ".xml") {
			errs = append(errs, "'"+r.Name+"': jobwire-engine deploys BPMN and DMN only (resource name must end with .bpmn, .xml or .dmn)")
			continue
		}
		procs, err := bpmn.Parse(r.Name, r.Content)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		for _, pr := range procs {
			if seen[pr.ID] {
				errs = append(errs, "'"+r.Name+"': duplicate process id '"+pr.ID+"' in one deployment")
			}
			seen[pr.ID] = true
		}
		all = append(all, parsed{r, procs})
	}
	dmns, dmnErrs := parseDMNResources(c.Resources)
	errs = append(errs, dmnErrs...)
	if len(errs) > 0 {
		return nil, reject(c.Op, RejInvalidArgument, "Expected to deploy new resources, but encountered the following errors:\n%s", strings.Join(errs, "\n"))
	}
	depKey := p.st.nextKey()
	resp := &gatewaypb.DeployResourceResponse{Key: depKey, TenantId: DefaultTenant}
	for _, pr := range all {
		sum := sha256.Sum256(pr.res.Content)
		for _, proc := range pr.procs {
			checksum := hex.EncodeToString(sum[:])
			latest := p.st.defs.Version(proc.ID, -1)
			var d *Def
			if latest != nil && latest.Checksum == checksum && latest.ResourceName == pr.res.Name {
				d = latest // identical redeploy keeps the version, as Zeebe does
			} else {
				v := p.st.defs.nextVersion(proc.ID)
				d = &Def{Key: p.st.nextKey(), BpmnProcessID: proc.ID, Version: v, ResourceName: pr.res.Name,
					Checksum: checksum, Process: proc, DeploymentKey: depKey, Resource: pr.res.Content}
				p.addDef(d)
				p.scheduleStartTimers(c, d)
			}
			resp.Deployments = append(resp.Deployments, &gatewaypb.Deployment{Metadata: &gatewaypb.Deployment_Process{
				Process: &gatewaypb.ProcessMetadata{BpmnProcessId: d.BpmnProcessID, Version: d.Version,
					ProcessDefinitionKey: d.Key, ResourceName: d.ResourceName, TenantId: DefaultTenant}}})
		}
	}
	p.deployDMN(dmns, depKey, resp)
	return resp, nil
}

// distribute registers definitions deployed on partition 1 (same keys and
// versions), so this partition can create instances of them even when it
// runs in another broker process. Logged, so replay restores them.
func (p *Partition) distribute(c *Command) (any, error) {
	if err := p.distributeDMN(c); err != nil {
		return nil, err
	}
	for _, r := range c.Resources {
		if isDMN(r.Name) {
			continue
		}
		procs, err := bpmn.Parse(r.Name, r.Content)
		if err != nil {
			return nil, reject(c.Op, RejInvalidArgument, "distributed resource '%s' does not parse: %v", r.Name, err)
		}
		sum := sha256.Sum256(r.Content)
		for _, proc := range procs {
			for _, m := range c.Defs {
				if m.BpmnProcessID != proc.ID || m.ResourceName != r.Name {
					continue
				}
				if d := p.st.defs.ByKey(m.Key); d != nil {
					// Registered by another partition sharing the registry
					// (a broker's or dev's partitions): still this
					// partition's results, so its own log restores it.
					p.trackDef(d)
					continue
				}
				p.addDef(&Def{Key: m.Key, BpmnProcessID: proc.ID, Version: m.Version, ResourceName: r.Name,
					Checksum: hex.EncodeToString(sum[:]), Process: proc, DeploymentKey: m.DeploymentKey, Resource: r.Content})
			}
		}
	}
	return nil, nil
}

func (p *Partition) create(c *Command, fx *effects) (any, error) {
	var d *Def
	switch {
	case c.DefKey != 0:
		d = p.st.defs.ByKey(c.DefKey)
		if d == nil {
			return nil, reject(c.Op, RejNotFound, "Expected to find process definition with key '%d', but none found", c.DefKey)
		}
	case c.BpmnProcessID != "":
		v := c.Version
		if v <= 0 {
			v = -1
		}
		d = p.st.defs.Version(c.BpmnProcessID, v)
		if d == nil {
			if v < 0 {
				return nil, reject(c.Op, RejNotFound, "Expected to find process definition with process ID '%s', but none found", c.BpmnProcessID)
			}
			return nil, reject(c.Op, RejNotFound, "Expected to find process definition with process ID '%s' and version '%d', but none found", c.BpmnProcessID, v)
		}
	default:
		return nil, reject(c.Op, RejInvalidArgument, "Expected either a bpmnProcessId or a processDefinitionKey, but none given")
	}
	if d.Process.Start == nil {
		return nil, reject(c.Op, RejInvalidArgument, "Expected to create instance of process with none start event, but there is no such event")
	}
	doc, err := vars.Parse(c.Variables)
	if err != nil {
		return nil, reject(c.Op, RejInvalidArgument, "Property 'variables' is invalid: %v", err)
	}
	c.DefKey = d.Key // pin the resolved version for replay
	in := &Instance{Key: p.st.nextKey(), DefKey: d.Key, BpmnProcessID: d.BpmnProcessID, Version: d.Version,
		State: InstActive, Vars: doc, elems: map[int64]*ElemInst{}, proc: d.Process}
	p.st.Instances[in.Key] = in
	p.st.newInst(in.Key)
	p.st.activeInstances++
	if c.WithResult && !c.replaying {
		p.waiters[in.Key] = append(p.waiters[in.Key], c)
	}
	in.tokens = 1
	p.st.dirtyInst(in.Key)
	p.run(c, fx, in, []step{{el: d.Process.Start}})
	return &gatewaypb.CreateProcessInstanceResponse{ProcessDefinitionKey: d.Key, BpmnProcessId: d.BpmnProcessID,
		Version: d.Version, ProcessInstanceKey: in.Key, TenantId: DefaultTenant}, nil
}

func (p *Partition) cancel(c *Command, fx *effects) (any, error) {
	in := p.inst(c.Key)
	if in == nil || in.State != InstActive {
		return nil, reject(c.Op, RejNotFound, "Expected to cancel a process instance with key '%d', but no such process was found", c.Key)
	}
	if in.ParentKey != 0 {
		root := in
		for root.ParentKey != 0 && p.inst(root.ParentKey) != nil {
			root = p.inst(root.ParentKey)
		}
		return nil, reject(c.Op, RejInvalidState, "Expected to cancel a process instance with key '%d', but it is created by a parent process instance. Cancel the root process instance '%d' instead.", c.Key, root.Key)
	}
	p.cancelInstance(c, fx, in)
	return &gatewaypb.CancelProcessInstanceResponse{}, nil
}

func (p *Partition) setVariables(c *Command) (any, error) {
	var in *Instance
	var el *ElemInst
	if x := p.inst(c.Key); x != nil && x.State == InstActive {
		in = x
	} else if e := p.elem(c.Key); e != nil {
		el = e
		in = p.inst(e.InstanceKey)
	}
	if in == nil {
		return nil, reject(c.Op, RejNotFound, "Expected to update variables for element with key '%d', but no such element was found", c.Key)
	}
	doc, err := vars.Parse(c.Variables)
	if err != nil {
		return nil, reject(c.Op, RejInvalidArgument, "Property 'variables' is invalid: %v", err)
	}
	switch {
	case el != nil && c.Local:
		p.setLocal(el, doc)
	case el != nil:
		p.mergePropagate(in, el.Key, doc)
	default:
		p.mergePropagate(in, 0, doc)
	}
	return &gatewaypb.SetVariablesResponse{Key: p.st.nextKey()}, nil
}

func (p *Partition) publish(c *Command) (any, error) {
	id := c.Name + "\x00" + c.CorrelationKey + "\x00" + c.MessageID
	if c.MessageID != "" {
		if m, ok := p.st.messages[id]; ok && m.deadline > c.Now {
			return nil, reject(c.Op, RejAlreadyExists, "Expected to publish a new message with id '%s', but a message with that id was already published", c.MessageID)
		}
	}
	if _, err := vars.Parse(c.Variables); err != nil {
		return nil, reject(c.Op, RejInvalidArgument, "Property 'variables' is invalid: %v", err)
	}
	if len(p.st.messages) > 10000 {
		for k, m := range p.st.messages { // order-independent, so replay-safe
			if m.deadline <= c.Now {
				delete(p.st.messages, k)
				p.st.dirtyMsgID(k)
			}
		}
	}
	key := p.st.nextKey()
	if c.MessageID != "" && c.TTL > 0 {
		p.st.messages[id] = message{key: key, deadline: c.Now + c.TTL}
		p.st.dirtyMsgID(id)
	}
	return &gatewaypb.PublishMessageResponse{Key: key, TenantId: DefaultTenant}, nil
}

func (p *Partition) answerWaiters(fx *effects, in *Instance, err error) {
	ws := p.waiters[in.Key]
	if len(ws) == 0 {
		return
	}
	delete(p.waiters, in.Key)
	for _, w := range ws {
		w := w
		var r Result
		if err != nil {
			r.Err = err
		} else {
			r.Resp = &gatewaypb.CreateProcessInstanceWithResultResponse{ProcessDefinitionKey: in.DefKey,
				BpmnProcessId: in.BpmnProcessID, Version: in.Version, ProcessInstanceKey: in.Key,
				Variables: vars.Encode(vars.Filter(in.Vars, w.FetchVariables)), TenantId: DefaultTenant}
		}
		fx.results = append(fx.results, func() { w.result <- r })
	}
}
