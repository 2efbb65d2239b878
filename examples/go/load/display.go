package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

type display struct {
	plain   bool
	every   time.Duration
	d       *driver
	workers []*workerStats
	t0      time.Time
	drawn   int
	lastN   int64
	lastT   time.Time
}

// loop redraws the status until done is closed.
func (u *display) loop(done <-chan struct{}) {
	period := 250 * time.Millisecond
	if u.plain {
		period = u.every
	}
	u.lastT = u.t0
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-done:
			u.draw()
			return
		case <-t.C:
			u.draw()
		}
	}
}

func (u *display) lines() []string {
	var out []string
	for _, w := range u.workers {
		w.poll()
		if w.last == nil {
			out = append(out, fmt.Sprintf("%-6s %-28s waiting for stats…", w.name, w.types))
			continue
		}
		out = append(out, fmt.Sprintf("%-6s %-28s %7.0f jobs  %6.0f jobs/s  in flight %3.0f  hand-off p99 %6.2f ms",
			w.name, w.types, w.num("handled"), w.num("jobs_per_s"), w.num("inflight"), w.num("p99_ms")))
	}
	d := u.d
	now := time.Now()
	n := d.completed.Load()
	rate := float64(n-u.lastN) / now.Sub(u.lastT).Seconds()
	u.lastN, u.lastT = n, now
	d.mu.Lock()
	p99 := quantile(d.window, 0.99)
	d.window = d.window[:0]
	d.mu.Unlock()
	target := "∞"
	if d.target > 0 {
		target = fmt.Sprint(d.target)
	}
	out = append(out, fmt.Sprintf("%-6s %-28s %7d/%s instances  %6.0f/s  in flight %3d  end-to-end p99 %6.1f ms  declined %d  errors %d",
		"load", "order-fulfilment", n, target, rate, d.started.Load()-n-d.failures.Load(), p99, d.declined.Load(), d.failures.Load()+d.wrong.Load()))
	return out
}

func (u *display) draw() {
	ls := u.lines()
	if u.plain {
		el := time.Since(u.t0).Seconds()
		for _, l := range ls {
			fmt.Printf("[%5.1fs] %s\n", el, l)
		}
		return
	}
	var b strings.Builder
	if u.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", u.drawn)
	}
	for _, l := range ls {
		b.WriteString("\x1b[2K\r" + l + "\n")
	}
	u.drawn = len(ls)
	os.Stdout.WriteString(b.String())
}

// summary prints the final table and reports whether the run succeeded.
func summary(d *driver, workers []*workerStats, elapsed time.Duration, interrupted, timedOut bool, jsonPath string) bool {
	completed, started := d.completed.Load(), d.started.Load()
	d.mu.Lock()
	p50, p99 := quantile(d.lat, 0.5), quantile(d.lat, 0.99)
	d.mu.Unlock()
	fmt.Println()
	fmt.Printf("%-6s %-28s %8s %8s %8s %7s %9s %10s %10s\n", "sdk", "job types", "jobs", "jobs/s", "errors", "failed", "in flight", "p50 ms", "p99 ms")
	fmt.Println(strings.Repeat("─", 104))
	type wsum struct {
		Name, Types            string
		Handled, BPMNErrors    int64
		Failed                 int64
		JobsPerS, P50Ms, P99Ms float64
		ByType                 map[string]any
	}
	var ws []wsum
	problems := []string{}
	for _, w := range workers {
		s := wsum{Name: w.name, Types: w.types, Handled: int64(w.num("handled")), BPMNErrors: int64(w.num("bpmn_errors")),
			Failed: int64(w.num("failed")), JobsPerS: w.num("handled") / elapsed.Seconds(),
			P50Ms: w.num("total_p50_ms"), P99Ms: w.num("total_p99_ms")}
		s.ByType, _ = w.last["by_type"].(map[string]any)
		ws = append(ws, s)
		fmt.Printf("%-6s %-28s %8d %8.0f %8d %7d %9.0f %10.2f %10.2f\n", s.Name, s.Types, s.Handled, s.JobsPerS, s.BPMNErrors, s.Failed, w.num("inflight"), s.P50Ms, s.P99Ms)
		if s.Handled == 0 && completed > 0 {
			problems = append(problems, fmt.Sprintf("the %s worker handled no job", w.name))
		}
	}
	rate := float64(completed) / elapsed.Seconds()
	fmt.Printf("%-6s %-28s %8d %8.0f %8d %7d %9s %10.1f %10.1f   (instances, end-to-end latency)\n",
		"load", "order-fulfilment", completed, rate, d.wrong.Load(), d.failures.Load(), "", p50, p99)
	fmt.Println(strings.Repeat("─", 104))
	fmt.Printf("%d/%d instances completed in %.1fs (%.0f instances/s, %d jobs): %d fulfilled (%d express), %d declined via the PAYMENT_DECLINED boundary event\n",
		completed, started, elapsed.Seconds(), rate, d.expectedJobs.Load(), completed-d.declined.Load(), d.express.Load(), d.declined.Load())
	if d.retry.Load() > 0 {
		fmt.Printf("%d create calls retried after backpressure\n", d.retry.Load())
	}
	switch {
	case interrupted && d.target == 0:
		fmt.Println("stopped (Ctrl-C)")
	case interrupted:
		problems = append(problems, "interrupted")
	case timedOut && d.target > 0 && completed < int64(d.target):
		problems = append(problems, fmt.Sprintf("time limit reached after %d of %d instances", completed, d.target))
	}
	if d.failures.Load() > 0 || d.wrong.Load() > 0 {
		problems = append(problems, fmt.Sprintf("%d instances failed, %d had wrong results (first: %v)", d.failures.Load(), d.wrong.Load(), d.firstErr.Load()))
	}
	if completed == 0 {
		problems = append(problems, "no instance completed")
	}
	if completed > 0 && d.declined.Load() == 0 {
		problems = append(problems, "the error path was never taken")
	}
	ok := len(problems) == 0
	if ok {
		fmt.Println("OK")
	} else {
		fmt.Println("FAILED: " + strings.Join(problems, "; "))
	}
	if jsonPath != "" {
		b, _ := json.MarshalIndent(map[string]any{
			"ok": ok, "problems": problems, "instances_started": started, "instances_completed": completed,
			"declined": d.declined.Load(), "express": d.express.Load(), "wrong": d.wrong.Load(), "failures": d.failures.Load(),
			"expected_jobs": d.expectedJobs.Load(), "elapsed_s": elapsed.Seconds(), "instances_per_s": rate,
			"e2e_p50_ms": p50, "e2e_p99_ms": p99, "workers": ws,
		}, "", "  ")
		_ = os.WriteFile(jsonPath, append(b, '\n'), 0o644)
	}
	return ok
}
