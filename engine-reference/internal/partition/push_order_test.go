package partition

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
)

// streamHooks is one push stream of type "w" (waitBPMN's task) whose readiness the test sets.
type streamHooks struct {
	mu        sync.Mutex
	ready     bool
	delivered []int64
}

func (h *streamHooks) ReservePush(jobType, _ string) (PushTarget, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if jobType != "w" {
		return nil, false
	}
	if !h.ready {
		return nil, true // a stream exists but its transport is full: the job is yielded
	}
	return streamTarget{h}, true
}
func (h *streamHooks) JobsAvailable(string)         {}
func (h *streamHooks) Forward(int32, *Command) bool { return true }
func (h *streamHooks) setReady(r bool) {
	h.mu.Lock()
	h.ready = r
	h.mu.Unlock()
}
func (h *streamHooks) pushed() []int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]int64(nil), h.delivered...)
}

type streamTarget struct{ h *streamHooks }

func (t streamTarget) Worker() string           { return "streamer" }
func (t streamTarget) Timeout() int64           { return 60_000 }
func (t streamTarget) FetchVariables() []string { return nil }
func (t streamTarget) Deliver(j *gatewaypb.ActivatedJob) {
	t.h.mu.Lock()
	t.h.delivered = append(t.h.delivered, j.Key)
	t.h.mu.Unlock()
}

type pushOrderRig struct {
	t     *testing.T
	dir   string
	defs  *Registry
	hooks *streamHooks
	p     *Partition
	ctx   context.Context
}

func newPushOrderRig(t *testing.T) *pushOrderRig {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	r := &pushOrderRig{t: t, dir: t.TempDir(), defs: NewRegistry(), hooks: &streamHooks{}, ctx: ctx}
	r.open()
	if _, err := r.p.Submit(ctx, &Command{Op: OpDeploy, Resources: []Resource{{Name: "p.bpmn", Content: []byte(waitBPMN)}}}); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *pushOrderRig) open() {
	p, err := Open(Config{ID: 1, Count: 1, DataDir: r.dir, NoSync: true, Defs: r.defs, Hooks: r.hooks})
	if err != nil {
		r.t.Fatal(err)
	}
	go p.Run()
	r.p = p
	r.t.Cleanup(func() { p.Close() })
}

// create starts an instance and returns the key of its job.
func (r *pushOrderRig) create() int64 {
	r.t.Helper()
	res, err := r.p.Submit(r.ctx, &Command{Op: OpCreate, BpmnProcessID: "p", Version: -1})
	if err != nil {
		r.t.Fatal(err)
	}
	inst := res.(interface{ GetProcessInstanceKey() int64 }).GetProcessInstanceKey()
	var key int64
	if err := r.p.Query(r.ctx, func(st *State) {
		for k, j := range st.Jobs {
			if j.InstanceKey == inst {
				key = k
			}
		}
	}); err != nil {
		r.t.Fatal(err)
	}
	if key == 0 {
		r.t.Fatal("no job for the new instance")
	}
	return key
}

// poll activates up to n jobs and returns their keys and deadlines.
func (r *pushOrderRig) poll(n int32) (keys []int64, deadlines []int64) {
	r.t.Helper()
	res, err := r.p.Submit(r.ctx, &Command{Op: OpActivate, Type: "w", Worker: "poller", Timeout: 60_000, MaxJobs: n})
	if err != nil {
		r.t.Fatal(err)
	}
	for _, j := range res.([]*gatewaypb.ActivatedJob) {
		keys = append(keys, j.Key)
		deadlines = append(deadlines, j.Deadline)
	}
	return keys, deadlines
}

func (r *pushOrderRig) state(key int64) int {
	r.t.Helper()
	s := -1
	if err := r.p.Query(r.ctx, func(st *State) {
		if j := st.Jobs[key]; j != nil {
			s = j.State
		}
	}); err != nil {
		r.t.Fatal(err)
	}
	return s
}

func eqKeys(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A job yielded while the stream was full is the one pushed when the
// stream is ready again and the next job becomes activatable (issue 12
// item 8): it no longer waits for a poll behind every newer job. The log
// names the pushed job, so a restart replays the same activations.
func TestPushOrderOldestFirstPushesTheYieldedJob(t *testing.T) {
	defer func(v bool) { PushOldestFirst = v }(PushOldestFirst)
	PushOldestFirst = true
	r := newPushOrderRig(t)
	a := r.create() // the stream is full: a is yielded
	r.hooks.setReady(true)
	b := r.create()
	if got := r.hooks.pushed(); !eqKeys(got, []int64{a}) {
		t.Fatalf("pushed %v, want the yielded job %d (new job %d)", got, a, b)
	}
	if s := r.state(b); s != JobActivatable {
		t.Fatalf("the new job is %v, want activatable", s)
	}
	r.p.Close()
	r.open() // replay from the log
	if sa, sb := r.state(a), r.state(b); sa != JobActivated || sb != JobActivatable {
		t.Fatalf("after replay: yielded job %v, new job %v", sa, sb)
	}
	if keys, _ := r.poll(10); !eqKeys(keys, []int64{b}) {
		t.Fatalf("poll after replay got %v, want [%d]", keys, b)
	}
}

// --push-order new is Zeebe's rule: only the job that just became
// activatable is pushed, and the yielded one waits for a poll.
func TestPushOrderNewPushesOnlyTheNewJob(t *testing.T) {
	defer func(v bool) { PushOldestFirst = v }(PushOldestFirst)
	PushOldestFirst = false
	r := newPushOrderRig(t)
	a := r.create()
	r.hooks.setReady(true)
	b := r.create()
	if got := r.hooks.pushed(); !eqKeys(got, []int64{b}) {
		t.Fatalf("pushed %v, want the new job %d", got, b)
	}
	if keys, _ := r.poll(10); !eqKeys(keys, []int64{a}) {
		t.Fatalf("poll got %v, want the yielded job [%d]", keys, a)
	}
}

// A job handed back unrun (a worker at capacity fails it with its retries
// unchanged) or timed out takes its old place in the activation order, as
// in Zeebe, whose activatable jobs are ordered by key; before, it went
// behind every job created since.
func TestReturnedJobKeepsItsPlaceInLine(t *testing.T) {
	r := newPushOrderRig(t)
	a, b, c := r.create(), r.create(), r.create()
	keys, deadlines := r.poll(1)
	if !eqKeys(keys, []int64{a}) {
		t.Fatalf("first poll got %v, want [%d]", keys, a)
	}
	d := r.create()
	r.p.Post(&Command{Op: OpReturn, Key: a, Deadline: deadlines[0]})
	deadline := time.Now().Add(5 * time.Second)
	for r.state(a) != JobActivatable && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if keys, _ := r.poll(10); !eqKeys(keys, []int64{a, b, c, d}) {
		t.Fatalf("poll got %v, want %v", keys, []int64{a, b, c, d})
	}
}
