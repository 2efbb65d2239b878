// Package drv is the shared part of the Go benchmark drivers (../../DRIVERS.md):
// the JSON config, the event lines on stdout, the job counter and the latency
// record. The SDK-specific part (creating and closing workers) is in each cmd.
package drv

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"runtime/trace"
	"sync"
	"sync/atomic"
	"time"
)

// WorkerSpec is one entry of Config.Workers.
type WorkerSpec struct {
	JobType        string `json:"jobType"`
	Mode           string `json:"mode"` // push | poll (long poll) | shortpoll
	Capacity       int    `json:"capacity"`
	DelayMs        int    `json:"delayMs"`
	PollIntervalMs int    `json:"pollIntervalMs"`
	Count          int    `json:"count"`
}

// Config is the driver's only argument.
type Config struct {
	Address string       `json:"address"`
	Workers []WorkerSpec `json:"workers"`
	// Interop, when set, has the driver's own client deploy the BPMN and create the
	// instances too (bench/interop.py: the official client runs unchanged, end to end).
	Interop *Interop `json:"interop"`
}

// Interop is the deploy-and-create part of Config (DRIVERS.md "interop").
type Interop struct {
	Deploy    string `json:"deploy"`    // BPMN file
	ProcessID string `json:"processId"` // its process id
	Count     int    `json:"count"`     // instances to create
	Inflight  int    `json:"inflight"`  // creates in flight at once
}

// RunInterop deploys, then creates in.Count instances with at most in.Inflight create calls
// in flight (variables {"n": i}), and emits {"event":"created","count":ok,"errors":e,"ms":t}.
// A failed deploy emits {"event":"created","count":0,"error":msg}.
func RunInterop(in *Interop, deploy func(path string) error, create func(pid string, i int) error) {
	t0 := time.Now()
	if err := deploy(in.Deploy); err != nil {
		Emit(map[string]any{"event": "created", "count": 0, "error": "deploy: " + err.Error()})
		return
	}
	if in.Inflight <= 0 {
		in.Inflight = 32
	}
	var ok, failed atomic.Int64
	var firstErr atomic.Value
	sem := make(chan struct{}, in.Inflight)
	var wg sync.WaitGroup
	for i := 0; i < in.Count; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			if err := create(in.ProcessID, i); err != nil {
				failed.Add(1)
				firstErr.CompareAndSwap(nil, err.Error())
				return
			}
			ok.Add(1)
		}(i)
	}
	wg.Wait()
	ev := map[string]any{"event": "created", "count": ok.Load(), "errors": failed.Load(), "ms": time.Since(t0).Milliseconds()}
	if e := firstErr.Load(); e != nil {
		ev["error"] = e
	}
	Emit(ev)
}

// Parse reads the config from the first argument.
func Parse() Config {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: driver '<config json>'")
		os.Exit(2)
	}
	var c Config
	if err := json.Unmarshal([]byte(os.Args[len(os.Args)-1]), &c); err != nil {
		fmt.Fprintln(os.Stderr, "bad config:", err)
		os.Exit(2)
	}
	for i := range c.Workers {
		if c.Workers[i].Count <= 0 {
			c.Workers[i].Count = 1
		}
		if c.Workers[i].Capacity <= 0 {
			c.Workers[i].Capacity = 32
		}
	}
	return c
}

// Recorder counts handled jobs and keeps each job's activation latency
// (handler start minus the t0 variable, epoch ms, set by the load generator).
type Recorder struct {
	jobs atomic.Int64
	mu   sync.Mutex
	lat  []float64
}

// Start records a handler start; t0 is 0 when the job carries none.
func (r *Recorder) Start(t0 float64) {
	if t0 > 0 {
		l := float64(time.Now().UnixNano())/1e6 - t0
		r.mu.Lock()
		r.lat = append(r.lat, l)
		r.mu.Unlock()
	}
}

// Done counts a completed job.
func (r *Recorder) Done() { r.jobs.Add(1) }

// T0 extracts the t0 variable from a job's variables document.
func T0(vars []byte) float64 {
	var v struct {
		T0 float64 `json:"t0"`
	}
	_ = json.Unmarshal(vars, &v)
	return v.T0
}

var outMu sync.Mutex

// Emit writes one event line on stdout.
func Emit(m map[string]any) {
	b, _ := json.Marshal(m)
	outMu.Lock()
	os.Stdout.Write(append(b, '\n'))
	outMu.Unlock()
}

// Run announces ready, reports progress every 500 ms, waits for "stop" or
// the end of stdin, calls closeAll, and reports the totals.
//
// BENCH_CPUPROFILE=<file> writes a pprof CPU profile of the whole run (for `go tool pprof`),
// BENCH_TRACE=<prefix> an execution trace (for `go tool trace`).
func Run(client, version string, r *Recorder, closeAll func()) {
	// BENCH_CPUPROFILE: a CPU profile of the whole run, written before the
	// 'done' event (the harness kills the driver once it has read it)
	stopProfile := func() {}
	if f := os.Getenv("BENCH_CPUPROFILE"); f != "" {
		if out, err := os.Create(f); err == nil && pprof.StartCPUProfile(out) == nil {
			stopProfile = func() { pprof.StopCPUProfile(); out.Close() }
		}
	}
	// BENCH_TRACE=<prefix>: an execution trace of the whole run into <prefix>.<pid> (one file per
	// driver process: push and poll run in separate processes), for `go tool trace`
	if f := os.Getenv("BENCH_TRACE"); f != "" {
		if out, err := os.Create(fmt.Sprintf("%s.%d", f, os.Getpid())); err == nil && trace.Start(out) == nil {
			prev := stopProfile
			stopProfile = func() { trace.Stop(); out.Close(); prev() }
		}
	}
	Emit(map[string]any{"event": "ready", "client": client, "version": version})
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				Emit(map[string]any{"event": "progress", "jobs": r.jobs.Load()})
			}
		}
	}()
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		if sc.Text() == "stop" {
			break
		}
	}
	close(stop)
	// A client whose close waits for a parked long poll would hold the totals back: cap it.
	closed := make(chan struct{})
	go func() { closeAll(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		fmt.Fprintln(os.Stderr, "close did not return within 5 s")
	}
	r.mu.Lock()
	lat := r.lat
	r.mu.Unlock()
	stopProfile()
	// BENCH_ALLOCPROFILE: the allocations of the whole run (go tool pprof -sample_index=alloc_space)
	if f := os.Getenv("BENCH_ALLOCPROFILE"); f != "" {
		if out, err := os.Create(f); err == nil {
			_ = pprof.Lookup("allocs").WriteTo(out, 0)
			out.Close()
		}
	}
	// BENCH_SCHEDSTATS=<file>: the Go runtime's scheduling counts of the whole run
	// (goroutines made runnable, GC cycles, heap allocated), for comparing clients
	if f := os.Getenv("BENCH_SCHEDSTATS"); f != "" {
		writeSchedStats(f)
	}
	Emit(map[string]any{"event": "done", "jobs": r.jobs.Load(), "latMs": lat})
}

func writeSchedStats(f string) {
	s := []metrics.Sample{{Name: "/sched/latencies:seconds"}, {Name: "/gc/cycles/total:gc-cycles"},
		{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/allocs:objects"}, {Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	out := map[string]any{}
	for _, x := range s {
		switch x.Value.Kind() {
		case metrics.KindUint64:
			out[x.Name] = x.Value.Uint64()
		case metrics.KindFloat64Histogram:
			var n uint64
			for _, c := range x.Value.Float64Histogram().Counts {
				n += c
			}
			out[x.Name] = n
		}
	}
	b, _ := json.Marshal(out)
	_ = os.WriteFile(f, b, 0o644)
}
