package corpus

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/engine"
	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// CORPUS_ENGINES selects the engines: "jobwire,zeebe" (default), "jobwire"
// (skip Zeebe, e.g. without Java) or "zeebe". CORPUS_CASES: comma-separated
// case names to run (default all).
var (
	zeebeAddr string
	zeebeErr  error
)

func engines() (jobwire, zeebe bool) {
	v := os.Getenv("CORPUS_ENGINES")
	if v == "" {
		return true, true
	}
	for _, e := range strings.Split(v, ",") {
		switch strings.TrimSpace(e) {
		case "jobwire":
			jobwire = true
		case "zeebe":
			zeebe = true
		}
	}
	return
}

func TestMain(m *testing.M) {
	// Every case also checks that the engine's results records alone
	// rebuild its live state after every batch.
	partition.VerifyResults = os.Getenv("JOBWIRE_VERIFY_RESULTS") != "0"
	_, useZeebe := engines()
	var stop func()
	if useZeebe && wantsCases() {
		zeebeAddr, stop, zeebeErr = startZeebe()
	}
	code := m.Run()
	if stop != nil {
		stop()
	}
	os.Exit(code)
}

// wantsCases: is TestCorpus selected by -run (avoid starting Zeebe for
// the unit tests of the runner alone)?
func wantsCases() bool {
	for _, a := range os.Args {
		if strings.HasPrefix(a, "-test.run=") {
			r := strings.TrimPrefix(a, "-test.run=")
			return strings.Contains(r, "Corpus") || r == "" || r == "."
		}
		if strings.HasPrefix(a, "-test.list") {
			return false
		}
	}
	return true
}

// startZeebe runs tools/zeebe-engine/start.sh --port 0 (building it on first
// use) and returns its address and a stop function.
func startZeebe() (string, func(), error) {
	root, err := filepath.Abs("../..")
	if err != nil {
		return "", nil, err
	}
	script := filepath.Join(root, "tools", "zeebe-engine", "start.sh")
	cmd := exec.Command(script, "--port", "0")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe() // the engine exits when this closes
	if err != nil {
		return "", nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	stop := func() {
		stdin.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
		_, _ = io.Copy(io.Discard, out)
		close(lines)
	}()
	select {
	case l, ok := <-lines:
		const p = "zeebe-engine listening on "
		if !ok || !strings.HasPrefix(l, p) {
			stop()
			return "", nil, fmt.Errorf("zeebe-engine did not start (first line %q)", l)
		}
		fmt.Fprintf(os.Stderr, "corpus: zeebe-engine up at %s in %v\n", strings.TrimPrefix(l, p), time.Since(t0).Round(time.Millisecond))
		return strings.TrimPrefix(l, p), stop, nil
	case <-time.After(10 * time.Minute): // first use builds with Maven
		stop()
		return "", nil, fmt.Errorf("zeebe-engine did not start within 10 minutes")
	}
}

func dial(t *testing.T, addr string) *grpc.ClientConn {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// runJobwire runs a case against a fresh jobwire-engine dev (3 partitions,
// fsync on, its own data directory).
func runJobwire(t *testing.T, c *Case) *Run {
	e, err := engine.Start(engine.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatalf("jobwire-engine dev: %v", err)
	}
	defer e.Close()
	conn := dial(t, e.Addr())
	defer conn.Close()
	return RunCase(c, "jobwire", conn)
}

func TestCorpus(t *testing.T) {
	cases, err := LoadCases(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	if err := checkShared(cases); err != nil {
		t.Fatal(err)
	}
	useJobwire, useZeebe := engines()
	if useZeebe && zeebeErr != nil {
		t.Fatalf("real Zeebe engine: %v (CORPUS_ENGINES=jobwire runs without it)", zeebeErr)
	}
	if !useZeebe {
		t.Log("CORPUS_ENGINES excludes zeebe: cases run on jobwire-engine dev only, not compared with Zeebe")
	}
	var zconn *grpc.ClientConn
	if useZeebe {
		zconn = dial(t, zeebeAddr)
		defer zconn.Close()
	}
	only := map[string]bool{}
	for _, n := range strings.Split(os.Getenv("CORPUS_CASES"), ",") {
		if n = strings.TrimSpace(n); n != "" {
			only[n] = true
		}
	}
	for _, c := range cases {
		c := c
		if len(only) > 0 && !only[c.Name] {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			var jw, zb *Run
			var wg sync.WaitGroup
			if useJobwire {
				wg.Add(1)
				go func() { defer wg.Done(); jw = runJobwire(t, c) }()
			}
			if useZeebe {
				wg.Add(1)
				go func() { defer wg.Done(); zb = RunCase(c, "zeebe", zconn) }()
			}
			wg.Wait()
			for _, r := range []*Run{jw, zb} {
				if r == nil {
					continue
				}
				for _, e := range r.Errs {
					t.Error(e)
				}
			}
			if jw != nil && zb != nil {
				if d := Diff(jw, zb); d != "" {
					t.Errorf("jobwire and zeebe differ:\n%s", d)
				}
			}
			if t.Failed() || testing.Verbose() {
				for _, r := range []*Run{jw, zb} {
					if r != nil {
						t.Logf("%s observed:\n  %s", r.Engine, strings.Join(r.Lines, "\n  "))
					}
				}
			}
		})
	}
}

// Diff describes where two runs' observations part.
func Diff(a, b *Run) string {
	var sb strings.Builder
	n := max(len(a.Lines), len(b.Lines))
	for i := 0; i < n; i++ {
		var x, y string
		if i < len(a.Lines) {
			x = a.Lines[i]
		}
		if i < len(b.Lines) {
			y = b.Lines[i]
		}
		if x != y {
			fmt.Fprintf(&sb, "  %-7s %s\n  %-7s %s\n", a.Engine+":", x, b.Engine+":", y)
		}
	}
	return sb.String()
}

// checkShared refuses job types and message names used by two cases: one
// Zeebe serves every case, so what one case leaves must not reach another.
func checkShared(cases []*Case) error {
	owner := map[string]string{}
	for _, c := range cases {
		for _, n := range c.sharedNames() {
			if o, ok := owner[n]; ok && o != c.Name {
				return fmt.Errorf("%s is used by cases %s and %s: give each case its own job types and message names", n, o, c.Name)
			}
			owner[n] = c.Name
		}
	}
	return nil
}
