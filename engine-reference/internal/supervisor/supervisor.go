// Package supervisor runs a jobwire-engine cluster: broker and gateway
// child processes on 127.0.0.1, and an admin port that inspects the
// cluster (through its gateways) and injects process-level faults (stop or
// start a broker, restart a gateway on the same port).
package supervisor

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/cluster"
	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// Config configures a cluster.
type Config struct {
	Gateways, Brokers, Partitions int
	// BasePort > 0: admin on BasePort, gateways on the next ports, then
	// brokers. 0: free ports.
	BasePort int
	DataDir  string // empty: a temp dir, removed on Close
	Bin      string // the jobwire-engine executable (default: this one)
	NoSync   bool
	Out      io.Writer // component lines (default stdout)
	// UIPort >= 0 serves the live view on the first gateway (0 = a free
	// port); it prints "jobwire-engine live view <url>". < 0 or unset with
	// UI false: off.
	UI     bool
	UIPort int
	// History > 0 is each broker's --history: finished instances and jobs
	// each partition keeps for the admin API (0: the engine's default).
	History int
	// Security: TLS, mutual TLS, bearer tokens and the admin credential of
	// the gateways (and of the admin port).
	Security Security
}

// Supervisor is a running cluster.
type Supervisor struct {
	cfg      Config
	tempDir  bool
	brokers  []*proc
	gateways []*proc
	gwConns  []*grpc.ClientConn
	admin    *grpc.Server
	lis      net.Listener
	link     *cluster.LinkTLS
	sec      *security
	once     sync.Once
	opMu     sync.Mutex // one process-level fault at a time
}

const startTimeout = 15 * time.Second

// Start starts brokers, then gateways, then the admin port, and returns
// once every gateway reports every partition healthy.
func Start(cfg Config) (*Supervisor, error) {
	if cfg.Gateways < 1 || cfg.Brokers < 1 || cfg.Partitions < cfg.Brokers {
		return nil, fmt.Errorf("need at least 1 gateway, 1 broker and as many partitions as brokers")
	}
	if cfg.Out == nil {
		cfg.Out = os.Stdout
	}
	if cfg.Bin == "" {
		b, err := os.Executable()
		if err != nil {
			return nil, err
		}
		cfg.Bin = b
	}
	s := &Supervisor{cfg: cfg}
	if s.cfg.DataDir == "" {
		d, err := os.MkdirTemp("", "jobwire-cluster-")
		if err != nil {
			return nil, err
		}
		s.cfg.DataDir, s.tempDir = d, true
	}
	// Gateway<->broker links: mutual TLS with a fresh cluster CA (its key is
	// never stored) and one node certificate.
	link, err := cluster.GenerateLinkTLS(filepath.Join(s.cfg.DataDir, "cluster-tls"))
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("cluster TLS: %w", err)
	}
	s.link = link
	linkArgs := []string{"--cluster-ca", link.CAFile, "--cluster-cert", link.CertFile, "--cluster-key", link.KeyFile}
	sec, err := prepareSecurity(cfg.Security, filepath.Join(s.cfg.DataDir, "cluster-tls"), link)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("cluster security: %w", err)
	}
	s.sec = sec
	port := func(i int) int {
		if cfg.BasePort > 0 {
			return cfg.BasePort + i
		}
		return 0
	}
	for i := 0; i < cfg.Brokers; i++ {
		i := i
		p := &proc{name: fmt.Sprintf("broker %d", i), out: cfg.Out, port: port(1 + cfg.Gateways + i)}
		p.args = func(port int) []string {
			a := []string{"broker", "--node-id", strconv.Itoa(i), "--port", strconv.Itoa(port),
				"--data-dir", filepath.Join(s.cfg.DataDir, fmt.Sprintf("broker-%d", i)),
				"--partition-count", strconv.Itoa(cfg.Partitions), "--cluster-size", strconv.Itoa(cfg.Brokers),
				"--exit-on-stdin-close"}
			a = append(a, linkArgs...)
			if cfg.NoSync {
				a = append(a, "--no-fsync")
			}
			if cfg.History > 0 {
				a = append(a, "--history", strconv.Itoa(cfg.History))
			}
			return a
		}
		s.brokers = append(s.brokers, p)
	}
	if err := s.startAll(s.brokers); err != nil {
		s.Close()
		return nil, err
	}
	var addrs []string
	for _, b := range s.brokers {
		addrs = append(addrs, b.addr())
	}
	for i := 0; i < cfg.Gateways; i++ {
		i := i
		p := &proc{name: fmt.Sprintf("gateway %d", i), out: cfg.Out, port: port(1 + i)}
		p.args = func(port int) []string {
			a := []string{"gateway", "--id", fmt.Sprintf("gateway-%d", i), "--port", strconv.Itoa(port),
				"--brokers", strings.Join(addrs, ","), "--exit-on-stdin-close"}
			a = append(a, linkArgs...)
			a = append(a, sec.gwArgs...)
			if cfg.UI && i == 0 {
				a = append(a, "--ui-port", strconv.Itoa(cfg.UIPort))
			}
			return a
		}
		s.gateways = append(s.gateways, p)
	}
	if err := s.startAll(s.gateways); err != nil {
		s.Close()
		return nil, err
	}
	for _, g := range s.gateways {
		conn, err := grpc.NewClient(g.addr(), sec.dialOptions()...)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.gwConns = append(s.gwConns, conn)
	}
	if err := s.waitHealthy(startTimeout); err != nil {
		s.Close()
		return nil, err
	}
	lis, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port(0))))
	if err != nil {
		s.Close()
		return nil, err
	}
	s.lis = lis
	s.admin = grpc.NewServer(sec.serverOptions()...)
	apb.RegisterAdminServiceServer(s.admin, &admin{s: s})
	go s.admin.Serve(lis)
	return s, nil
}

func (s *Supervisor) startAll(ps []*proc) error {
	errs := make([]error, len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Add(1)
		go func(i int, p *proc) {
			defer wg.Done()
			errs[i] = p.start(s.cfg.Bin, startTimeout)
		}(i, p)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// waitHealthy waits until every running gateway sees every partition of
// every running broker HEALTHY.
func (s *Supervisor) waitHealthy(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		bad := s.unhealthy()
		if bad == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cluster not healthy after %v: %s", timeout, bad)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *Supervisor) unhealthy() string {
	want := 0
	for _, b := range s.brokers {
		if ok, _, _ := b.running(); ok {
			want += len(cluster.PartitionsOf(int32(indexOf(s.brokers, b)), int32(s.cfg.Brokers), int32(s.cfg.Partitions)))
		}
	}
	for i, g := range s.gateways {
		if ok, _, _ := g.running(); !ok {
			continue
		}
		// Asked through the admin API, which faults and request counts
		// leave alone (a Topology call would show up in a test's counts).
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		r, err := apb.NewAdminServiceClient(s.gwConns[i]).GetPartitions(ctx, &apb.GetPartitionsRequest{})
		cancel()
		if err != nil {
			return fmt.Sprintf("gateway %d: %v", i, err)
		}
		n := 0
		for _, p := range r.Partitions {
			if p.Healthy {
				n++
			}
		}
		if n != want {
			return fmt.Sprintf("gateway %d sees %d of %d partitions healthy", i, n, want)
		}
		// The gateway re-derives its grpc.health.v1 status from the topology
		// every HealthInterval; a client that checks health right after the
		// ready line must already read SERVING. A gateway that asks for a
		// token the supervisor does not hold cannot be read: its partitions
		// are healthy, which is what its status follows.
		ctx, cancel = context.WithTimeout(context.Background(), time.Second)
		h, err := healthpb.NewHealthClient(s.gwConns[i]).Check(ctx, &healthpb.HealthCheckRequest{})
		cancel()
		if c := status.Code(err); c == codes.Unauthenticated || c == codes.PermissionDenied {
			continue
		}
		if err != nil {
			return fmt.Sprintf("gateway %d health: %v", i, err)
		}
		if h.Status != healthpb.HealthCheckResponse_SERVING {
			return fmt.Sprintf("gateway %d health is %v", i, h.Status)
		}
	}
	return ""
}

func indexOf(ps []*proc, p *proc) int {
	for i, x := range ps {
		if x == p {
			return i
		}
	}
	return -1
}

// GatewayAddrs are the gateways' host:port.
func (s *Supervisor) GatewayAddrs() []string {
	var out []string
	for _, g := range s.gateways {
		out = append(out, g.addr())
	}
	return out
}

// AdminAddr is the supervisor's admin host:port.
func (s *Supervisor) AdminAddr() string { return s.lis.Addr().String() }

// TokenURL is the cluster's OAuth token endpoint ("" without OAuth).
func (s *Supervisor) TokenURL() string {
	if s.sec == nil || s.sec.auth == nil {
		return ""
	}
	return s.sec.auth.URL
}

// DataDir is the cluster's data directory.
func (s *Supervisor) DataDir() string { return s.cfg.DataDir }

// Close stops gateways, then brokers (SIGTERM), and removes a temp dir.
func (s *Supervisor) Close() {
	s.once.Do(func() {
		if s.admin != nil {
			s.admin.Stop()
		}
		var wg sync.WaitGroup
		for _, g := range s.gateways {
			wg.Add(1)
			go func(p *proc) { defer wg.Done(); p.stop(true) }(g)
		}
		wg.Wait()
		for _, b := range s.brokers {
			wg.Add(1)
			go func(p *proc) { defer wg.Done(); p.stop(true) }(b)
		}
		wg.Wait()
		for _, c := range s.gwConns {
			c.Close()
		}
		s.sec.close()
		if s.tempDir {
			os.RemoveAll(s.cfg.DataDir)
		}
	})
}
