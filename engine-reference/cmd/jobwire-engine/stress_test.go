package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"github.com/jobwire/jobwire/engine-reference/internal/stress"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// The hang hunter against the real binary (`dev` and `cluster`): a hang
// makes every engine process dump its goroutines (SIGQUIT) into the test
// log. Each run ends with the shutdown check: with a stream that never
// reads (jobs blocked in Send), a parked long poll and a
// CreateProcessInstanceWithResult in flight, closing stdin must end the
// process within 4 s (dev) / 6 s (cluster, every child gone).
//
// JOBWIRE_STRESS_DURATION=5m runs longer; JOBWIRE_STRESS_RACE=1 builds the
// engine with the race detector and fails on any reported race.

var (
	raceOnce sync.Once
	raceBin  string
	raceErr  error
)

// stressBin is the binary under test (race-enabled on request).
func stressBin(t *testing.T) (string, bool) {
	if os.Getenv("JOBWIRE_STRESS_RACE") == "" {
		return bin, false
	}
	raceOnce.Do(func() {
		raceBin = filepath.Join(filepath.Dir(bin), "jobwire-engine-race")
		out, err := exec.Command("go", "build", "-race", "-o", raceBin, ".").CombinedOutput()
		if err != nil {
			raceErr = fmt.Errorf("race build: %v\n%s", err, out)
		}
	})
	if raceErr != nil {
		t.Fatal(raceErr)
	}
	return raceBin, true
}

// syncBuffer collects a child's stderr.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// proc is an engine process under test.
type engineProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *syncBuffer
	exited chan struct{}
	err    error
}

func startEngineProc(t *testing.T, binPath string, re *regexp.Regexp, args ...string) (*engineProc, []string) {
	t.Helper()
	p := &engineProc{cmd: exec.Command(binPath, args...), stderr: &syncBuffer{}, exited: make(chan struct{})}
	p.cmd.Stderr = p.stderr
	// Race-enabled binaries otherwise sleep 1 s at exit (and children too).
	p.cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	p.stdin, _ = p.cmd.StdinPipe()
	out, _ := p.cmd.StdoutPipe()
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	got := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case got <- m:
				default:
				}
			}
		}
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			p.cmd.Process.Kill()
			<-p.exited
		}
	})
	select {
	case m := <-got:
		return p, m
	case <-p.exited:
		t.Fatalf("engine exited during start: %v\n%s", p.err, p.stderr.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("engine did not start\n%s", p.stderr.String())
	}
	return nil, nil
}

// quit sends SIGQUIT to pids (Go prints every goroutine and exits) and
// returns what the engine wrote to stderr.
func (p *engineProc) quit(pids ...int) string {
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGQUIT)
	}
	time.Sleep(500 * time.Millisecond) // children print first
	p.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
	}
	return p.stderr.String()
}

func checkRaces(t *testing.T, race bool, stderr string) {
	t.Helper()
	if race && strings.Contains(stderr, "WARNING: DATA RACE") {
		t.Fatalf("the race detector reported races:\n%s", stderr)
	}
}

// parkForShutdown opens what used to keep an engine alive: a push stream
// that never reads (tiny windows, jobs blocked in Send), a parked long
// poll and a CreateProcessInstanceWithResult waiting for its instance.
// It returns a channel that receives one error per call (poll, with
// result) when they end.
func parkForShutdown(t *testing.T, addr string) (<-chan error, func()) {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<10))
	if err != nil {
		t.Fatal(err)
	}
	gw := pb.NewGatewayClient(conn)
	ctx, cancel := context.WithCancel(context.Background())
	ends := make(chan error, 2)
	s, err := gw.StreamActivatedJobs(ctx, &pb.StreamActivatedJobsRequest{Type: stress.JobType, Worker: "never-reads", Timeout: 60000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Header(); err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("y", 8000)
	for i := 0; i < 40; i++ { // ~320 KB for a stream that reads nothing
		c, cc := context.WithTimeout(ctx, 10*time.Second)
		_, err := gw.CreateProcessInstance(c, &pb.CreateProcessInstanceRequest{BpmnProcessId: stress.ProcessID, Version: -1,
			Variables: `{"pad":"` + pad + `"}`})
		cc()
		if err != nil {
			t.Fatal(err)
		}
	}
	go func() {
		_, _ = s.Recv() // one message, then never read again
		<-ctx.Done()
	}()
	poll, err := gw.ActivateJobs(ctx, &pb.ActivateJobsRequest{Type: "nobody-creates-these", Worker: "parked", Timeout: 1000,
		MaxJobsToActivate: 1, RequestTimeout: 60000})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			if _, err := poll.Recv(); err != nil {
				ends <- fmt.Errorf("long poll: %w", err)
				return
			}
		}
	}()
	go func() {
		_, err := gw.CreateProcessInstanceWithResult(ctx, &pb.CreateProcessInstanceWithResultRequest{
			Request: &pb.CreateProcessInstanceRequest{BpmnProcessId: stress.ProcessID, Version: -1}, RequestTimeout: 60000})
		ends <- fmt.Errorf("with result: %v", err)
	}()
	time.Sleep(300 * time.Millisecond) // let the poll park and the sends block
	return ends, func() { cancel(); conn.Close() }
}

var devLineRE = regexp.MustCompile(`listening on (127\.0\.0\.1:\d+)`)

func TestStressBinaryDev(t *testing.T) {
	binPath, race := stressBin(t)
	p, m := startEngineProc(t, binPath, devLineRE, "dev", "--port", "0", "--partitions", "3", "--exit-on-stdin-close")
	addr := m[1]
	d := stress.DurationFromEnv(5 * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), d+3*time.Minute)
	defer cancel()
	res, err := stress.Run(ctx, stress.Config{Gateways: []string{addr}, Duration: d, Logf: t.Logf,
		Dump: func() string { return p.quit() }})
	t.Logf("stress (dev binary, race %v): %s", race, res)
	if err != nil {
		t.Fatal(err)
	}
	checkRaces(t, race, p.stderr.String())

	ends, release := parkForShutdown(t, addr)
	defer release()
	t0 := time.Now()
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(4 * time.Second):
		t.Fatalf("dev did not exit within 4 s of stdin closing; goroutines:\n%s", p.quit())
	}
	t.Logf("dev exited %v after stdin closed (stream blocked in Send, parked poll, with-result call open)", time.Since(t0).Round(time.Millisecond))
	if p.err != nil {
		t.Fatalf("exit: %v\n%s", p.err, p.stderr.String())
	}
	for i := 0; i < 2; i++ {
		select {
		case err := <-ends:
			t.Logf("client saw: %v", err)
		case <-time.After(2 * time.Second):
			t.Fatalf("a client call was not ended by the shutdown")
		}
	}
	checkRaces(t, race, p.stderr.String())
	if e := p.stderr.String(); e != "" {
		t.Logf("engine stderr:\n%s", e)
	}
}

var clusterLineRE = regexp.MustCompile(`cluster ready: gateways (127\.0\.0\.1:\d+),(127\.0\.0\.1:\d+) admin (127\.0\.0\.1:\d+)`)

func TestStressBinaryCluster(t *testing.T) {
	binPath, race := stressBin(t)
	p, m := startEngineProc(t, binPath, clusterLineRE, "cluster", "--gateways", "2", "--brokers", "2", "--partitions", "4",
		"--exit-on-stdin-close")
	gws, admin := []string{m[1], m[2]}, m[3]
	conn, err := grpc.NewClient(admin, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c, cc := context.WithTimeout(context.Background(), 5*time.Second)
	cl, err := apb.NewAdminServiceClient(conn).GetCluster(c, &apb.GetClusterRequest{})
	cc()
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, g := range cl.Gateways {
		pids = append(pids, int(g.Pid))
	}
	for _, b := range cl.Brokers {
		pids = append(pids, int(b.Pid))
	}
	d := stress.DurationFromEnv(5 * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), d+3*time.Minute)
	defer cancel()
	res, err := stress.Run(ctx, stress.Config{Gateways: gws, Admin: admin, Duration: d, Logf: t.Logf,
		Dump: func() string { return p.quit(pids...) }})
	t.Logf("stress (cluster binary: 2 gateways, 2 brokers, 4 partitions; race %v): %s", race, res)
	if err != nil {
		t.Fatal(err)
	}
	checkRaces(t, race, p.stderr.String())

	var allEnds []<-chan error
	for _, g := range gws {
		ends, release := parkForShutdown(t, g)
		defer release()
		allEnds = append(allEnds, ends)
	}
	t0 := time.Now()
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(6 * time.Second):
		t.Fatalf("cluster did not exit within 6 s of stdin closing; goroutines:\n%s", p.quit(pids...))
	}
	t.Logf("cluster exited %v after stdin closed", time.Since(t0).Round(time.Millisecond))
	if p.err != nil {
		t.Fatalf("exit: %v\n%s", p.err, p.stderr.String())
	}
	waitGone(t, pids)
	for _, ends := range allEnds {
		for i := 0; i < 2; i++ {
			select {
			case err := <-ends:
				t.Logf("client saw: %v", err)
			case <-time.After(2 * time.Second):
				t.Fatalf("a client call was not ended by the shutdown")
			}
		}
	}
	checkRaces(t, race, p.stderr.String())
	if e := p.stderr.String(); e != "" {
		t.Logf("engine stderr:\n%s", e)
	}
}
