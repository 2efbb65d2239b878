package corpus

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Waits. ActivateJobs is called without long polling (requestTimeout -1),
// so jobs are polled every pollEvery up to jobWait.
const (
	jobWait    = 10 * time.Second
	pollEvery  = 40 * time.Millisecond
	resultWait = 15 * time.Second
	callWait   = 20 * time.Second
)

// Run is what one engine observed while running a case: one line per step
// (and per instance result), free of keys, versions and times, so it can be
// compared line by line with the case's golden lines.
type Run struct {
	Engine string
	Lines  []string
	// Errs: golden expectations this engine did not meet, and steps that
	// could not run (no job within the wait, unexpected codes...).
	Errs []string
}

func (r *Run) obs(format string, a ...any) { r.Lines = append(r.Lines, fmt.Sprintf(format, a...)) }
func (r *Run) fail(format string, a ...any) {
	r.Errs = append(r.Errs, fmt.Sprintf("[%s] ", r.Engine)+fmt.Sprintf(format, a...))
}

type result struct {
	done bool
	resp *pb.CreateProcessInstanceWithResultResponse
	err  error
}

// Restarter kills the engine with SIGKILL and starts it again on the same
// data; partitions are the partitions the case used so far (1, which holds
// deployments, and those of its instances and signals). It returns once the
// engine is healthy, with the connection to use from then on (nil: the same).
type Restarter func(partitions []int32) (grpc.ClientConnInterface, error)

type driver struct {
	c       *Case
	restart Restarter
	parts   map[int32]bool // partitions of keys this case was given
	gw      pb.GatewayClient
	conn    grpc.ClientConnInterface
	run     *Run
	keys    map[string]int64       // instance name → key
	results map[string]chan result // withResult calls in flight
	decKeys map[string]int64       // decision id → key from this case's deployment
	cancel  []context.CancelFunc   // withResult contexts
}

// RunCase runs c against one engine and returns what it observed. It never
// stops early on an unmet expectation (so the whole run can still be
// compared with the golden lines), only when a step cannot go on (e.g. no
// job to act on).
func RunCase(c *Case, engine string, conn grpc.ClientConnInterface) *Run {
	return RunCaseRestartable(c, engine, conn, nil)
}

// RunCaseRestartable is RunCase for an engine a restart step can kill and
// restart (restart nil: a restart step fails).
func RunCaseRestartable(c *Case, engine string, conn grpc.ClientConnInterface, restart Restarter) *Run {
	d := &driver{c: c, gw: pb.NewGatewayClient(conn), conn: conn, run: &Run{Engine: engine}, restart: restart,
		parts: map[int32]bool{1: true}, keys: map[string]int64{}, results: map[string]chan result{}, decKeys: map[string]int64{}}
	defer d.cleanup()
	if !d.deploy() {
		return d.run
	}
	for i, s := range c.Steps {
		if !d.step(i+1, s) {
			d.run.fail("step %d: stopped the case", i+1)
			return d.run
		}
	}
	d.finish()
	return d.run
}

func call() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), callWait)
}

// codeOf names a call's gRPC code as case.json does: OK, NOT_FOUND, ...
func codeOf(err error) string {
	c := status.Code(err)
	if c == codes.OK {
		return "OK"
	}
	var b strings.Builder
	for i, r := range c.String() {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

// expectCode compares an outcome with the expected code ("" = OK).
func (d *driver) expectCode(step int, what string, want string, err error) bool {
	if want == "" {
		want = "OK"
	}
	got := codeOf(err)
	if got != want {
		d.run.fail("step %d: %s: got %s, expected %s (%v)", step, what, got, want, err)
		return false
	}
	return true
}

func vars(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	return string(raw)
}

func (d *driver) deploy() bool {
	req := &pb.DeployResourceRequest{}
	for _, name := range d.c.Resources {
		b, err := os.ReadFile(filepath.Join(d.c.Dir, name))
		if err != nil {
			d.run.fail("read %s: %v", name, err)
			return false
		}
		req.Resources = append(req.Resources, &pb.Resource{Name: name, Content: b})
	}
	ctx, cancel := call()
	defer cancel()
	resp, err := d.gw.DeployResource(ctx, req)
	d.run.obs("deploy: %s", codeOf(err))
	want := d.c.DeployCode
	if want == "" {
		want = "OK"
	}
	if codeOf(err) != want {
		d.run.fail("deploy: got %s, expected %s (%v)", codeOf(err), want, err)
		return false
	}
	if err != nil {
		return false
	}
	var ds []string
	for _, dep := range resp.Deployments {
		switch {
		case dep.GetProcess() != nil:
			ds = append(ds, "process "+dep.GetProcess().BpmnProcessId+" from "+dep.GetProcess().ResourceName)
		case dep.GetDecision() != nil:
			m := dep.GetDecision()
			d.decKeys[m.DmnDecisionId] = m.DecisionKey
			ds = append(ds, fmt.Sprintf("decision %s %q in %s", m.DmnDecisionId, m.DmnDecisionName, m.DmnDecisionRequirementsId))
		case dep.GetDecisionRequirements() != nil:
			m := dep.GetDecisionRequirements()
			ds = append(ds, fmt.Sprintf("drg %s %q from %s", m.DmnDecisionRequirementsId, m.DmnDecisionRequirementsName, m.ResourceName))
		case dep.GetForm() != nil:
			ds = append(ds, "form "+dep.GetForm().FormId)
		}
	}
	sort.Strings(ds)
	d.run.obs("deployed: %s", strings.Join(ds, "; "))
	return true
}

func (d *driver) step(n int, s Step) bool {
	switch {
	case s.Create != nil:
		return d.create(n, s.Create)
	case s.Job != nil:
		return d.job(n, s.Job)
	case s.Jobs != nil:
		return d.jobs(n, s.Jobs)
	case s.Publish != nil:
		p := s.Publish
		ctx, cancel := call()
		defer cancel()
		_, err := d.gw.PublishMessage(ctx, &pb.PublishMessageRequest{Name: p.Name, CorrelationKey: p.CorrelationKey,
			TimeToLive: p.TTLMs, MessageId: p.MessageID, Variables: vars(p.Variables)})
		d.run.obs("step %d publish %s: %s", n, p.Name, codeOf(err))
		d.expectCode(n, "publish", p.ExpectCode, err)
		time.Sleep(time.Duration(p.SleepAfterMs) * time.Millisecond)
		return true
	case s.SleepMs > 0:
		time.Sleep(time.Duration(s.SleepMs) * time.Millisecond)
		return true
	case s.EvaluateDecision != nil:
		return d.evaluate(n, s.EvaluateDecision)
	case s.NoJob != nil:
		jobs, err := d.poll(s.NoJob.Type, 10, time.Duration(s.NoJob.WaitMs)*time.Millisecond)
		if err != nil {
			d.run.fail("step %d: activate %s: %v", n, s.NoJob.Type, err)
			return false
		}
		d.run.obs("step %d noJob %s: %d activated", n, s.NoJob.Type, len(jobs))
		if len(jobs) > 0 {
			d.run.fail("step %d: expected no job of type %s, got %d (element %s)", n, s.NoJob.Type, len(jobs), jobs[0].ElementId)
		}
		return true
	case s.Restart != nil:
		return d.doRestart(n)
	case s.BroadcastSignal != nil:
		b := s.BroadcastSignal
		ctx, cancel := call()
		defer cancel()
		resp, err := d.gw.BroadcastSignal(ctx, &pb.BroadcastSignalRequest{SignalName: b.Name, Variables: vars(b.Variables)})
		d.run.obs("step %d broadcastSignal %s: %s", n, b.Name, codeOf(err))
		if d.expectCode(n, "broadcastSignal", b.ExpectCode, err) && err == nil {
			if resp.Key <= 0 {
				d.run.fail("step %d: broadcastSignal answered key %d", n, resp.Key)
			}
			d.parts[partitionOf(resp.Key)] = true
		}
		time.Sleep(time.Duration(b.SleepAfterMs) * time.Millisecond)
		return true
	case s.Cancel != nil:
		key, ok := d.keys[s.Cancel.As]
		if !ok {
			d.run.fail("step %d: instance %s was not created", n, s.Cancel.As)
			return false
		}
		ctx, cancel := call()
		defer cancel()
		_, err := d.gw.CancelProcessInstance(ctx, &pb.CancelProcessInstanceRequest{ProcessInstanceKey: key})
		d.run.obs("step %d cancel %s: %s", n, s.Cancel.As, codeOf(err))
		d.expectCode(n, "cancel "+s.Cancel.As, s.Cancel.ExpectCode, err)
		return true
	}
	return false
}

func (d *driver) create(n int, c *CreateStep) bool {
	req := &pb.CreateProcessInstanceRequest{BpmnProcessId: c.ProcessID, Version: -1, Variables: vars(c.Variables)}
	if !c.WithResult {
		ctx, cancel := call()
		defer cancel()
		resp, err := d.gw.CreateProcessInstance(ctx, req)
		d.run.obs("step %d create %s: %s", n, c.ProcessID, codeOf(err))
		if !d.expectCode(n, "create "+c.ProcessID, c.ExpectCode, err) {
			return err == nil
		}
		if err == nil {
			d.parts[partitionOf(resp.ProcessInstanceKey)] = true
			if c.As != "" {
				d.keys[c.As] = resp.ProcessInstanceKey
			}
		}
		return true
	}
	// With result: the call stays open while later steps drive the instance.
	// Its key is known only when it answers, so cancel steps cannot name it.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	d.cancel = append(d.cancel, cancel)
	ch := make(chan result, 1)
	d.results[c.As] = ch
	d.run.obs("step %d create %s with result", n, c.ProcessID)
	go func() {
		resp, err := d.gw.CreateProcessInstanceWithResult(ctx, &pb.CreateProcessInstanceWithResultRequest{
			Request: req, RequestTimeout: int64((5 * time.Minute) / time.Millisecond)})
		ch <- result{done: true, resp: resp, err: err}
	}()
	return true
}

// partitionOf a key: Zeebe keys carry the partition id in their high bits.
func partitionOf(key int64) int32 { return int32(key >> 51) }

// doRestart kills the engine (SIGKILL) and restarts it on its data.
func (d *driver) doRestart(n int) bool {
	if d.restart == nil {
		d.run.obs("step %d restart: UNIMPLEMENTED", n)
		d.run.fail("step %d: this engine cannot be restarted by the runner", n)
		return false
	}
	var parts []int32
	for p := range d.parts {
		parts = append(parts, p)
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
	conn, err := d.restart(parts)
	if err != nil {
		d.run.obs("step %d restart: failed", n)
		d.run.fail("step %d: restart: %v", n, err)
		return false
	}
	if conn != nil {
		d.conn, d.gw = conn, pb.NewGatewayClient(conn)
	}
	d.run.obs("step %d restart: OK", n)
	return true
}

// poll activates up to max jobs of a type, waiting up to wait for the first.
func (d *driver) poll(typ string, max int32, wait time.Duration) ([]*pb.ActivatedJob, error) {
	deadline := time.Now().Add(wait)
	for {
		jobs, err := d.activateOnce(typ, max)
		if err != nil || len(jobs) > 0 || time.Now().After(deadline) {
			return jobs, err
		}
		time.Sleep(pollEvery)
	}
}

func (d *driver) activateOnce(typ string, max int32) ([]*pb.ActivatedJob, error) {
	ctx, cancel := call()
	defer cancel()
	st, err := d.gw.ActivateJobs(ctx, &pb.ActivateJobsRequest{Type: typ, Worker: "corpus", Timeout: 120000,
		MaxJobsToActivate: max, RequestTimeout: -1})
	if err != nil {
		return nil, err
	}
	var jobs []*pb.ActivatedJob
	for {
		r, err := st.Recv()
		if err != nil {
			if status.Code(err) == codes.Unknown || strings.Contains(err.Error(), "EOF") {
				return jobs, nil
			}
			return jobs, err
		}
		jobs = append(jobs, r.Jobs...)
		for _, j := range r.Jobs {
			d.parts[partitionOf(j.Key)] = true
		}
	}
}

// jobView is what a job shows, compared with the golden line.
func jobView(j *pb.ActivatedJob) (string, any, any) {
	v, err := canon([]byte(j.Variables))
	if err != nil {
		v = "unparsable: " + j.Variables
	}
	h, err := canon([]byte(j.CustomHeaders))
	if err != nil {
		h = "unparsable: " + j.CustomHeaders
	}
	return fmt.Sprintf("element %s retries %d variables %s headers %s", j.ElementId, j.Retries, show(v), show(h)), v, h
}

func (d *driver) job(n int, s *JobStep) bool {
	jobs, err := d.poll(s.Type, 10, jobWait)
	if err != nil {
		d.run.fail("step %d: activate %s: %v", n, s.Type, err)
		return false
	}
	if len(jobs) != 1 {
		d.run.obs("step %d job %s: %d activated", n, s.Type, len(jobs))
		d.run.fail("step %d: expected exactly one job of type %s, got %d", n, s.Type, len(jobs))
		return false
	}
	j := jobs[0]
	view, v, h := jobView(j)
	d.run.obs("step %d job %s: %s", n, s.Type, view)
	if len(s.ExpectVariables) > 0 {
		if err := subset(s.ExpectVariables, v); err != nil {
			d.run.fail("step %d job %s: %v", n, s.Type, err)
		}
	}
	if len(s.ExpectHeaders) > 0 {
		want := map[string]json.RawMessage{}
		for k, x := range s.ExpectHeaders {
			b, _ := json.Marshal(x)
			want[k] = b
		}
		if err := subset(want, h); err != nil {
			d.run.fail("step %d job %s headers: %v", n, s.Type, err)
		}
	}
	if s.ExpectElementID != "" && j.ElementId != s.ExpectElementID {
		d.run.fail("step %d job %s: element %s, expected %s", n, s.Type, j.ElementId, s.ExpectElementID)
	}
	ctx, cancel := call()
	defer cancel()
	switch {
	case s.ThrowError != nil:
		_, err = d.gw.ThrowError(ctx, &pb.ThrowErrorRequest{JobKey: j.Key, ErrorCode: s.ThrowError.ErrorCode,
			ErrorMessage: s.ThrowError.ErrorMessage, Variables: vars(s.ThrowError.Variables)})
		d.run.obs("step %d throw %s: %s", n, s.ThrowError.ErrorCode, codeOf(err))
	case s.Fail != nil:
		_, err = d.gw.FailJob(ctx, &pb.FailJobRequest{JobKey: j.Key, Retries: s.Fail.Retries, ErrorMessage: s.Fail.ErrorMessage})
		d.run.obs("step %d fail retries %d: %s", n, s.Fail.Retries, codeOf(err))
	case len(s.Complete) > 0:
		_, err = d.gw.CompleteJob(ctx, &pb.CompleteJobRequest{JobKey: j.Key, Variables: vars(s.Complete)})
		d.run.obs("step %d complete: %s", n, codeOf(err))
	default:
		return true // left activated
	}
	if err != nil {
		d.run.fail("step %d job %s: %v", n, s.Type, err)
		return false
	}
	return true
}

func (d *driver) jobs(n int, s *JobsStep) bool {
	var views []string
	deadline := time.Now().Add(jobWait)
	for len(views) < s.Count {
		jobs, err := d.activateOnce(s.Type, int32(s.Count-len(views)))
		if err != nil {
			d.run.fail("step %d: activate %s: %v", n, s.Type, err)
			return false
		}
		if len(jobs) == 0 {
			if time.Now().After(deadline) {
				d.run.obs("step %d jobs %s: %d of %d", n, s.Type, len(views), s.Count)
				d.run.fail("step %d: %d of %d jobs of type %s within %v", n, len(views), s.Count, s.Type, jobWait)
				return false
			}
			time.Sleep(pollEvery)
			continue
		}
		for _, j := range jobs {
			view, _, _ := jobView(j)
			views = append(views, view)
			ctx, cancel := call()
			_, err := d.gw.CompleteJob(ctx, &pb.CompleteJobRequest{JobKey: j.Key, Variables: vars(s.Complete)})
			cancel()
			if err != nil {
				d.run.fail("step %d: complete %s: %v", n, s.Type, err)
				return false
			}
		}
	}
	// The order jobs of a parallel multi-instance are activated in is not
	// fixed: compare them as a set.
	sort.Strings(views)
	d.run.obs("step %d jobs %s: %s", n, s.Type, strings.Join(views, " | "))
	return true
}

// finish waits for the results of withResult calls and checks them.
func (d *driver) finish() {
	names := make([]string, 0, len(d.results))
	for k := range d.results {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		ex, hasEx := d.c.Expect[name]
		wait := resultWait
		if hasEx && !ex.Completed {
			wait = 500 * time.Millisecond // expected to stay open: do not wait long
		}
		var r result
		select {
		case r = <-d.results[name]:
		case <-time.After(wait):
		}
		switch {
		case !r.done:
			d.run.obs("instance %s: still running", name)
			if hasEx && ex.Completed {
				d.run.fail("instance %s did not complete within %v", name, wait)
			}
		case r.err != nil:
			d.run.obs("instance %s: %s", name, codeOf(r.err))
			d.run.fail("instance %s: %v", name, r.err)
		default:
			d.keys[name] = r.resp.ProcessInstanceKey
			v, err := canon([]byte(r.resp.Variables))
			if err != nil {
				v = "unparsable: " + r.resp.Variables
			}
			d.run.obs("instance %s: completed, variables %s", name, show(v))
			if hasEx && !ex.Completed {
				d.run.fail("instance %s completed, expected it to stay running", name)
			}
			if hasEx {
				if err := subset(ex.Variables, v); err != nil {
					d.run.fail("instance %s: %v", name, err)
				}
			}
		}
	}
}

// cleanup ends what the case left running, so that a shared engine (the
// cluster) starts the next case clean.
func (d *driver) cleanup() {
	for _, c := range d.cancel {
		c()
	}
	for _, key := range d.keys {
		ctx, cancel := call()
		_, _ = d.gw.CancelProcessInstance(ctx, &pb.CancelProcessInstanceRequest{ProcessInstanceKey: key})
		cancel()
	}
}

// EvaluateDecisionMethod is Zeebe's path of the RPC.
const EvaluateDecisionMethod = "/gateway_protocol.Gateway/EvaluateDecision"

func (d *driver) evaluate(n int, s *DecisionStep) bool {
	req := &pb.EvaluateDecisionRequest{Variables: vars(s.Variables)}
	if s.ByKey {
		key, ok := d.decKeys[s.DecisionID]
		if !ok {
			d.run.fail("step %d: the deployment returned no decision %s", n, s.DecisionID)
			return false
		}
		req.DecisionKey = key
	} else {
		req.DecisionId = s.DecisionID
	}
	ctx, cancel := call()
	defer cancel()
	resp := &pb.EvaluateDecisionResponse{}
	err := d.conn.Invoke(ctx, EvaluateDecisionMethod, req, resp)
	if !d.expectCode(n, "evaluateDecision "+s.DecisionID, s.ExpectCode, err) || err != nil {
		d.run.obs("step %d evaluateDecision %s: %s", n, s.DecisionID, codeOf(err))
		return true
	}
	out, perr := canon([]byte(resp.DecisionOutput))
	if perr != nil {
		out = "unparsable: " + resp.DecisionOutput
	}
	d.run.obs("step %d evaluateDecision %s: decision %s %q (drg %s) output %s failed %q failure %v",
		n, s.DecisionID, resp.DecisionId, resp.DecisionName, resp.DecisionRequirementsId, show(out),
		resp.FailedDecisionId, resp.FailureMessage != "")
	var matched []int32
	for _, ed := range resp.EvaluatedDecisions {
		o, perr := canon([]byte(ed.DecisionOutput))
		if perr != nil {
			o = "unparsable: " + ed.DecisionOutput
		}
		var ins, rules []string
		for _, in := range ed.EvaluatedInputs {
			v, perr := canon([]byte(in.InputValue))
			if perr != nil {
				v = "unparsable: " + in.InputValue
			}
			ins = append(ins, fmt.Sprintf("%s(%s)=%s", in.InputId, in.InputName, show(v)))
		}
		for _, r := range ed.MatchedRules {
			var outs []string
			for _, eo := range r.EvaluatedOutputs {
				v, perr := canon([]byte(eo.OutputValue))
				if perr != nil {
					v = "unparsable: " + eo.OutputValue
				}
				outs = append(outs, fmt.Sprintf("%s(%s)=%s", eo.OutputId, eo.OutputName, show(v)))
			}
			rules = append(rules, fmt.Sprintf("#%d %s [%s]", r.RuleIndex, r.RuleId, strings.Join(outs, ", ")))
			if ed.DecisionId == resp.DecisionId {
				matched = append(matched, r.RuleIndex)
			}
		}
		d.run.obs("step %d   evaluated %s %q %s: output %s inputs [%s] rules [%s]", n, ed.DecisionId, ed.DecisionName,
			ed.DecisionType, show(o), strings.Join(ins, ", "), strings.Join(rules, "; "))
	}
	if s.ExpectFailedDecision != "" || resp.FailedDecisionId != "" {
		if resp.FailedDecisionId != s.ExpectFailedDecision {
			d.run.fail("step %d: failed decision %q (%s), expected %q", n, resp.FailedDecisionId, resp.FailureMessage, s.ExpectFailedDecision)
		}
	}
	if len(s.ExpectOutput) > 0 {
		w, err := canon(s.ExpectOutput)
		if err != nil {
			d.run.fail("step %d: expectOutput: %v", n, err)
		} else if show(w) != show(out) {
			d.run.fail("step %d: decision output %s, expected %s", n, show(out), show(w))
		}
	}
	if s.ExpectMatchedRules != nil && fmt.Sprint(matched) != fmt.Sprint(s.ExpectMatchedRules) {
		d.run.fail("step %d: matched rules %v, expected %v", n, matched, s.ExpectMatchedRules)
	}
	return true
}
