package corpus

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/engine"
	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	"github.com/jobwire/jobwire/engine-reference/internal/supervisor"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// CORPUS_TARGETS selects where the cases run: "dev,cluster" (default),
// "dev" or "cluster". CORPUS_CASES: comma-separated case names to run
// (default all). JOBWIRE_ENGINE_BIN: the jobwire-engine binary the cluster
// runs (default: built into a temporary directory).
var (
	clusterConns []*grpc.ClientConn // one per gateway
	clusterSup   *supervisor.Supervisor
	clusterErr   error
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

// engineBin is the jobwire-engine binary child processes run: the cluster's
// and, for a case with a restart step, dev's. JOBWIRE_ENGINE_BIN or built
// once for the run.
func engineBin() (string, error) {
	binOnce.Do(func() {
		if binPath = os.Getenv("JOBWIRE_ENGINE_BIN"); binPath != "" {
			return
		}
		if binDir, binErr = os.MkdirTemp("", "jobwire-corpus-bin-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "jobwire-engine")
		cmd := exec.Command("go", "build", "-o", binPath, "../cmd/jobwire-engine")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("building jobwire-engine: %v\n%s", err, out)
		}
	})
	return binPath, binErr
}

// The cluster every case runs on: its shape.
const (
	clusterGateways   = 2
	clusterBrokers    = 3
	clusterPartitions = 6
)

func targets() (dev, cluster bool) {
	v := os.Getenv("CORPUS_TARGETS")
	if v == "" {
		return true, true
	}
	for _, e := range strings.Split(v, ",") {
		switch strings.TrimSpace(e) {
		case "dev":
			dev = true
		case "cluster":
			cluster = true
		default:
			fmt.Fprintf(os.Stderr, "CORPUS_TARGETS: unknown target %q (dev, cluster)\n", e)
			os.Exit(2)
		}
	}
	return
}

func TestMain(m *testing.M) {
	// Every case also checks that the in-process engine's results records
	// alone rebuild its live state after every batch.
	partition.VerifyResults = os.Getenv("JOBWIRE_VERIFY_RESULTS") != "0"
	_, useCluster := targets()
	var stop func()
	if useCluster && wantsCases() {
		stop, clusterErr = startCluster()
	}
	code := m.Run()
	if stop != nil {
		stop()
	}
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// wantsCases: is TestCorpus selected by -run (avoid starting a cluster for
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

// lockedBuffer keeps the cluster's component lines, shown if it fails.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startCluster starts one jobwire-engine cluster (broker and gateway child
// processes on 127.0.0.1) for the whole run and dials each gateway.
func startCluster() (func(), error) {
	tmp, err := os.MkdirTemp("", "jobwire-corpus-cluster-")
	if err != nil {
		return nil, err
	}
	bin, err := engineBin()
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	var out lockedBuffer
	t0 := time.Now()
	s, err := supervisor.Start(supervisor.Config{Gateways: clusterGateways, Brokers: clusterBrokers,
		Partitions: clusterPartitions, Bin: bin, DataDir: filepath.Join(tmp, "data"), Out: &out})
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("jobwire-engine cluster: %v\n%s", err, out.String())
	}
	fmt.Fprintf(os.Stderr, "corpus: jobwire-engine cluster (%d gateways, %d brokers, %d partitions) healthy in %v\n",
		clusterGateways, clusterBrokers, clusterPartitions, time.Since(t0).Round(time.Millisecond))
	clusterSup = s
	for _, a := range s.GatewayAddrs() {
		c, err := grpc.NewClient(a, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			s.Close()
			os.RemoveAll(tmp)
			return nil, err
		}
		clusterConns = append(clusterConns, c)
	}
	return func() {
		for _, c := range clusterConns {
			c.Close()
		}
		s.Close()
		os.RemoveAll(tmp)
	}, nil
}

func dial(t *testing.T, addr string) *grpc.ClientConn {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// runDev runs a case against a fresh in-process jobwire-engine dev (3
// partitions, fsync on, its own data directory).
func runDev(t *testing.T, c *Case) *Run {
	if c.HasRestart() {
		return runDevProcess(t, c)
	}
	e, err := engine.Start(engine.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatalf("jobwire-engine dev: %v", err)
	}
	defer e.Close()
	conn := dial(t, e.Addr())
	defer conn.Close()
	return RunCase(c, "dev", conn)
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
	useDev, useCluster := targets()
	if useCluster && clusterErr != nil {
		t.Fatalf("%v (CORPUS_TARGETS=dev runs on dev alone)", clusterErr)
	}
	if !useDev || !useCluster {
		t.Logf("CORPUS_TARGETS=%s: dev %v, cluster %v", os.Getenv("CORPUS_TARGETS"), useDev, useCluster)
	}
	only := map[string]bool{}
	for _, n := range strings.Split(os.Getenv("CORPUS_CASES"), ",") {
		if n = strings.TrimSpace(n); n != "" {
			only[n] = true
		}
	}
	ran := 0
	for i, c := range cases {
		c := c
		if len(only) > 0 && !only[c.Name] {
			continue
		}
		ran++
		// The cases take turns on the cluster's gateways.
		var gw *grpc.ClientConn
		if useCluster {
			gw = clusterConns[i%len(clusterConns)]
		}
		t.Run(c.Name, func(t *testing.T) {
			var dev, cl *Run
			var wg sync.WaitGroup
			if useDev {
				wg.Add(1)
				go func() { defer wg.Done(); dev = runDev(t, c) }()
			}
			if useCluster {
				wg.Add(1)
				go func() { defer wg.Done(); cl = RunCaseRestartable(c, "cluster", gw, restartBrokers(gw)) }()
			}
			wg.Wait()
			for _, r := range []*Run{dev, cl} {
				if r == nil {
					continue
				}
				for _, e := range r.Errs {
					t.Error(e)
				}
				if d := DiffGolden(c.Golden, r); d != "" {
					t.Errorf("%s differs from %s/%s (source: %s %s):\n%s", r.Engine, c.Name, GoldenFile,
						c.Source.Kind, c.Source.Ref, d)
				}
			}
			if t.Failed() || testing.Verbose() {
				for _, r := range []*Run{dev, cl} {
					if r != nil {
						t.Logf("%s observed:\n  %s", r.Engine, strings.Join(r.Lines, "\n  "))
					}
				}
			}
		})
	}
	if len(only) > 0 && ran != len(only) {
		t.Errorf("CORPUS_CASES names %d cases, %d exist among them", len(only), ran)
	}
}

// DiffGolden describes where a run's observations part from the golden
// lines: line by line, as they are compared ("" = equal).
func DiffGolden(golden []string, r *Run) string {
	var sb strings.Builder
	n := max(len(golden), len(r.Lines))
	for i := 0; i < n; i++ {
		x, y := "(no line)", "(no line)"
		if i < len(golden) {
			x = golden[i]
		}
		if i < len(r.Lines) {
			y = r.Lines[i]
		}
		if x != y {
			fmt.Fprintf(&sb, "  line %d\n  - golden:  %s\n  + %-8s %s\n", i+1, x, r.Engine+":", y)
		}
	}
	return sb.String()
}

// checkShared refuses job types and message names used by two cases: one
// cluster serves every case, so what one case leaves must not reach another.
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
