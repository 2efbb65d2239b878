// Package engine wires partitions and the gateway into one process: the
// `jobwire-engine dev` cluster (one gateway, one broker, N partitions).
package engine

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/gateway"
	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
)

// Config configures an engine.
type Config struct {
	Host       string // default 127.0.0.1
	Port       int    // 0 = free port
	DataDir    string // empty = fresh temp dir, removed on Close
	Partitions int    // default 3
	NoSync     bool   // skip fsync (unit tests only)
	TLSCert    string
	TLSKey     string
	OAuth      bool
	OAuthID    string
	OAuthKey   string
	OAuthTTL   time.Duration
	Logger     *slog.Logger
}

// Engine is a running engine.
type Engine struct {
	cfg     Config
	parts   []*partition.Partition
	GW      *gateway.Gateway
	Auth    *gateway.Auth
	srv     *grpc.Server
	lis     net.Listener
	health  *health.Server
	tempDir bool
	once    sync.Once
}

// MaxMessageSize is the gateway's maxMessageSize (Zeebe default 4 MB).
const MaxMessageSize = 4 << 20

// Start replays the data directory, then serves on 127.0.0.1.
func Start(cfg Config) (*Engine, error) {
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	if cfg.Partitions <= 0 {
		cfg.Partitions = 3
	}
	if cfg.Partitions > 1000 {
		return nil, fmt.Errorf("--partitions %d is too many", cfg.Partitions)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	e := &Engine{cfg: cfg}
	if cfg.DataDir == "" {
		d, err := os.MkdirTemp("", "jobwire-engine-")
		if err != nil {
			return nil, err
		}
		e.cfg.DataDir, e.tempDir = d, true
	} else if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, err
	}
	if err := e.checkPartitionCount(); err != nil {
		return nil, err
	}
	e.GW = gateway.New()
	defs := partition.NewRegistry()
	open := func(id int32) (*partition.Partition, error) {
		return partition.Open(partition.Config{ID: id, Count: int32(cfg.Partitions), DataDir: e.cfg.DataDir, NoSync: cfg.NoSync,
			Defs: defs, Hooks: e.GW.Hooks(), Logger: cfg.Logger})
	}
	// Partition 1 holds the deployments every other partition refers to,
	// so it replays first; the rest replay in parallel.
	p1, err := open(1)
	if err != nil {
		return nil, err
	}
	e.parts = make([]*partition.Partition, cfg.Partitions)
	e.parts[0] = p1
	var wg sync.WaitGroup
	errs := make([]error, cfg.Partitions)
	for i := 2; i <= cfg.Partitions; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			e.parts[i-1], errs[i-1] = open(int32(i))
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			e.closeParts()
			return nil, err
		}
	}
	for _, p := range e.parts {
		go p.Run()
	}
	lis, err := net.Listen("tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)))
	if err != nil {
		e.closeParts()
		return nil, err
	}
	e.lis = lis
	port := lis.Addr().(*net.TCPAddr).Port
	e.GW.SetBroker(&localBroker{e.parts}, cfg.Host, port)

	unary := []grpc.UnaryServerInterceptor{e.GW.Faults.Unary}
	streams := []grpc.StreamServerInterceptor{e.GW.Faults.Stream}
	if cfg.OAuth {
		id, key, ttl := cfg.OAuthID, cfg.OAuthKey, cfg.OAuthTTL
		if id == "" {
			id = "jobwire"
		}
		if key == "" {
			key = "secret"
		}
		if ttl <= 0 {
			ttl = time.Minute
		}
		e.Auth = gateway.NewAuth(id, key, ttl, e.GW.Faults)
		if err := e.Auth.Start(); err != nil {
			e.closeParts()
			lis.Close()
			return nil, err
		}
		unary = append(unary, e.Auth.Unary)
		streams = append(streams, e.Auth.Stream)
	}
	opts := []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(unary...),
		grpc.ChainStreamInterceptor(streams...),
		grpc.MaxRecvMsgSize(MaxMessageSize),
		// A small window makes a client that does not read fill it quickly,
		// so push-stream readiness reflects the client's pace.
		grpc.InitialWindowSize(64 << 10),
		grpc.InitialConnWindowSize(64 << 10),
		// Zeebe: permitKeepAliveTime(30s), permitKeepAliveWithoutCalls(false).
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 30 * time.Second, PermitWithoutStream: false}),
	}
	if cfg.TLSCert != "" || cfg.TLSKey != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			e.Close()
			return nil, fmt.Errorf("loading TLS key pair: %w", err)
		}
		opts = append(opts, grpc.Creds(credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})))
	}
	e.srv = grpc.NewServer(opts...)
	gsd := decodeErrorsAsInvalidArgument(pb.Gateway_ServiceDesc)
	e.srv.RegisterService(&gsd, e.GW)
	apb.RegisterAdminServiceServer(e.srv, gateway.NewAdmin(e.GW))
	e.health = health.NewServer()
	e.health.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	e.health.SetServingStatus("gateway_protocol.Gateway", healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(e.srv, e.health)
	go e.srv.Serve(lis)
	return e, nil
}

// checkPartitionCount refuses to reopen a data dir with a different
// partition count: keys encode partitions, so the data would be misrouted.
func (e *Engine) checkPartitionCount() error {
	path := e.cfg.DataDir + "/partitions"
	want := strconv.Itoa(e.cfg.Partitions)
	b, err := os.ReadFile(path)
	if err == nil {
		if string(b) != want {
			return fmt.Errorf("data dir %s was created with %s partitions, not %s", e.cfg.DataDir, b, want)
		}
		return nil
	}
	return os.WriteFile(path, []byte(want), 0o644)
}

// Addr is host:port of the gateway.
func (e *Engine) Addr() string { return e.lis.Addr().String() }

// Port is the gateway port.
func (e *Engine) Port() int { return e.lis.Addr().(*net.TCPAddr).Port }

// DataDir is the data directory in use.
func (e *Engine) DataDir() string { return e.cfg.DataDir }

// Partitions returns the partition count.
func (e *Engine) Partitions() int { return len(e.parts) }

// Stats returns partition counters.
func (e *Engine) Stats() []partition.Stats { return (&localBroker{e.parts}).Stats() }

// Close stops serving (ending open calls) and closes the logs.
func (e *Engine) Close() {
	e.once.Do(func() {
		if e.health != nil {
			e.health.Shutdown()
		}
		if e.srv != nil {
			// End push streams and parked polls now (UNAVAILABLE, as a
			// restarting gateway would) instead of waiting for clients.
			e.GW.Streams.ResetAll(codes.Unavailable)
			e.GW.Polls.ResetAll(codes.Unavailable)
			done := make(chan struct{})
			go func() { e.srv.GracefulStop(); close(done) }()
			select {
			case <-done:
			case <-time.After(2 * time.Second):
				e.srv.Stop() // long polls and streams do not end on their own
			}
		}
		if e.Auth != nil {
			e.Auth.Close()
		}
		e.closeParts()
		if e.tempDir {
			os.RemoveAll(e.cfg.DataDir)
		}
	})
}

func (e *Engine) closeParts() {
	for _, p := range e.parts {
		if p != nil {
			p.Close()
		}
	}
}

type localBroker struct{ parts []*partition.Partition }

func (b *localBroker) PartitionCount() int32 { return int32(len(b.parts)) }

func (b *localBroker) Submit(ctx context.Context, pid int32, c *partition.Command) (any, error) {
	return b.parts[pid-1].Submit(ctx, c)
}

func (b *localBroker) SubmitWithResult(ctx context.Context, pid int32, c *partition.Command) (any, <-chan partition.Result, error) {
	return b.parts[pid-1].SubmitWithResult(ctx, c)
}

func (b *localBroker) Post(pid int32, c *partition.Command) {
	if pid >= 1 && int(pid) <= len(b.parts) {
		b.parts[pid-1].Post(c)
	}
}

func (b *localBroker) Query(ctx context.Context, pid int32, fn func(*partition.State)) error {
	return b.parts[pid-1].Query(ctx, fn)
}

func (b *localBroker) Stats() []partition.Stats {
	out := make([]partition.Stats, len(b.parts))
	for i, p := range b.parts {
		out[i] = p.Stats()
	}
	return out
}

func (b *localBroker) Healthy(pid int32) bool { return pid >= 1 && int(pid) <= len(b.parts) }
