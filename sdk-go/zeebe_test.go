//go:build zeebe

package jobwire_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	jobwire "github.com/jobwire/jobwire/sdk-go"
	"github.com/jobwire/jobwire/sdk-go/internal/testengine"
)

// zeebeAddress returns JOBWIRE_ZEEBE_ADDRESS, or starts the real in-memory
// Zeebe engine with tools/zeebe-engine/start.sh --port 0 (stopped at the end).
// It fails, never skips, when Zeebe cannot be started.
func zeebeAddress(t *testing.T) string {
	if a := os.Getenv("JOBWIRE_ZEEBE_ADDRESS"); a != "" {
		return a
	}
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "tools", "zeebe-engine", "start.sh")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("Zeebe launcher missing: %v", err)
	}
	cmd := exec.Command(script, "--port", "0")
	stdin, err := cmd.StdinPipe() // the launcher exits when its stdin closes
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start Zeebe: %v", err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	re := regexp.MustCompile(`listening on (127\.0\.0\.1:\d+)`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case a := <-found:
		return a
	case <-time.After(180 * time.Second): // first start builds the launcher
		t.Fatal("Zeebe did not print its listening line")
		return ""
	}
}

// TestZeebeFiveHundredInstances deploys a one-task process to the real Zeebe
// engine and runs 500 instances through a jobwire worker.
func TestZeebeFiveHundredInstances(t *testing.T) {
	addr := zeebeAddress(t)
	ctx := context.Background()
	c, err := jobwire.NewClient(ctx, jobwire.WithAddress(addr), jobwire.WithLogger(logger()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const jobType = "zeebe-go-task"
	d, err := c.DeployResource(ctx, "one-task-zeebe.bpmn", testengine.BPMN(jobType))
	if err != nil {
		t.Fatalf("deploy to Zeebe: %v", err)
	}
	pid := d.Processes[0].BPMNProcessID
	var handled atomic.Int32
	w, err := c.NewWorker(jobType, func(ctx context.Context, job *jobwire.Job) (any, error) {
		handled.Add(1)
		var in struct {
			N int64 `json:"n"`
		}
		if err := job.DecodeVariables(&in); err != nil {
			return nil, err
		}
		return map[string]any{"doubled": in.N * 2}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer closeW(t, w)
	start := time.Now()
	res := runInstances(t, c, pid, 500, map[string]any{"n": int64(1) << 60})
	elapsed := time.Since(start)
	for _, r := range res {
		var out struct {
			Doubled int64 `json:"doubled"`
		}
		if err := r.Decode(&out); err != nil || out.Doubled != int64(1)<<61 {
			t.Fatalf("result %s", r.Variables)
		}
	}
	if handled.Load() < 500 {
		t.Fatalf("handled %d of 500", handled.Load())
	}
	t.Logf("500 instances through Zeebe in %v (%.0f instances/s)", elapsed, 500/elapsed.Seconds())
}
