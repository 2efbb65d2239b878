// Command loadgen is the benchmark's load generator, run as a process of its
// own so that a worker driver's CPU time is the worker's alone. It talks to
// the engine with the jobwire Go SDK's client and prints one JSON result line
// on stdout (progress on stderr).
//
//	loadgen deploy  -address A -bpmn file...
//	loadgen closed  -address A -process P -n N -inflight K     create with result, K in flight
//	loadgen open    -address A -process P -n N -rate R         create at R/s (no result)
//	loadgen backlog -address A -process P -n N -pad-kb 10      create N, each with a pad variable
//	loadgen mixed   -address A -process P -n N -interval 40ms  one instance with result every interval
//	loadgen activate -address A -type T -n N -job-timeout 1s -window 0
//	        activates up to N jobs of type T (each for job-timeout, never completed) with polls that do not
//	        wait, until one comes back empty (with -window D: and D has passed); prints {"activated": k}
//
// Every instance carries t0 (epoch ms, float): the worker driver measures
// activation latency against it.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	jobwire "github.com/jobwire/jobwire/sdk-go"
)

func nowMs() float64 { return float64(time.Now().UnixNano()) / 1e6 }

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: loadgen deploy|closed|open|backlog|mixed|activate [flags]")
		os.Exit(2)
	}
	mode := os.Args[1]
	fs := flag.NewFlagSet(mode, flag.ExitOnError)
	addr := fs.String("address", "", "engine gateway address")
	proc := fs.String("process", "", "BPMN process id")
	n := fs.Int("n", 1000, "instances")
	inflight := fs.Int("inflight", 32, "instances in flight (closed, backlog)")
	rate := fs.Float64("rate", 200, "instances per second (open)")
	padKB := fs.Int("pad-kb", 0, "size of the pad variable in KiB (backlog)")
	interval := fs.Duration("interval", 40*time.Millisecond, "start interval (mixed)")
	jobType := fs.String("type", "", "job type (activate)")
	jobTimeout := fs.Duration("job-timeout", time.Second, "activation timeout of the collected jobs (activate)")
	window := fs.Duration("window", 0, "keep polling this long (activate)")
	_ = fs.Parse(os.Args[2:])
	ctx := context.Background()
	c, err := jobwire.NewClient(ctx, jobwire.WithAddress(strings.Split(*addr, ",")...), jobwire.WithInsecure(true),
		jobwire.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		fail(err)
	}
	defer c.Close()
	var res map[string]any
	switch mode {
	case "deploy":
		for _, f := range fs.Args() {
			if _, err := c.DeployFiles(ctx, f); err != nil {
				fail(err)
			}
		}
		res = map[string]any{"deployed": len(fs.Args())}
	case "closed":
		res = closed(ctx, c, *proc, *n, *inflight)
	case "open":
		res = open(ctx, c, *proc, *n, *rate)
	case "backlog":
		res = backlog(ctx, c, *proc, *n, *inflight, *padKB)
	case "mixed":
		res = mixed(ctx, c, *proc, *n, *interval)
	case "activate":
		res = activate(ctx, c, *jobType, *n, *jobTimeout, *window)
	default:
		fail(fmt.Errorf("unknown mode %q", mode))
	}
	b, _ := json.Marshal(res)
	fmt.Println(string(b))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "loadgen:", err)
	os.Exit(1)
}

func progress(what string, done *atomic.Int64, total int, stop <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			fmt.Fprintf(os.Stderr, "  loadgen %s: %d/%d\n", what, done.Load(), total)
		}
	}
}

func pct(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p+0.999999) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(sorted) {
		i = len(sorted) - 1
	}
	return sorted[i]
}

// closed: K workers each create-with-result in a loop; latency = create to completed.
func closed(ctx context.Context, c *jobwire.Client, proc string, n, k int) map[string]any {
	var next, done, errs atomic.Int64
	lat := make([]float64, n)
	stop := make(chan struct{})
	go progress("closed", &done, n, stop)
	t0 := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < k; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				s := time.Now()
				cctx, cancel := context.WithTimeout(ctx, 90*time.Second)
				_, err := c.CreateProcessInstanceWithResult(cctx, jobwire.CreateInstance{BPMNProcessID: proc,
					Variables: map[string]any{"t0": nowMs()}}, 60*time.Second)
				cancel()
				lat[i] = float64(time.Since(s).Microseconds()) / 1000
				if err != nil {
					if errs.Add(1) <= 3 {
						fmt.Fprintln(os.Stderr, "  loadgen:", err)
					}
					continue
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	wall := time.Since(t0).Seconds()
	close(stop)
	sort.Float64s(lat)
	return map[string]any{"n": n, "completed": done.Load(), "errors": errs.Load(), "seconds": wall,
		"jobsPerS": float64(done.Load()) / wall, "p50Ms": pct(lat, .5), "p99Ms": pct(lat, .99), "maxMs": lat[len(lat)-1]}
}

// open: a steady rate, independent of completions.
func open(ctx context.Context, c *jobwire.Client, proc string, n int, rate float64) map[string]any {
	var done, errs atomic.Int64
	stop := make(chan struct{})
	go progress("open", &done, n, stop)
	period := time.Duration(float64(time.Second) / rate)
	t0 := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		due := t0.Add(time.Duration(i) * period)
		if d := time.Until(due); d > 0 {
			time.Sleep(d)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			if _, err := c.CreateProcessInstance(cctx, jobwire.CreateInstance{BPMNProcessID: proc,
				Variables: map[string]any{"t0": nowMs()}}); err != nil {
				errs.Add(1)
				return
			}
			done.Add(1)
		}()
	}
	wg.Wait()
	wall := time.Since(t0).Seconds()
	close(stop)
	return map[string]any{"n": n, "created": done.Load(), "errors": errs.Load(), "seconds": wall, "ratePerS": float64(done.Load()) / wall}
}

func backlog(ctx context.Context, c *jobwire.Client, proc string, n, k, padKB int) map[string]any {
	pad := strings.Repeat("x", padKB*1024)
	var next, done, errs atomic.Int64
	stop := make(chan struct{})
	go progress("backlog", &done, n, stop)
	t0 := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < k; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for int(next.Add(1)) <= n {
				vars := map[string]any{"t0": nowMs()}
				if padKB > 0 {
					vars["pad"] = pad
				}
				cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				_, err := c.CreateProcessInstance(cctx, jobwire.CreateInstance{BPMNProcessID: proc, Variables: vars})
				cancel()
				if err != nil {
					errs.Add(1)
					continue
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	close(stop)
	return map[string]any{"n": n, "created": done.Load(), "errors": errs.Load(), "seconds": time.Since(t0).Seconds()}
}

// mixed: one instance (with result) every interval; total = first start to last completion.
func mixed(ctx context.Context, c *jobwire.Client, proc string, n int, interval time.Duration) map[string]any {
	var done, errs atomic.Int64
	stop := make(chan struct{})
	go progress("mixed", &done, n, stop)
	t0 := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		if d := time.Until(t0.Add(time.Duration(i) * interval)); d > 0 {
			time.Sleep(d)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
			defer cancel()
			if _, err := c.CreateProcessInstanceWithResult(cctx, jobwire.CreateInstance{BPMNProcessID: proc,
				Variables: map[string]any{"t0": nowMs()}}, 4*time.Minute); err != nil {
				errs.Add(1)
				return
			}
			done.Add(1)
		}()
	}
	wg.Wait()
	close(stop)
	return map[string]any{"n": n, "completed": done.Load(), "errors": errs.Load(), "seconds": time.Since(t0).Seconds()}
}

// activate: the probe of the parked-jobs workload. Collects up to n activatable jobs of a type and
// holds them for jobTimeout (never completes them): how many jobs the engine could hand to another worker.
func activate(ctx context.Context, c *jobwire.Client, jobType string, n int, jobTimeout, window time.Duration) map[string]any {
	got, polls := 0, 0
	end := time.Now().Add(window)
	for got < n {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		jobs, err := c.ActivateJobs(cctx, jobwire.ActivateJobsRequest{Type: jobType, MaxJobs: int32(n - got),
			Timeout: jobTimeout, RequestTimeout: -1})
		cancel()
		polls++
		if err != nil {
			fail(err)
		}
		got += len(jobs)
		if len(jobs) == 0 {
			if !time.Now().Before(end) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return map[string]any{"activated": got, "polls": polls}
}
