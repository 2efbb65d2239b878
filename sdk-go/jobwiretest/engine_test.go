package jobwiretest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/embedded"
	"github.com/jobwire/jobwire/sdk-go"
	"github.com/jobwire/jobwire/sdk-go/jobwiretest"
)

func testkitFile(name string) string { return filepath.Join(vectorsDir, "testkit", name) }

// A real worker (the SDK's, on the kit's client) runs a task of a process
// that waits 30 days on a timer; moving engine time fires it at once.
func TestClockThirtyDayTimerWithWorker(t *testing.T) {
	start := time.Now()
	eng := jobwiretest.Start(t)
	if ids := eng.Deploy(testkitFile("timer-30d.bpmn")); len(ids) != 1 || ids[0] != "kit-timer-30d" {
		t.Fatalf("deployed %v", ids)
	}
	w, err := eng.Client().NewWorker("kit-remind", func(ctx context.Context, job *jobwire.Job) (any, error) {
		return map[string]any{"reminded": true}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(context.Background())
	key := eng.CreateInstance("kit-timer-30d", map[string]any{"order": 7})
	before := eng.Clock()
	time.Sleep(20 * time.Millisecond)
	if v := eng.Variables(key); v["reminded"] != nil || len(eng.Jobs("kit-remind")) != 0 {
		t.Fatalf("the timer fired before the clock moved: %v", v)
	}
	now := eng.AdvanceClock(30 * 24 * time.Hour)
	if d := now.Sub(before); d < 30*24*time.Hour {
		t.Fatalf("engine time moved %s", d)
	}
	vars := eng.AwaitCompleted(key)
	if vars["reminded"] != true || vars["order"] != json.Number("7") {
		t.Fatalf("variables %v", vars)
	}
	took := time.Since(start)
	// Printed, not asserted (a loaded machine must not fail it): well under 1 s.
	fmt.Printf("MEASURE go-kit 30-day-timer test: %s\n", took.Round(time.Microsecond))
}

func TestClockSetAndReset(t *testing.T) {
	eng := jobwiretest.Start(t)
	target := time.Now().Add(365 * 24 * time.Hour)
	if got := eng.SetClock(target); got.Before(target.Add(-time.Second)) {
		t.Fatalf("set %s, engine time %s", target, got)
	}
	if c := eng.Clock(); c.Before(target.Add(-time.Second)) {
		t.Fatalf("clock %s after setting %s", c, target)
	}
	eng.Reset()
	if d := eng.Clock().Sub(time.Now()).Abs(); d > time.Minute {
		t.Fatalf("after Reset engine time is %s off wall time", d)
	}
}

// Each Start sees an empty engine: what an earlier test created is gone.
func TestIsolationBetweenStarts(t *testing.T) {
	var key int64
	t.Run("first", func(t *testing.T) {
		eng := jobwiretest.Start(t)
		eng.Deploy(testkitFile("one-task.bpmn"))
		key = eng.CreateInstance("kit-one-task", map[string]any{"x": 1})
		if n := len(eng.Jobs("kit-work")); n != 1 {
			t.Fatalf("%d jobs", n)
		}
	})
	t.Run("second", func(t *testing.T) {
		eng := jobwiretest.Start(t)
		if eng.HasInstance(key) {
			t.Fatalf("instance %d of the previous test is still there", key)
		}
		if n := len(eng.Jobs("kit-work")); n != 0 {
			t.Fatalf("%d jobs of the previous test", n)
		}
		if n := eng.CompleteJobs("kit-work", nil); n != 0 {
			t.Fatalf("completed %d jobs of the previous test", n)
		}
	})
}

// fakeT records a test failure instead of ending the real test.
type fakeT struct {
	testing.TB
	mu  sync.Mutex
	msg string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.msg = fmt.Sprintf(format, args...)
	f.mu.Unlock()
	runtime.Goexit()
}

// A failed await shows the instance's state, variables, incidents and open jobs.
func TestAwaitCompletedFailureShowsTheInstance(t *testing.T) {
	ft := &fakeT{TB: t}
	done := make(chan struct{})
	var key int64
	go func() {
		defer close(done)
		eng := jobwiretest.Start(ft)
		eng.Deploy(testkitFile("one-task.bpmn"))
		key = eng.CreateInstance("kit-one-task", map[string]any{"x": 41})
		eng.AwaitCompleted(key, jobwiretest.Within(100*time.Millisecond))
	}()
	<-done
	for _, want := range []string{fmt.Sprintf("instance %d not completed within 100ms", key), "state: active", `"x":41`, `open job:`, `type "kit-work" activatable`} {
		if !strings.Contains(ft.msg, want) {
			t.Errorf("failure message lacks %q:\n%s", want, ft.msg)
		}
	}
}

func TestAwaitIncident(t *testing.T) {
	eng := jobwiretest.Start(t)
	eng.Deploy(testkitFile("route.bpmn"))
	inc := eng.AwaitIncident(eng.CreateInstance("kit-route", nil))
	if inc.Type != "CONDITION_ERROR" || inc.Message == "" {
		t.Fatalf("incident %+v", inc)
	}
}

// A worker sees back-pressure from the fault and still finishes the job.
func TestFaultResourceExhaustedWorkerRecovers(t *testing.T) {
	eng := jobwiretest.Start(t)
	eng.Deploy(testkitFile("one-task.bpmn"))
	eng.InjectResourceExhausted(2)
	key := eng.CreateInstance("kit-one-task", nil)
	w, err := eng.Client().NewWorker("kit-work", func(ctx context.Context, job *jobwire.Job) (any, error) {
		return map[string]any{"y": "done"}, nil
	}, jobwire.WithStreamEnabled(false))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(context.Background())
	if v := eng.AwaitCompleted(key); v["y"] != "done" {
		t.Fatalf("variables %v", v)
	}
	eng.DropStreams()
	eng.ClearFaults()
}

// Measurements (printed, not asserted): engine start-to-ready through
// embedded.Start over 50 starts, and the reset time.
func TestMeasureStartAndReset(t *testing.T) {
	if testing.Short() {
		t.Skip("measurement")
	}
	var starts []time.Duration
	for range 50 {
		t0 := time.Now()
		e, err := embedded.Start(embedded.Options{})
		if err != nil {
			t.Fatal(err)
		}
		starts = append(starts, time.Since(t0))
		_ = e.Close()
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })
	fmt.Printf("MEASURE go-kit engine start-to-ready over 50 starts: p50 %s p99 %s\n",
		starts[24].Round(time.Microsecond), starts[49].Round(time.Microsecond))
	eng := jobwiretest.Start(t)
	eng.Deploy(testkitFile("one-task.bpmn"))
	var resets []time.Duration
	for range 20 {
		eng.CreateInstance("kit-one-task", nil)
		t0 := time.Now()
		eng.Reset()
		resets = append(resets, time.Since(t0))
		eng.Deploy(testkitFile("one-task.bpmn"))
	}
	sort.Slice(resets, func(i, j int) bool { return resets[i] < resets[j] })
	fmt.Printf("MEASURE go-kit reset over 20 resets: p50 %s max %s\n", resets[9].Round(time.Microsecond), resets[19].Round(time.Microsecond))
}
