package corpus

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/cluster"
	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// A case with a restart step runs on dev as a child process
// (`jobwire-engine dev` on its own data dir), so the step can kill it with
// SIGKILL and start it again on the same data dir and port.

var devListenRE = regexp.MustCompile(`jobwire-engine dev listening on 127\.0\.0\.1:(\d+)`)

type devProc struct {
	bin, dir string
	port     int
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	done     chan struct{}
}

// freePort: a free port on 127.0.0.1 below the kernel's ephemeral range
// (32768 and up by default), so no outgoing connection takes it while the
// engine is down for its restart.
func freePort() (int, error) {
	for i := 0; i < 200; i++ {
		p := 20000 + rand.Intn(12000)
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err == nil {
			l.Close()
			return p, nil
		}
	}
	return 0, fmt.Errorf("no free port in 20000-32000")
}

func (p *devProc) start() error {
	var lastErr error
	for attempt := 0; attempt < 20; attempt++ { // the port can take a moment to be free again
		if lastErr = p.startOnce(); lastErr == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return lastErr
}

func (p *devProc) startOnce() error {
	cmd := exec.Command(p.bin, "dev", "--port", strconv.Itoa(p.port), "--data-dir", p.dir, "--partitions", "3",
		"--no-ui", "--exit-on-stdin-close")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	ready := make(chan struct{}, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if devListenRE.MatchString(sc.Text()) {
				select {
				case ready <- struct{}{}:
				default:
				}
			}
		}
	}()
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-ready:
	case <-done:
		stdin.Close()
		return fmt.Errorf("jobwire-engine dev exited during start (%v)", cmd.ProcessState)
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		stdin.Close()
		return fmt.Errorf("jobwire-engine dev did not start within 30 s")
	}
	p.cmd, p.stdin, p.done = cmd, stdin, done
	return nil
}

// kill sends SIGKILL and waits for the process to end; an error if it did
// not die of that signal (it had exited before).
func (p *devProc) kill() error {
	if p.cmd == nil {
		return nil
	}
	cmd := p.cmd
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	p.stdin.Close()
	p.cmd = nil
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		return fmt.Errorf("jobwire-engine dev was not killed by SIGKILL: %v", cmd.ProcessState)
	}
	return nil
}

func (p *devProc) addr() string { return "127.0.0.1:" + strconv.Itoa(p.port) }

// runDevProcess runs a case against `jobwire-engine dev` as a child process;
// its restart step kills it (SIGKILL) and starts it on the same data dir.
func runDevProcess(t *testing.T, c *Case) *Run {
	bin, err := engineBin()
	if err != nil {
		t.Fatal(err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	p := &devProc{bin: bin, dir: filepath.Join(t.TempDir(), "data"), port: port}
	if err := p.start(); err != nil {
		t.Fatalf("jobwire-engine dev: %v", err)
	}
	defer func() { _ = p.kill() }()
	conn := dial(t, p.addr())
	conns := []*grpc.ClientConn{conn}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	restart := func([]int32) (grpc.ClientConnInterface, error) {
		if err := p.kill(); err != nil {
			return nil, err
		}
		if err := p.start(); err != nil {
			return nil, err
		}
		// A fresh connection: the old one would wait out its reconnect back-off.
		c, err := grpc.NewClient(p.addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return nil, err
		}
		conns = append(conns, c)
		return c, waitServing(c)
	}
	return RunCaseRestartable(c, "dev", conn, restart)
}

// waitServing waits until the engine's health service says SERVING.
func waitServing(c grpc.ClientConnInterface) error {
	h := healthpb.NewHealthClient(c)
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		r, err := h.Check(ctx, &healthpb.HealthCheckRequest{})
		cancel()
		if err == nil && r.Status == healthpb.HealthCheckResponse_SERVING {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not serving 30 s after the restart: %v %v", r, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// restartBrokers is the cluster's restart: SIGKILL to every broker leading
// one of the case's partitions, then each started again on its data dir
// (the supervisor's StartBroker returns once every gateway sees it healthy).
func restartBrokers(gw grpc.ClientConnInterface) Restarter {
	return func(parts []int32) (grpc.ClientConnInterface, error) {
		if clusterSup == nil {
			return nil, fmt.Errorf("no cluster")
		}
		conn, err := grpc.NewClient(clusterSup.AdminAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return nil, err
		}
		defer conn.Close()
		adm := apb.NewAdminServiceClient(conn)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		nodes := map[int32]bool{}
		for node := int32(0); node < clusterBrokers; node++ {
			for _, lp := range cluster.PartitionsOf(node, clusterBrokers, clusterPartitions) {
				for _, p := range parts {
					if p == lp {
						nodes[node] = true
					}
				}
			}
		}
		before, err := adm.GetCluster(ctx, &apb.GetClusterRequest{})
		if err != nil {
			return nil, err
		}
		for node := int32(0); node < clusterBrokers; node++ {
			if nodes[node] {
				if _, err := adm.StopBroker(ctx, &apb.StopBrokerRequest{NodeId: node}); err != nil {
					return nil, fmt.Errorf("kill -9 broker %d: %v", node, err)
				}
			}
		}
		for node := int32(0); node < clusterBrokers; node++ {
			if nodes[node] {
				if _, err := adm.StartBroker(ctx, &apb.StartBrokerRequest{NodeId: node}); err != nil {
					return nil, fmt.Errorf("restart broker %d: %v", node, err)
				}
			}
		}
		after, err := adm.GetCluster(ctx, &apb.GetClusterRequest{})
		if err != nil {
			return nil, err
		}
		for node := int32(0); node < clusterBrokers; node++ {
			if nodes[node] && (!after.Brokers[node].Running || after.Brokers[node].Pid == before.Brokers[node].Pid) {
				return nil, fmt.Errorf("broker %d was not restarted (pid %d, then %d running %v)", node,
					before.Brokers[node].Pid, after.Brokers[node].Pid, after.Brokers[node].Running)
			}
		}
		return nil, nil
	}
}

// The restart step kills the engine mid-way (SIGKILL) and the case goes on
// on the restarted engine: a message subscription made before the kill
// still correlates after it, on dev (child process) and on the cluster
// (the brokers leading the case's partitions).
func TestCorpusRestartStep(t *testing.T) {
	cases, err := LoadCases(".")
	if err != nil {
		t.Fatal(err)
	}
	var base *Case
	for _, x := range cases {
		if x.Name == "message-catch" {
			base = x
		}
	}
	if base == nil {
		t.Fatal("case message-catch missing")
	}
	c := *base
	c.Expect = nil
	create := *base.Steps[0].Create
	create.WithResult = false
	c.Steps = []Step{{Create: &create}, base.Steps[1], base.Steps[2], {Restart: &RestartStep{}}, base.Steps[3],
		base.Steps[4], base.Steps[5]}
	if err := c.validate(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"deploy: OK",
		"deployed: process corpus-message-catch from catch.bpmn",
		"step 1 create corpus-message-catch: OK",
		"step 2 noJob corpus-mc-ship: 0 activated",
		"step 3 publish corpus-mc-paid: OK",
		"step 4 restart: OK",
		"step 5 noJob corpus-mc-ship: 0 activated",
		"step 6 publish corpus-mc-paid: OK",
		`step 7 job corpus-mc-ship: element ship retries 3 variables {"amount":"#42","card":{"last4":"1234"},"orderId":"mc-1"} headers {}`,
		"step 7 complete: OK",
	}
	runs := []*Run{runDev(t, &c)}
	if _, useCluster := targets(); useCluster && clusterErr == nil && len(clusterConns) > 0 {
		runs = append(runs, RunCaseRestartable(&c, "cluster", clusterConns[0], restartBrokers(clusterConns[0])))
	}
	for _, r := range runs {
		for _, e := range r.Errs {
			t.Error(e)
		}
		if d := DiffGolden(want, r); d != "" {
			t.Errorf("%s:\n%s", r.Engine, d)
		}
	}
	// A withResult call open across a restart is refused when the case loads.
	bad := *base
	bad.Steps = append([]Step{base.Steps[0], {Restart: &RestartStep{}}}, base.Steps[1:]...)
	if err := bad.validate(); err == nil || !regexp.MustCompile(`restart ends the open withResult`).MatchString(err.Error()) {
		t.Errorf("restart with an open withResult call: %v", err)
	}
}
