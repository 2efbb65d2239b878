package jobwiretest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/jobwire/jobwire/engine-reference/embedded"
	"github.com/jobwire/jobwire/sdk-go"
)

// The engine shared by every test of the binary: started by the first Start,
// stopped by Main (or with the process).
var shared struct {
	mu  sync.Mutex
	eng *embedded.Engine
}

func sharedEngine() (*embedded.Engine, error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.eng != nil {
		return shared.eng, nil
	}
	e, err := embedded.Start(embedded.Options{})
	if err != nil {
		return nil, fmt.Errorf("jobwiretest: start the engine: %w", err)
	}
	shared.eng = e
	return e, nil
}

// Main runs the tests and then stops the shared engine and removes its data;
// call it from TestMain:
//
//	func TestMain(m *testing.M) { jobwiretest.Main(m) }
//
// Without it the engine stops with the test binary but leaves its temporary
// data directory behind.
func Main(m *testing.M) {
	code := m.Run()
	shared.mu.Lock()
	if shared.eng != nil {
		_ = shared.eng.Close()
		shared.eng = nil
	}
	shared.mu.Unlock()
	os.Exit(code)
}

// Engine is the test's handle on the shared engine, from Start.
type Engine struct {
	t      testing.TB
	eng    *embedded.Engine
	client *jobwire.Client
}

// JobInfo is a job as the engine holds it (Engine.Jobs).
type JobInfo = embedded.Job

// Incident is an open incident (Engine.AwaitIncident).
type Incident = embedded.Incident

// Start returns the engine shared by the test binary — started on first use,
// in-process, listening on 127.0.0.1 — reset for this test: every
// deployment, instance, job, message and timer of earlier tests dropped,
// engine time back to wall time, injected faults cleared. Its client is
// closed when the test ends. Tests calling Start must not run in parallel.
func Start(t testing.TB) *Engine {
	t.Helper()
	eng, err := sharedEngine()
	if err != nil {
		t.Fatal(err)
	}
	e := &Engine{t: t, eng: eng}
	e.Reset()
	c, err := jobwire.NewClient(context.Background(), jobwire.WithAddress(eng.Address()), jobwire.WithInsecure(true))
	if err != nil {
		t.Fatalf("jobwiretest: client: %v", err)
	}
	e.client = c
	t.Cleanup(func() { _ = c.Close() })
	return e
}

func (e *Engine) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Second)
}

func (e *Engine) fatal(format string, args ...any) {
	e.t.Helper()
	e.t.Fatalf("jobwiretest: "+format, args...)
}

// Address is the engine's gateway address, "127.0.0.1:<port>", for workers
// built with their own client (plaintext).
func (e *Engine) Address() string { return e.eng.Address() }

// Client is a client connected to the engine, closed when the test ends.
func (e *Engine) Client() *jobwire.Client { return e.client }

// Deploy deploys a BPMN (or DMN, form) file by its path, or a BPMN document
// given as a string, and returns the ids of the processes it deployed.
func (e *Engine) Deploy(pathOrXML string) []string {
	e.t.Helper()
	ctx, cancel := e.ctx()
	defer cancel()
	var d *jobwire.Deployment
	var err error
	if strings.HasPrefix(strings.TrimSpace(pathOrXML), "<") {
		d, err = e.client.DeployResource(ctx, "process.bpmn", []byte(pathOrXML))
	} else {
		var b []byte
		if b, err = os.ReadFile(pathOrXML); err == nil {
			d, err = e.client.DeployResource(ctx, filepath.Base(pathOrXML), b)
		}
	}
	if err != nil {
		e.fatal("deploy %.80q: %v", pathOrXML, err)
	}
	ids := make([]string, 0, len(d.Processes))
	for _, p := range d.Processes {
		ids = append(ids, p.BPMNProcessID)
	}
	return ids
}

// CreateInstance starts the latest version of processID with variables (a
// map, a struct, JSON or nil) and returns the instance key.
func (e *Engine) CreateInstance(processID string, variables any) int64 {
	e.t.Helper()
	ctx, cancel := e.ctx()
	defer cancel()
	pi, err := e.client.CreateProcessInstance(ctx, jobwire.CreateInstance{BPMNProcessID: processID, Version: -1, Variables: variables})
	if err != nil {
		e.fatal("create an instance of %q: %v", processID, err)
	}
	return pi.ProcessInstanceKey
}

// AwaitOption configures AwaitCompleted and AwaitIncident.
type AwaitOption func(*time.Duration)

// Within sets how long to wait. Default: 10 s.
func Within(d time.Duration) AwaitOption { return func(w *time.Duration) { *w = d } }

func (e *Engine) instance(key int64) (*embedded.Instance, error) {
	ctx, cancel := e.ctx()
	defer cancel()
	all, err := e.eng.Instances(ctx, "")
	if err != nil {
		return nil, err
	}
	for i := range all {
		if all[i].Key == key {
			return &all[i], nil
		}
	}
	return nil, nil
}

// await polls until done says the instance is where the test wants it.
func (e *Engine) await(key int64, what string, opts []AwaitOption, done func(*embedded.Instance) (bool, error)) *embedded.Instance {
	e.t.Helper()
	wait := 10 * time.Second
	for _, o := range opts {
		o(&wait)
	}
	deadline := time.Now().Add(wait)
	pause := time.Millisecond
	for {
		in, err := e.instance(key)
		if err != nil {
			e.fatal("instance %d: %v", key, err)
		}
		if in != nil {
			ok, err := done(in)
			if err != nil {
				e.fatal("instance %d: %v\n%s", key, err, e.describe(key))
			}
			if ok {
				return in
			}
		}
		if time.Now().After(deadline) {
			e.fatal("instance %d not %s within %s\n%s", key, what, wait, e.describe(key))
		}
		time.Sleep(pause)
		pause = min(pause*2, 50*time.Millisecond)
	}
}

// describe tells the state of an instance: for failure messages.
func (e *Engine) describe(key int64) string {
	var b strings.Builder
	in, err := e.instance(key)
	switch {
	case err != nil:
		fmt.Fprintf(&b, "  state: unknown (%v)\n", err)
	case in == nil:
		fmt.Fprintf(&b, "  state: no such instance\n")
	default:
		fmt.Fprintf(&b, "  process: %s v%d\n  state: %s\n  variables: %s\n", in.ProcessID, in.Version, in.State, in.Variables)
	}
	ctx, cancel := e.ctx()
	defer cancel()
	if incs, err := e.eng.Incidents(ctx, key); err == nil {
		for _, i := range incs {
			fmt.Fprintf(&b, "  incident: %s: %s (element instance %d, job %d)\n", i.Type, i.Message, i.ElementInstanceKey, i.JobKey)
		}
	}
	if jobs, err := e.eng.Jobs(ctx, ""); err == nil {
		for _, j := range jobs {
			if j.ProcessInstanceKey == key && isOpen(j.State) {
				fmt.Fprintf(&b, "  open job: %d type %q %s, retries %d", j.Key, j.Type, j.State, j.Retries)
				if j.ErrorMessage != "" {
					fmt.Fprintf(&b, ", last error %q", j.ErrorMessage)
				}
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

func isOpen(state string) bool {
	switch state {
	case "activatable", "activated", "failed_backoff", "incident":
		return true
	}
	return false
}

// AwaitCompleted waits until the instance completed and returns its
// variables (numbers as json.Number). On timeout, or if the instance was
// cancelled, the test fails with the instance's state, variables, incidents
// and open jobs.
func (e *Engine) AwaitCompleted(instance int64, opts ...AwaitOption) map[string]any {
	e.t.Helper()
	in := e.await(instance, "completed", opts, func(in *embedded.Instance) (bool, error) {
		if in.State == "canceled" {
			return false, errors.New("cancelled, will not complete")
		}
		return in.State == "completed", nil
	})
	return e.decode(in.Variables)
}

// AwaitIncident waits until the instance has an open incident and returns
// the first one. On timeout, or if the instance completed, the test fails
// with the instance's state.
func (e *Engine) AwaitIncident(instance int64, opts ...AwaitOption) Incident {
	e.t.Helper()
	var found Incident
	e.await(instance, "in an incident", opts, func(in *embedded.Instance) (bool, error) {
		if in.IncidentCount == 0 {
			if in.State == "completed" || in.State == "canceled" {
				return false, fmt.Errorf("%s without an incident", in.State)
			}
			return false, nil
		}
		ctx, cancel := e.ctx()
		defer cancel()
		incs, err := e.eng.Incidents(ctx, instance)
		if err != nil || len(incs) == 0 {
			return false, err
		}
		found = incs[0]
		return true, nil
	})
	return found
}

// Variables returns the instance's variables (numbers as json.Number).
func (e *Engine) Variables(instance int64) map[string]any {
	e.t.Helper()
	in, err := e.instance(instance)
	if err != nil {
		e.fatal("instance %d: %v", instance, err)
	}
	if in == nil {
		e.fatal("no instance %d", instance)
	}
	return e.decode(in.Variables)
}

func (e *Engine) decode(raw json.RawMessage) map[string]any {
	e.t.Helper()
	m := map[string]any{}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		e.fatal("variables %s: %v", raw, err)
	}
	return m
}

// HasInstance reports whether the engine knows the instance (any state).
func (e *Engine) HasInstance(instance int64) bool {
	e.t.Helper()
	in, err := e.instance(instance)
	if err != nil {
		e.fatal("instance %d: %v", instance, err)
	}
	return in != nil
}

// Jobs returns the open jobs of jobType (activatable or activated).
func (e *Engine) Jobs(jobType string) []JobInfo {
	e.t.Helper()
	ctx, cancel := e.ctx()
	defer cancel()
	all, err := e.eng.Jobs(ctx, jobType)
	if err != nil {
		e.fatal("jobs %q: %v", jobType, err)
	}
	var out []JobInfo
	for _, j := range all {
		if j.State == "activatable" || j.State == "activated" {
			out = append(out, j)
		}
	}
	return out
}

// CompleteJobs activates every activatable job of jobType and completes it
// with variables (a map, a struct, JSON or nil), standing in for a worker
// the test does not run. It returns how many it completed; an error fails
// the test.
func (e *Engine) CompleteJobs(jobType string, variables any) int {
	e.t.Helper()
	n, err := e.TryCompleteJobs(jobType, variables)
	if err != nil {
		e.fatal("complete %q jobs (%d completed): %v", jobType, n, err)
	}
	return n
}

// TryCompleteJobs is CompleteJobs returning the gateway's error (a
// *jobwire.Error; status.Code reads its gRPC code) instead of failing the
// test, for tests of back-pressure and faults.
func (e *Engine) TryCompleteJobs(jobType string, variables any) (int, error) {
	ctx, cancel := e.ctx()
	defer cancel()
	n := 0
	for {
		jobs, err := e.client.ActivateJobs(ctx, jobwire.ActivateJobsRequest{Type: jobType, Worker: "jobwiretest", MaxJobs: 100,
			RequestTimeout: -1})
		if err != nil {
			return n, err
		}
		if len(jobs) == 0 {
			return n, nil
		}
		for _, j := range jobs {
			if err := j.Complete(ctx, variables); err != nil {
				return n, err
			}
			n++
		}
	}
}

// AdvanceClock moves engine time forward by d and returns once everything
// that became due (timers, job time-outs, retry back-offs, message TTLs) is
// processed, with the new engine time.
func (e *Engine) AdvanceClock(d time.Duration) time.Time {
	e.t.Helper()
	ctx, cancel := e.ctx()
	defer cancel()
	now, err := e.eng.AdvanceClock(ctx, d)
	if err != nil {
		e.fatal("advance the clock by %s: %v", d, err)
	}
	return now
}

// SetClock sets engine time (forward only), as AdvanceClock does.
func (e *Engine) SetClock(t time.Time) time.Time {
	e.t.Helper()
	ctx, cancel := e.ctx()
	defer cancel()
	now, err := e.eng.SetClock(ctx, t)
	if err != nil {
		e.fatal("set the clock to %s: %v", t, err)
	}
	return now
}

// Clock returns engine time.
func (e *Engine) Clock() time.Time {
	e.t.Helper()
	ctx, cancel := e.ctx()
	defer cancel()
	now, err := e.eng.Clock(ctx)
	if err != nil {
		e.fatal("clock: %v", err)
	}
	return now
}

// Reset drops every deployment, instance, job, message and timer, sets
// engine time back to wall time and clears injected faults (Start does it).
func (e *Engine) Reset() {
	e.t.Helper()
	ctx, cancel := e.ctx()
	defer cancel()
	if err := e.eng.Reset(ctx); err != nil {
		e.fatal("reset: %v", err)
	}
	if err := e.eng.ClearFaults(ctx); err != nil {
		e.fatal("clear faults: %v", err)
	}
}

// InjectResourceExhausted makes the next count ActivateJobs calls fail with
// RESOURCE_EXHAUSTED (back-pressure), until ClearFaults.
func (e *Engine) InjectResourceExhausted(count int) {
	e.t.Helper()
	ctx, cancel := e.ctx()
	defer cancel()
	if err := e.eng.RejectNext(ctx, "ActivateJobs", codes.ResourceExhausted, count); err != nil {
		e.fatal("inject RESOURCE_EXHAUSTED: %v", err)
	}
}

// DropStreams ends every open job stream and parked long poll with
// UNAVAILABLE, as a gateway restart does; workers reconnect.
func (e *Engine) DropStreams() {
	e.t.Helper()
	ctx, cancel := e.ctx()
	defer cancel()
	if err := e.eng.DropStreams(ctx); err != nil {
		e.fatal("drop streams: %v", err)
	}
}

// ClearFaults removes every injected fault.
func (e *Engine) ClearFaults() {
	e.t.Helper()
	ctx, cancel := e.ctx()
	defer cancel()
	if err := e.eng.ClearFaults(ctx); err != nil {
		e.fatal("clear faults: %v", err)
	}
}
