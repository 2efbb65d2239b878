package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"
)

var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "jobwire-engine-bin-")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "jobwire-engine")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var lineRE = regexp.MustCompile(`^jobwire-engine dev listening on 127\.0\.0\.1:(\d+) \((\d+) partitions, data (.+)\)$`)

// run starts `dev` and returns once the listening line is printed.
func run(t *testing.T, args ...string) (*exec.Cmd, *os.File, []string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"dev"}, args...)...)
	r, w, _ := os.Pipe()
	cmd.Stdin = r
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	got := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := lineRE.FindStringSubmatch(sc.Text()); m != nil {
				got <- m
			}
		}
	}()
	start := time.Now()
	select {
	case m := <-got:
		if time.Since(start) > time.Second {
			t.Errorf("start took %v", time.Since(start))
		}
		return cmd, w, m
	case <-time.After(10 * time.Second):
		t.Fatal("no listening line")
	}
	return nil, nil, nil
}

func waitExit(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("engine did not exit")
	}
}

func TestDevSignalsAndStdinClose(t *testing.T) {
	cmd, _, m := run(t, "--port", "0", "--partitions", "2")
	if m[2] != "2" {
		t.Fatalf("line %v", m)
	}
	tmp := m[3]
	cmd.Process.Signal(syscall.SIGTERM)
	waitExit(t, cmd)
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatalf("temp data dir %s left behind", tmp)
	}
	data := t.TempDir()
	cmd, stdin, m := run(t, "--port", "0", "--data-dir", data, "--exit-on-stdin-close")
	if m[3] != data {
		t.Fatalf("data dir %v", m)
	}
	stdin.Close()
	waitExit(t, cmd)
	if segs, _ := filepath.Glob(filepath.Join(data, "partition-1", "log-*")); len(segs) == 0 {
		t.Fatal("data dir not kept")
	}
	// A different partition count on the same data dir is refused.
	bad := exec.Command(bin, "dev", "--port", "0", "--data-dir", data, "--partitions", "5")
	if out, err := bad.CombinedOutput(); err == nil || !regexp.MustCompile(`created with 3 partitions`).Match(out) {
		t.Fatalf("want refusal, got %v %s", err, out)
	}
}
