// Package testengine starts the jobwire reference engine for integration
// tests: `jobwire-engine dev --port 0 --data-dir <tmp> --exit-on-stdin-close`,
// waits for its "listening on" line, and always stops it when the test ends.
// A missing engine binary fails the test (never skips).
package testengine

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Engine is a running reference engine.
type Engine struct {
	Addr    string // 127.0.0.1:<port>
	OAuth   string // token endpoint URL when started with --oauth
	Port    string
	DataDir string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	mu      sync.Mutex
	t       testing.TB
	ui      string // the live view's base URL, once printed
}

// LiveView returns the base URL of the engine's live view (its /api/snapshot
// lists jobs with their error messages), waiting up to 5 s for the engine to
// print it.
func (e *Engine) LiveView() string {
	e.t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		e.mu.Lock()
		u := e.ui
		e.mu.Unlock()
		if u != "" {
			return u
		}
	}
	e.t.Fatalf("the engine printed no live view URL")
	return ""
}

var (
	listening = regexp.MustCompile(`listening on (127\.0\.0\.1:(\d+))`)
	oauthLine = regexp.MustCompile(`oauth token endpoint (http://\S+)`)
	uiLine    = regexp.MustCompile(`live view (http://\S+)`)
)

// Binary returns the engine binary path: $JOBWIRE_ENGINE or
// <repo>/engine-reference/bin/jobwire-engine (built by `make engine`).
func Binary() string {
	if p := os.Getenv("JOBWIRE_ENGINE"); p != "" {
		return p
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "engine-reference", "bin", "jobwire-engine")
}

// Start starts an engine on a free port with a fresh data dir.
func Start(t testing.TB, extraArgs ...string) *Engine {
	t.Helper()
	e := &Engine{DataDir: t.TempDir(), t: t, Port: "0"}
	e.start(extraArgs...)
	t.Cleanup(e.Stop)
	return e
}

func (e *Engine) start(extra ...string) {
	t := e.t
	t.Helper()
	bin := Binary()
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("reference engine not found at %s (run `make engine`): %v", bin, err)
	}
	args := []string{"dev", "--port", e.Port, "--data-dir", e.DataDir, "--exit-on-stdin-close"}
	if os.Getenv("JOBWIRE_ENGINE_FSYNC") != "1" {
		args = append(args, "--no-fsync") // tests and benchmarks do not need crash safety
	}
	args = append(args, extra...)
	cmd := exec.Command(bin, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &testWriter{t: t}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start engine: %v", err)
	}
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			if m := uiLine.FindStringSubmatch(line); m != nil {
				e.mu.Lock()
				e.ui = strings.TrimSuffix(m[1], "/")
				e.mu.Unlock()
			}
			if m := oauthLine.FindStringSubmatch(line); m != nil {
				e.mu.Lock()
				e.OAuth = m[1]
				e.mu.Unlock()
			}
			if m := listening.FindStringSubmatch(line); m != nil && !sent {
				found <- m
				sent = true
			}
		}
	}()
	select {
	case m := <-found:
		e.mu.Lock()
		e.cmd, e.stdin, e.Addr, e.Port = cmd, stdin, m[1], m[2]
		e.mu.Unlock()
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("engine did not print its listening line within 15 s")
	}
}

// OAuthURL returns the mock token endpoint (with --oauth).
func (e *Engine) OAuthURL() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.OAuth
}

// Stop kills the engine (idempotent).
func (e *Engine) Stop() {
	e.mu.Lock()
	cmd := e.cmd
	e.cmd = nil
	e.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
}

// Restart kills the engine and starts it again on the same port and data dir,
// as a gateway restart.
func (e *Engine) Restart(extraArgs ...string) {
	e.Stop()
	var lastErr error
	for i := 0; i < 50; i++ { // the port may take a moment to be free again
		if lastErr = e.tryStart(extraArgs...); lastErr == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	e.t.Fatalf("engine restart on port %s: %v", e.Port, lastErr)
}

func (e *Engine) tryStart(extra ...string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	sub := &softT{TB: e.t}
	e2 := &Engine{DataDir: e.DataDir, Port: e.Port, t: sub}
	e2.start(extra...)
	if sub.failed != "" {
		return fmt.Errorf("%s", sub.failed)
	}
	e.mu.Lock()
	e.cmd, e.stdin, e.Addr, e.OAuth = e2.cmd, e2.stdin, e2.Addr, e2.OAuthURL()
	e.mu.Unlock()
	return nil
}

// softT turns Fatalf into a panic caught by tryStart, for retries.
type softT struct {
	testing.TB
	failed string
}

func (s *softT) Fatalf(format string, args ...any) {
	s.failed = fmt.Sprintf(format, args...)
	panic(s.failed)
}
func (s *softT) Fatal(args ...any) { s.failed = fmt.Sprint(args...); panic(s.failed) }

type testWriter struct{ t testing.TB }

func (w *testWriter) Write(p []byte) (int, error) {
	if os.Getenv("JOBWIRE_TEST_LOG") != "" {
		w.t.Logf("engine: %s", strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

// BPMN returns the one-task test process for jobType (process id "one-task-<jobType>").
func BPMN(jobType string) []byte {
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "testdata", "one-task.bpmn"))
	if err != nil {
		panic(err)
	}
	s := strings.ReplaceAll(string(b), "JOBTYPE", jobType)
	s = strings.ReplaceAll(s, `id="one-task"`, `id="one-task-`+jobType+`"`)
	return []byte(s)
}
