package partition

import (
	"github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"github.com/jobwire/jobwire/engine-reference/internal/vars"
	"google.golang.org/protobuf/proto"
)

// MaxActivationBytes caps one ActivateJobsResponse (gateway maxMessageSize
// is 4 MB; keep headroom for framing).
const MaxActivationBytes = 4<<20 - 16<<10

// findJob applies Zeebe's job preconditions. Jobs that are completed,
// canceled or ended by a caught error no longer exist for commands
// (NOT_FOUND). Failed jobs (back-off, incident) exist but are in the wrong
// state (FAILED_PRECONDITION) for everything but retry updates.
func (p *Partition) findJob(c *Command, verb string, okStates ...int) (*Job, error) {
	j := p.job(c.Key)
	if j == nil || j.State == JobCompleted || j.State == JobCanceled || j.State == JobErrorThrown {
		return nil, reject(c.Op, RejNotFound, "Expected to %s job with key '%d', but no such job was found", verb, c.Key)
	}
	for _, s := range okStates {
		if j.State == s {
			return j, nil
		}
	}
	return nil, reject(c.Op, RejInvalidState, "Expected to %s job with key '%d', but it is in state '%s'", verb, c.Key, jobStateForMessage(j.State))
}

func jobStateForMessage(s int) string {
	switch s {
	case JobFailedBackoff, JobIncident:
		return "FAILED"
	}
	return JobStateNames[s]
}

// CompleteJob is accepted for ACTIVATED and ACTIVATABLE jobs, as in Zeebe:
// a late completion after a time-out still completes the job (at most once).
func (p *Partition) complete(c *Command, fx *effects) (any, error) {
	j, err := p.findJob(c, "complete", JobActivated, JobActivatable)
	if err != nil {
		return nil, err
	}
	doc, err := vars.Parse(c.Variables)
	if err != nil {
		return nil, reject(c.Op, RejInvalidArgument, "Property 'variables' is invalid: %v", err)
	}
	p.st.setJobState(j, JobCompleted)
	j.Completes++
	j.Worker, j.Deadline = "", 0
	in := p.inst(j.InstanceKey)
	e := p.elem(j.ElemKey)
	if in == nil || e == nil {
		return &gatewaypb.CompleteJobResponse{}, nil
	}
	// Zeebe: without output mappings the variables are merged starting at
	// the task's own scope and propagated upwards; each variable is updated
	// on the nearest scope that defines it, and created on the process
	// instance (the root scope) when no scope does. A variable local to the
	// task is therefore updated there and ends with the task. With output
	// mappings they are local to the task and only the mapped targets
	// propagate (completeActivity).
	p.run(c, fx, in, p.completeActivity(c, fx, in, e, doc, nil))
	return &gatewaypb.CompleteJobResponse{}, nil
}

// FailJob is accepted for ACTIVATED and ACTIVATABLE jobs, as in Zeebe
// (JobFailProcessor's precondition): a worker whose job timed out can still
// fail it. A retryBackOff <= 0 means "retry at once" (Zeebe schedules a
// back-off only when it is > 0), so a negative value is not an error.
func (p *Partition) fail(c *Command, fx *effects) (any, error) {
	j, err := p.findJob(c, "fail", JobActivated, JobActivatable)
	if err != nil {
		return nil, err
	}
	doc, err := vars.Parse(c.Variables)
	if err != nil {
		return nil, reject(c.Op, RejInvalidArgument, "Property 'variables' is invalid: %v", err)
	}
	j.Fails++
	j.Retries = c.Retries
	j.ErrorMessage = c.ErrorMessage
	j.LastBackoff = c.Backoff
	j.Worker, j.Deadline = "", 0
	if e := p.elem(j.ElemKey); e != nil {
		p.setLocal(e, doc)
	}
	switch {
	case c.Retries <= 0:
		p.st.setJobState(j, JobIncident)
		msg := c.ErrorMessage
		if msg == "" {
			msg = "No more retries left."
		}
		p.jobIncident(p.inst(j.InstanceKey), j, "JOB_NO_RETRIES", msg)
	case c.Backoff > 0:
		p.st.setJobState(j, JobFailedBackoff)
		j.RecurAt = c.Now + c.Backoff
		p.addTimer(j.RecurAt, j.Key, OpRecur)
	default:
		p.makeAvailable(c, fx, j, true)
	}
	return &gatewaypb.FailJobResponse{}, nil
}

func (p *Partition) jobIncident(in *Instance, j *Job, typ, msg string) {
	inc := &Incident{Key: p.st.nextKey(), InstanceKey: j.InstanceKey, ElemKey: j.ElemKey, JobKey: j.Key, Type: typ, Message: msg}
	p.st.Incidents[inc.Key] = inc
	p.st.dirtyInc(inc.Key)
	p.st.dirtyInst(inc.InstanceKey)
	j.IncidentKey = inc.Key
	if in != nil {
		in.Incidents++
		p.st.dirtyInst(in.Key)
	}
}

func (p *Partition) throwError(c *Command, fx *effects) (any, error) {
	j, err := p.findJob(c, "throw an error for", JobActivated, JobActivatable)
	if err != nil {
		return nil, err
	}
	doc, err := vars.Parse(c.Variables)
	if err != nil {
		return nil, reject(c.Op, RejInvalidArgument, "Property 'variables' is invalid: %v", err)
	}
	in := p.inst(j.InstanceKey)
	e := p.elem(j.ElemKey)
	j.Worker, j.Deadline = "", 0
	j.ErrorMessage = c.ErrorMessage
	j.ErrorCode = c.ErrorCode
	j.ErrorVariables = ""
	if len(doc) > 0 {
		j.ErrorVariables = vars.Encode(doc)
	}
	if in != nil && e != nil {
		// Zeebe 8.8 sets the thrown variables on the catch event's own
		// scope; without output mappings on the catch event (not in this
		// BPMN subset) they are not propagated to the process instance. The
		// boundary event completes at once, so they live on only in the job
		// (admin ListJobs: error_variables).
		// With output mappings on the catching event, they see the thrown
		// variables (signals.go, enterMappedEvent).
		if steps, ok := p.throwFromVars(c, fx, in, e, e.ScopeKey, c.ErrorCode, nil, func() { p.st.setJobState(j, JobErrorThrown) }, doc); ok {
			p.run(c, fx, in, steps)
			return &gatewaypb.ThrowErrorResponse{}, nil
		}
	}
	p.st.setJobState(j, JobIncident)
	p.jobIncident(in, j, "UNHANDLED_ERROR_EVENT", "Expected to throw an error event with the code '"+c.ErrorCode+"' with message '"+c.ErrorMessage+"', but it was not caught. No error events are available in the scope.")
	return &gatewaypb.ThrowErrorResponse{}, nil
}

func (p *Partition) updateRetries(c *Command) (any, error) {
	if c.Retries < 1 {
		return nil, reject(c.Op, RejInvalidArgument, "Expected to update retries for job with key '%d' with a positive amount of retries, but the amount given was '%d'", c.Key, c.Retries)
	}
	j, err := p.findJob(c, "update retries of", JobActivatable, JobActivated, JobFailedBackoff, JobIncident)
	if err != nil {
		return nil, err
	}
	j.Retries = c.Retries
	return &gatewaypb.UpdateJobRetriesResponse{}, nil
}

func (p *Partition) updateTimeout(c *Command) (any, error) {
	if c.Timeout <= 0 {
		return nil, reject(c.Op, RejInvalidArgument, "Expected to update the timeout of job with key '%d' to a positive duration, but was '%d'", c.Key, c.Timeout)
	}
	j, err := p.findJob(c, "update the timeout of", JobActivated)
	if err != nil {
		return nil, err
	}
	j.Deadline = c.Now + c.Timeout
	p.addTimer(j.Deadline, j.Key, OpTimeOut)
	return &gatewaypb.UpdateJobTimeoutResponse{}, nil
}

func (p *Partition) resolve(c *Command, fx *effects) (any, error) {
	inc := p.incident(c.Key)
	if inc == nil {
		return nil, reject(c.Op, RejNotFound, "Expected to resolve incident with key '%d', but no such incident was found", c.Key)
	}
	in := p.inst(inc.InstanceKey)
	if p.st.touched != nil {
		p.st.touched.instance(inc.InstanceKey)
	}
	if inc.JobKey != 0 {
		j := p.job(inc.JobKey)
		if j != nil && inc.Type == "JOB_NO_RETRIES" && j.Retries <= 0 {
			return nil, reject(c.Op, RejInvalidState, "Expected to resolve incident with key '%d', but job '%d' has no retries left; update the job's retries first", c.Key, j.Key)
		}
		delete(p.st.Incidents, inc.Key)
		p.st.dirtyInc(inc.Key)
		if in != nil {
			in.Incidents--
			p.st.dirtyInst(in.Key)
		}
		if j != nil {
			j.IncidentKey = 0
			p.makeAvailable(c, fx, j, true)
		}
		return &gatewaypb.ResolveIncidentResponse{}, nil
	}
	delete(p.st.Incidents, inc.Key)
	p.st.dirtyInc(inc.Key)
	e := p.elem(inc.ElemKey)
	if in == nil || e == nil || in.State != InstActive {
		return &gatewaypb.ResolveIncidentResponse{}, nil
	}
	in.Incidents--
	p.st.dirtyInst(in.Key)
	p.resolveElem(c, fx, in, e)
	return &gatewaypb.ResolveIncidentResponse{}, nil
}

// makeAvailable puts a job into ACTIVATABLE. If push is allowed and a push
// stream is ready, the job is activated for it right here (same processing
// step, as Zeebe does) and delivered after commit; otherwise pollers are
// notified.
func (p *Partition) makeAvailable(c *Command, fx *effects, j *Job, push bool) {
	p.st.setJobState(j, JobActivatable)
	j.Worker, j.Deadline = "", 0
	p.st.enqueue(j)
	if push && p.tryPush(c, fx, j) {
		return
	}
	fx.notifyType(j.Type)
}

// PushOldestFirst (the --push-order flag, "oldest" by default): when a job
// becomes activatable and a push stream of its type is ready, the partition
// pushes the oldest activatable job of that type and tenant, which is the
// new job itself unless earlier jobs are waiting. Zeebe ("new") pushes only
// the job that just became activatable, so a job it yielded in a burst waits
// for a poll however long the stream keeps its worker full (issue 12 item 8);
// oldest-first gives every waiting job its turn at the next push, and the
// pushes follow the order in which jobs became activatable, as polls do.
var PushOldestFirst = true

// pushCandidate is the job a push triggered by j offers to the streams.
func (p *Partition) pushCandidate(j *Job) *Job {
	if !PushOldestFirst {
		return j
	}
	q := compactQueue(p.st, p.st.queues[j.Type])
	p.st.queues[j.Type] = q
	if len(q) == 0 {
		return j
	}
	if h := p.st.Jobs[q[0].key]; h != nil && h.TenantID == j.TenantID {
		return h
	}
	return j
}

// tryPush offers a job to the push streams after j became activatable (the
// oldest waiting one, see PushOldestFirst) and reports whether j itself was
// pushed; if another job was, j stays activatable and pollers are told.
func (p *Partition) tryPush(c *Command, fx *effects, j *Job) bool {
	if c.replaying {
		// The log names the pushed job. The first recorded push whose job is
		// still activatable and of j's type is this call's: pushes are logged
		// in call order, and each earlier call's job is activated by now.
		for _, y := range c.Yields {
			if y == j.Key {
				j.Activations++
				j.Yields++
			}
		}
		for _, ps := range c.Pushes {
			if h := p.job(ps.Key); h != nil && h.State == JobActivatable && h.Type == j.Type {
				p.activateJob(h, ps.Worker, ps.Deadline)
				return h == j
			}
		}
		return false
	}
	if p.cfg.Hooks == nil {
		return false
	}
	t, had := p.cfg.Hooks.ReservePush(j.Type, j.TenantID)
	if t != nil {
		h := p.pushCandidate(j)
		deadline := c.Now + t.Timeout()
		p.activateJob(h, t.Worker(), deadline)
		c.Pushes = append(c.Pushes, Push{Key: h.Key, Worker: t.Worker(), Deadline: deadline})
		fx.pushes = append(fx.pushes, pushOut{t, p.activatedJob(h, t.FetchVariables())})
		return h == j
	}
	if had {
		// Streams exist but none could take the job: yielded (Zeebe activates,
		// fails to push, then writes Job YIELD). It stays ACTIVATABLE.
		j.Activations++
		j.Yields++
		c.Yields = append(c.Yields, j.Key)
	}
	return false
}

func (p *Partition) activateJob(j *Job, worker string, deadline int64) {
	p.st.setJobState(j, JobActivated)
	j.Worker = worker
	j.Deadline = deadline
	j.Activations++
	p.addTimer(deadline, j.Key, OpTimeOut)
}

// activatedJob renders the job as the gateway sends it.
func (p *Partition) activatedJob(j *Job, fetch []string) *gatewaypb.ActivatedJob {
	doc := p.visibleVars(p.st.Instances[j.InstanceKey], p.st.Elems[j.ElemKey])
	j.LastFetch, j.Fetched = append([]string(nil), fetch...), true
	return &gatewaypb.ActivatedJob{Key: j.Key, Type: j.Type, ProcessInstanceKey: j.InstanceKey,
		BpmnProcessId: j.BpmnProcessID, ProcessDefinitionVersion: j.Version, ProcessDefinitionKey: j.DefKey,
		ElementId: j.ElementID, ElementInstanceKey: j.ElemKey, CustomHeaders: j.Headers, Worker: j.Worker,
		Retries: j.Retries, Deadline: j.Deadline, Variables: vars.Encode(vars.Filter(doc, fetch)), TenantId: j.TenantID}
}

// activate hands up to MaxJobs activatable jobs of a type to a poller, in
// the order they became activatable, within the response size limit.
func (p *Partition) activate(c *Command) (any, error) {
	if c.replaying {
		for _, k := range c.JobKeys {
			if j := p.job(k); j != nil {
				p.activateJob(j, c.Worker, c.Now+c.Timeout)
			}
		}
		return nil, nil
	}
	var out []*gatewaypb.ActivatedJob
	q := p.st.queues[c.Type]
	size := 0
	i := 0
	for ; i < len(q) && int32(len(out)) < c.MaxJobs; i++ {
		e := q[i]
		j := p.job(e.key)
		if j == nil || j.State != JobActivatable || j.QueueSeq != e.seq {
			continue
		}
		p.activateJob(j, c.Worker, c.Now+c.Timeout)
		aj := p.activatedJob(j, c.FetchVariables)
		n := proto.Size(aj) + 8
		if size+n > MaxActivationBytes {
			// Does not fit: undo and stop; it stays first in line.
			p.st.setJobState(j, JobActivatable)
			j.Activations--
			j.Worker, j.Deadline = "", 0
			if len(out) == 0 {
				p.st.setJobState(j, JobIncident)
				p.jobIncident(p.inst(j.InstanceKey), j, "MESSAGE_SIZE_EXCEEDED", "The job's variables exceed the maximum message size")
				i++
			}
			break
		}
		size += n
		out = append(out, aj)
		c.JobKeys = append(c.JobKeys, j.Key)
	}
	p.st.queues[c.Type] = compactQueue(p.st, q[i:])
	if len(q[i:]) == 0 {
		delete(p.st.queues, c.Type)
	}
	return out, nil
}

func compactQueue(s *State, q []queued) []queued {
	for len(q) > 0 {
		j := s.Jobs[q[0].key]
		if j != nil && j.State == JobActivatable && j.QueueSeq == q[0].seq {
			break
		}
		q = q[1:]
	}
	return q
}

// jobTimerLike handles the internal commands that return a job to
// ACTIVATABLE. They carry the deadline they refer to, so a stale command
// (the job was completed or re-activated meanwhile) is a no-op rejection.
func (p *Partition) jobTimerLike(c *Command, fx *effects) (any, error) {
	j := p.job(c.Key)
	if j == nil {
		return nil, reject(c.Op, RejNotFound, "job '%d' not found", c.Key)
	}
	switch c.Op {
	case OpTimeOut, OpYield, OpReturn:
		if j.State != JobActivated || j.Deadline != c.Deadline {
			return nil, reject(c.Op, RejInvalidState, "job '%d' is no longer activated with deadline %d", c.Key, c.Deadline)
		}
		switch c.Op {
		case OpTimeOut:
			j.Timeouts++
			p.makeAvailable(c, fx, j, true) // 8.8: timed-out jobs are pushed
		case OpYield:
			j.Yields++
			p.makeAvailable(c, fx, j, false) // yielded jobs are never re-pushed
		case OpReturn:
			p.makeAvailable(c, fx, j, true) // a FailJob with retries unchanged
		}
	case OpRecur:
		if j.State != JobFailedBackoff {
			return nil, reject(c.Op, RejInvalidState, "job '%d' is not waiting for a retry back-off", c.Key)
		}
		p.makeAvailable(c, fx, j, true)
	}
	return nil, nil
}
