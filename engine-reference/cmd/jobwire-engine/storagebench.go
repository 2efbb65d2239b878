package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// storageBench measures what finished work costs the engine: for each size
// it runs that many single-task instances to completion through a `dev`
// process, then reports that process's RSS, the restart time after a
// SIGKILL (snapshot + log tail) and after a clean shutdown (snapshot only),
// and the RSS and data size after each restart, and the CPU time each
// restart took (all threads, until listening: the part of a restart that
// hardly depends on the machine's load). With storage that frees finished
// work, all of these stay flat as the size grows.
func storageBench(args []string) int {
	fs := flag.NewFlagSet("storage-bench", flag.ContinueOnError)
	sizes := fs.String("sizes", "10000,100000,1000000", "finished instances per run, comma-separated")
	conc := fs.Int("concurrency", 128, "instance creations in flight")
	bin := fs.String("engine-bin", "", "engine binary to measure (default: this one); any build with `dev --data-dir --exit-on-stdin-close`")
	fsync := fs.Bool("fsync", false, "fsync while filling (slower; restart and RSS do not depend on it)")
	restarts := fs.Int("restarts", 3, "restarts measured per kind (crash, clean); the median is printed, the RSS is the largest")
	devArgs := fs.String("dev-args", "", "extra flags for the measured `dev` process, space-separated (e.g. \"--history 1000 --snapshot-every 10000\")")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *bin == "" {
		self, err := os.Executable()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		*bin = self
	}
	fmt.Printf("jobwire-engine storage-bench: %s %s, 3 partitions, single-service-task instances run to completion (fill fsync %v); restarts: median of %d\n", *bin, *devArgs, *fsync, *restarts)
	fmt.Printf("%-10s %-10s %-12s %-14s %-12s %-14s %-12s %-12s %-12s %-12s\n", "finished", "fill/s", "RSS filled", "crash restart", "RSS after", "clean restart", "RSS after", "data dir", "crash CPU", "clean CPU")
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			fmt.Fprintf(os.Stderr, "bad size %q\n", f)
			return 2
		}
		if err := storageRun(*bin, n, *conc, max(*restarts, 1), *fsync, strings.Fields(*devArgs)); err != nil {
			fmt.Fprintf(os.Stderr, "storage-bench %d: %v\n", n, err)
			return 1
		}
	}
	return 0
}

type devProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	addr  string
	cpu   time.Duration // CPU time the process used until it was listening
}

// cpuTime is the CPU time (user + system, all threads) a process has used
// so far, from the scheduler's per-thread nanosecond counters
// (/proc/<pid>/task/*/schedstat); -1 where that is not available. Unlike
// the wall time to start, it hardly depends on what else the machine runs.
func cpuTime(pid int) time.Duration {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return -1
	}
	var total time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
		if err != nil {
			continue // the thread exited
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			continue
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return -1
		}
		total += time.Duration(ns)
	}
	return total
}

var devListenRE = regexp.MustCompile(`listening on (127\.0\.0\.1:\d+)`)

func startDev(bin, dir string, fsync bool, extra []string) (*devProc, time.Duration, error) {
	args := append([]string{"dev", "--port", "0", "--data-dir", dir, "--exit-on-stdin-close"}, extra...)
	if !fsync {
		args = append(args, "--no-fsync")
	}
	t0 := time.Now()
	cmd := exec.Command(bin, args...)
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := devListenRE.FindStringSubmatch(sc.Text()); m != nil {
				lines <- m[1]
			}
		}
	}()
	select {
	case addr := <-lines:
		return &devProc{cmd: cmd, stdin: stdin, addr: addr, cpu: cpuTime(cmd.Process.Pid)}, time.Since(t0), nil
	case <-time.After(10 * time.Minute):
		cmd.Process.Kill()
		return nil, 0, fmt.Errorf("engine did not start")
	}
}

func rssMB(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			kb, _ := strconv.ParseFloat(strings.Fields(l)[1], 64)
			return kb / 1024
		}
	}
	return -1
}

func dirMB(dir string) float64 {
	var total int64
	filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			total += info.Size()
		}
		return nil
	})
	return float64(total) / (1 << 20)
}

// median of a non-empty set of durations.
func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func storageRun(bin string, n, conc, restarts int, fsync bool, extra []string) error {
	dir, err := os.MkdirTemp("", "jobwire-storage-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	d, _, err := startDev(bin, dir, fsync, extra)
	if err != nil {
		return err
	}
	defer func() { d.cmd.Process.Kill(); d.cmd.Wait() }()
	conn, err := grpc.NewClient(d.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	gw, admin := pb.NewGatewayClient(conn), apb.NewAdminServiceClient(conn)
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := gw.DeployResource(ctx, &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "bench.bpmn", Content: []byte(benchBPMN)}}}); err != nil {
		cancel()
		return err
	}
	t0 := time.Now()
	var completed atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ { // push workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := gw.StreamActivatedJobs(ctx, &pb.StreamActivatedJobsRequest{Type: "bench", Worker: "storage-bench", Timeout: 60000})
			if err != nil {
				return
			}
			sem := make(chan struct{}, 64)
			for {
				j, err := s.Recv()
				if err != nil {
					return
				}
				sem <- struct{}{}
				go func() {
					defer func() { <-sem }()
					if _, err := gw.CompleteJob(ctx, &pb.CompleteJobRequest{JobKey: j.Key}); err == nil {
						completed.Add(1)
					}
				}()
			}
		}()
	}
	// A poller picks up jobs that were yielded because no stream was ready,
	// so no backlog builds up: the run is a steady state.
	poll := func() {
		s, err := gw.ActivateJobs(ctx, &pb.ActivateJobsRequest{Type: "bench", Worker: "storage-bench", Timeout: 60000, MaxJobsToActivate: 256, RequestTimeout: 200})
		if err != nil {
			return
		}
		for {
			r, err := s.Recv()
			if err != nil {
				return
			}
			for _, j := range r.Jobs {
				if _, err := gw.CompleteJob(ctx, &pb.CompleteJobRequest{JobKey: j.Key}); err == nil {
					completed.Add(1)
				}
			}
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil && completed.Load() < int64(n) {
			poll()
		}
	}()
	var next atomic.Int64
	var cwg sync.WaitGroup
	for c := 0; c < conc; c++ {
		cwg.Add(1)
		go func() {
			defer cwg.Done()
			for next.Add(1) <= int64(n) {
				for next.Load()-completed.Load() > 4096 {
					time.Sleep(time.Millisecond) // keep the live state steady
				}
				for {
					if _, err := gw.CreateProcessInstance(ctx, &pb.CreateProcessInstanceRequest{BpmnProcessId: "bench", Version: -1}); err == nil {
						break
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
		}()
	}
	cwg.Wait()
	for completed.Load() < int64(n) {
		time.Sleep(10 * time.Millisecond)
	}
	fill := time.Since(t0)
	r, err := admin.ListProcessInstances(ctx, &apb.ListProcessInstancesRequest{})
	if err != nil || r.CountsByState["COMPLETED"] != int64(n) {
		cancel()
		return fmt.Errorf("after the fill: %v %v", r.GetCountsByState(), err)
	}
	filledRSS := rssMB(d.cmd.Process.Pid)
	cancel()
	conn.Close()
	wg.Wait()
	// Crash, restart (snapshot + log tail), then clean stop and restart.
	// Each restart is measured `restarts` times and the median reported: a
	// recovery writes nothing, so every crash restart replays the same
	// tail and every clean restart loads the same snapshot; the median
	// takes out the noise of other processes on the machine.
	d.cmd.Process.Kill()
	d.cmd.Wait()
	var crashes, cleans, crashCPU, cleanCPU []time.Duration
	var crashRSS, cleanRSS float64
	for i := 0; i < restarts; i++ {
		d2, crash, err := startDev(bin, dir, fsync, extra)
		if err != nil {
			return err
		}
		crashes = append(crashes, crash)
		crashCPU = append(crashCPU, d2.cpu)
		time.Sleep(500 * time.Millisecond)
		crashRSS = max(crashRSS, rssMB(d2.cmd.Process.Pid))
		if i < restarts-1 {
			d2.cmd.Process.Kill()
		} else {
			d2.stdin.Close() // the last one stops cleanly: a snapshot, an empty tail
		}
		d2.cmd.Wait()
	}
	var size float64
	for i := 0; i < restarts; i++ {
		d3, clean, err := startDev(bin, dir, fsync, extra)
		if err != nil {
			return err
		}
		cleans = append(cleans, clean)
		cleanCPU = append(cleanCPU, d3.cpu)
		time.Sleep(500 * time.Millisecond)
		cleanRSS = max(cleanRSS, rssMB(d3.cmd.Process.Pid))
		size = dirMB(dir)
		d3.stdin.Close()
		d3.cmd.Wait()
	}
	crash, clean := median(crashes), median(cleans)
	fmt.Fprintf(os.Stderr, "storage-bench %d: crash restarts %v (CPU %v), clean restarts %v (CPU %v)\n", n, crashes, crashCPU, cleans, cleanCPU)
	fmt.Printf("%-10d %-10.0f %-12s %-14s %-12s %-14s %-12s %-12s %-12s %-12s\n", n, float64(n)/fill.Seconds(),
		fmt.Sprintf("%.0f MB", filledRSS), crash.Round(time.Millisecond), fmt.Sprintf("%.0f MB", crashRSS),
		clean.Round(time.Millisecond), fmt.Sprintf("%.0f MB", cleanRSS), fmt.Sprintf("%.1f MB", size),
		median(crashCPU).Round(time.Millisecond), median(cleanCPU).Round(time.Millisecond))
	return nil
}
