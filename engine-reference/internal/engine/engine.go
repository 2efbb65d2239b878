// Package engine wires partitions and the gateway into processes: `dev`
// (one gateway and N partitions in one process, an in-process Broker) and
// the cluster-mode gateway process (the same gateway over remote brokers,
// see package cluster).
package engine

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/gateway"
	"github.com/jobwire/jobwire/engine-reference/internal/gateway/auth"
	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	"github.com/jobwire/jobwire/engine-reference/internal/ui"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// Config configures an engine.
type Config struct {
	Host       string // default 127.0.0.1
	Port       int    // 0 = free port
	DataDir    string // empty = fresh temp dir, removed on Close
	Partitions int    // default 3
	NoSync     bool   // skip fsync (unit tests only)
	// History is how many finished instances and jobs each partition keeps
	// for the admin API (0: partition.DefaultHistory); older ones are counted.
	History int
	// NoLongPolling answers every ActivateJobs at once (dev --no-long-polling).
	NoLongPolling bool
	TLSCert       string
	TLSKey        string
	// TLSClientCA: PEM CA(s); clients must present a certificate signed by
	// one of them (mutual TLS). Needs TLSCert/TLSKey.
	TLSClientCA string
	// OAuth starts the development token endpoint (signed JWTs) and requires
	// bearer tokens on the Gateway service.
	OAuth    bool
	OAuthID  string
	OAuthKey string
	OAuthTTL time.Duration
	// Token validation beyond the defaults (see auth.AuthConfig). A
	// public key or JWKS file alone turns validation on without an endpoint.
	OAuthIssuer, OAuthAudience string
	OAuthPublicKey, OAuthJWKS  string
	OAuthSigningKey            string
	OAuthLeeway                time.Duration
	// AdminTokenFile: the admin API requires this bearer token. Without it
	// the admin API is open only while the Gateway needs no token.
	AdminTokenFile string
	// NoAdmin serves no admin API at all (its calls get UNIMPLEMENTED, as on
	// a Zeebe gateway) and no live view, which reads through it.
	NoAdmin bool
	Logger  *slog.Logger
	// UI serves the live view (internal/ui) on 127.0.0.1:UIPort (0 = free port).
	UI     bool
	UIPort int
}

// Engine is a running engine (dev) or gateway process.
type Engine struct {
	cfg    Config
	local  *gateway.Local // dev only
	remote io.Closer      // gateway process only
	GW     *gateway.Gateway
	Auth   *auth.Auth
	// adminGuard is the admin API's credential check; the live view takes
	// the same credential.
	adminGuard *auth.AdminGuard
	srv        *gwServer
	lis        net.Listener
	health     *health.Server
	tempDir    bool
	once       sync.Once
	stopped    chan struct{} // ends the health tracker (gateway process)
	UI         *ui.Server    // the live view, when Config.UI
	hub        *ui.Hub

	healthMu  sync.Mutex
	healthNow healthpb.HealthCheckResponse_ServingStatus
	closing   bool
}

// MaxMessageSize is the gateway's maxMessageSize (Zeebe default 4 MB).
const MaxMessageSize = 4 << 20

func (cfg *Config) defaults() {
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	if cfg.Partitions <= 0 {
		cfg.Partitions = 3
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
}

// Start replays the data directory, then serves on 127.0.0.1 (`dev`).
func Start(cfg Config) (*Engine, error) {
	cfg.defaults()
	if cfg.Partitions > 1000 {
		return nil, fmt.Errorf("--partitions %d is too many", cfg.Partitions)
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
	if err := CheckPartitionCount(e.cfg.DataDir, cfg.Partitions); err != nil {
		return nil, err
	}
	e.GW = gateway.New()
	e.GW.NoLongPolling = cfg.NoLongPolling
	ids := make([]int32, cfg.Partitions)
	for i := range ids {
		ids[i] = int32(i + 1)
	}
	var obs partition.Observer
	if cfg.NoAdmin {
		cfg.UI = false
		e.cfg.UI = false
	}
	if cfg.UI {
		e.hub = ui.NewHub(func(ctx context.Context, limit int) ([]partition.InstanceView, []partition.JobView, error) {
			return ui.LocalSeeder(e.local)(ctx, limit)
		}, ui.TablesOf(e.GW))
		obs = e.hub
	}
	parts, err := OpenPartitionsObserved(e.cfg.DataDir, ids, int32(cfg.Partitions), cfg.NoSync, cfg.History, e.GW.Hooks(), cfg.Logger, obs)
	if err != nil {
		return nil, err
	}
	freeRecoveryGarbage()
	e.local = gateway.NewLocal(parts)
	lis, err := net.Listen("tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)))
	if err != nil {
		e.local.Close()
		return nil, err
	}
	e.local.Host, e.local.Port = cfg.Host, int32(lis.Addr().(*net.TCPAddr).Port)
	e.GW.SetBroker(e.local, cfg.Host, int(e.local.Port))
	if err := e.serve(lis); err != nil {
		e.Close()
		return nil, err
	}
	if e.hub != nil {
		if err := e.serveUI(); err != nil {
			e.Close()
			return nil, err
		}
	}
	return e, nil
}

// serveUI starts the live view's hub and HTTP server. It takes the admin
// API's credential (ui.AdminCheck).
func (e *Engine) serveUI() error {
	e.hub.Start()
	cfg := ui.Config{Host: e.cfg.Host, Port: e.cfg.UIPort, Hub: e.hub, Resolve: ui.ResolverOf(e.GW, e.hub)}
	cfg.Authorize = ui.AdminCheck(e.adminGuard)
	s, err := ui.Serve(cfg)
	if err != nil {
		return fmt.Errorf("live view: %w", err)
	}
	e.UI = s
	return nil
}

// OpenPartitions replays and starts the given partitions. Partition 1 holds
// the deployments every other partition refers to, so it replays first;
// the rest replay in parallel.
func OpenPartitions(dir string, ids []int32, count int32, noSync bool, history int, hooks partition.Hooks, log *slog.Logger) ([]*partition.Partition, error) {
	return OpenPartitionsObserved(dir, ids, count, noSync, history, hooks, log, nil)
}

// OpenPartitionsObserved is OpenPartitions with an observer of committed
// batches (the live view), or nil.
func OpenPartitionsObserved(dir string, ids []int32, count int32, noSync bool, history int, hooks partition.Hooks, log *slog.Logger,
	obs partition.Observer) ([]*partition.Partition, error) {
	defs := partition.NewRegistry()
	clock := partition.NewClock()
	open := func(id int32) (*partition.Partition, error) {
		return partition.Open(partition.Config{ID: id, Count: count, DataDir: dir, NoSync: noSync, History: history,
			Defs: defs, Hooks: hooks, Logger: log, Observer: obs, Clock: clock})
	}
	parts := make([]*partition.Partition, len(ids))
	errs := make([]error, len(ids))
	first := -1
	for i, id := range ids {
		if id == 1 {
			first = i
			parts[i], errs[i] = open(1)
		}
	}
	var wg sync.WaitGroup
	for i, id := range ids {
		if i == first || (first >= 0 && errs[first] != nil) {
			continue
		}
		wg.Add(1)
		go func(i int, id int32) {
			defer wg.Done()
			parts[i], errs[i] = open(id)
		}(i, id)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			for _, p := range parts {
				if p != nil {
					p.Close()
				}
			}
			return nil, err
		}
	}
	for _, p := range parts {
		// A clock moved forward (AdvanceClock) before a restart goes on
		// from where the partitions stopped rather than standing still.
		clock.AtLeast(p.LastNow())
		// Every partition has replayed: a reset's definitions can go
		// (partitions replaying in parallel may have needed them).
		p.DropResetDefs()
	}
	for _, p := range parts {
		go p.Run()
	}
	return parts, nil
}

// serve starts the client-facing server (Gateway, admin, health; OAuth).
func (e *Engine) serve(lis net.Listener) error {
	e.lis = lis
	cfg := e.cfg
	if cfg.OAuth || cfg.OAuthPublicKey != "" || cfg.OAuthJWKS != "" {
		key := cfg.OAuthKey
		if key == "" {
			key = "secret"
		}
		a, err := auth.NewAuth(auth.AuthConfig{Issuer: cfg.OAuthIssuer, Audience: cfg.OAuthAudience,
			Leeway: cfg.OAuthLeeway, PublicKeyFile: cfg.OAuthPublicKey, JWKSFile: cfg.OAuthJWKS,
			Endpoint: cfg.OAuth, ClientID: cfg.OAuthID, ClientSecret: key, TTL: cfg.OAuthTTL,
			SigningKeyFile: cfg.OAuthSigningKey}, e.GW.Faults)
		if err != nil {
			return err
		}
		e.Auth = a
		if err := e.Auth.Start(); err != nil {
			return err
		}
	}
	guard := &auth.AdminGuard{Off: e.Auth != nil}
	e.adminGuard = guard
	if cfg.AdminTokenFile != "" {
		t, err := auth.LoadAdminToken(cfg.AdminTokenFile)
		if err != nil {
			return err
		}
		guard.Token = t
	}
	e.health = health.NewServer()
	e.healthNow = healthpb.HealthCheckResponse_SERVING
	e.health.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	e.health.SetServingStatus("gateway_protocol.Gateway", healthpb.HealthCheckResponse_SERVING)
	srv, err := newGatewayServer(cfg, e.GW, e.Auth, guard, e.health, lis)
	if err != nil {
		return err
	}
	e.srv = srv
	return nil
}

// CheckPartitionCount refuses to reopen a data dir with a different
// partition count: keys encode partitions, so the data would be misrouted.
func CheckPartitionCount(dir string, count int) error {
	path := dir + "/partitions"
	want := strconv.Itoa(count)
	b, err := os.ReadFile(path)
	if err == nil {
		if string(b) != want {
			return fmt.Errorf("data dir %s was created with %s partitions, not %s", dir, b, want)
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
func (e *Engine) Partitions() int { return int(e.GW.Broker().PartitionCount()) }

// Stats returns partition counters (dev only).
func (e *Engine) Stats() []partition.Stats {
	var out []partition.Stats
	if e.local != nil {
		for _, id := range e.local.IDs() {
			out = append(out, e.local.Parts[id].Stats())
		}
	}
	return out
}

// Close stops serving (ending open calls) and closes the logs.
func (e *Engine) Close() {
	e.once.Do(func() {
		if e.stopped != nil {
			close(e.stopped)
		}
		e.healthMu.Lock()
		e.closing = true
		e.healthMu.Unlock()
		if e.hub != nil {
			e.hub.Close() // ends the pages' event streams
		}
		if e.UI != nil {
			e.UI.Close()
		}
		if e.health != nil {
			e.health.Shutdown()
		}
		if e.srv != nil {
			// End push streams, parked polls and result waits now
			// (UNAVAILABLE, as a restarting gateway would) instead of
			// waiting for clients. A stream blocked in Send (a client
			// that does not read) ends when the grace is over.
			e.GW.Shutdown()
			e.srv.stop(1500 * time.Millisecond)
		} else if e.lis != nil {
			e.lis.Close()
		}
		if e.Auth != nil {
			e.Auth.Close()
		}
		if e.remote != nil {
			e.remote.Close()
		}
		if e.local != nil {
			e.local.Close()
		}
		if e.tempDir {
			os.RemoveAll(e.cfg.DataDir)
		}
	})
}

// StartGateway serves a gateway (Gateway, admin, health) over the Broker
// that connect returns: the cluster-mode gateway process. The closer is
// closed with the engine.
func StartGateway(cfg Config, connect func(*gateway.Gateway) (gateway.Broker, io.Closer, error)) (*Engine, error) {
	cfg.defaults()
	e := &Engine{cfg: cfg}
	e.GW = gateway.New()
	b, closer, err := connect(e.GW)
	if err != nil {
		return nil, err
	}
	e.remote = closer
	lis, err := net.Listen("tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)))
	if err != nil {
		closer.Close()
		return nil, err
	}
	e.GW.SetBroker(b, cfg.Host, lis.Addr().(*net.TCPAddr).Port)
	if err := e.serve(lis); err != nil {
		e.Close()
		return nil, err
	}
	if cfg.UI {
		// The live view of a cluster-mode gateway: batches committed in the
		// broker processes arrive over WatchCommitted.
		w, ok := closer.(interface {
			WatchCommitted(func(*partition.CommittedBatch), func())
		})
		if ok {
			e.hub = ui.NewHub(ui.InspectorSeeder(b), ui.TablesOf(e.GW))
			if err := e.serveUI(); err != nil {
				e.Close()
				return nil, err
			}
			w.WatchCommitted(e.hub.Committed, e.hub.Lost)
		}
	}
	e.stopped = make(chan struct{})
	e.trackHealth()
	go func() {
		t := time.NewTicker(HealthInterval)
		defer t.Stop()
		for {
			select {
			case <-e.stopped:
				return
			case <-t.C:
				e.trackHealth()
			}
		}
	}()
	return e, nil
}

// HealthInterval is how often a gateway process re-derives its
// grpc.health.v1 status from the topology.
const HealthInterval = 100 * time.Millisecond

// trackHealth sets the gateway's health from the topology, like Zeebe's
// gateway health indicators (partition-leader awareness): SERVING while at
// least one partition has a reachable leader, NOT_SERVING otherwise.
func (e *Engine) trackHealth() {
	b := e.GW.Broker()
	st := healthpb.HealthCheckResponse_NOT_SERVING
	for pid := int32(1); pid <= b.PartitionCount(); pid++ {
		if b.Healthy(pid) {
			st = healthpb.HealthCheckResponse_SERVING
			break
		}
	}
	e.healthMu.Lock()
	defer e.healthMu.Unlock()
	if e.closing || st == e.healthNow {
		return
	}
	e.healthNow = st
	e.health.SetServingStatus("", st)
	e.health.SetServingStatus("gateway_protocol.Gateway", st)
}

// freeRecoveryGarbage returns the memory that replaying logs and decoding
// snapshots allocated and dropped to the OS once, so the process's RSS
// after a restart reflects its live state.
func freeRecoveryGarbage() { debug.FreeOSMemory() }
