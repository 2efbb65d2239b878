package engine

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/gateway"
	"github.com/jobwire/jobwire/engine-reference/internal/gateway/auth"
	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	spb "github.com/jobwire/jobwire/engine-reference/internal/pb/streampb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	// Zeebe's gateway accepts gzip-compressed requests, and @camunda8/sdk
	// compresses every call with it: register the codec so such clients work.
	_ "google.golang.org/grpc/encoding/gzip"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
)

// gwServer serves the client-facing services (Gateway, admin, health). It
// can be swapped for a fresh grpc.Server on the same listener: the old one
// sends HTTP/2 GOAWAY to its connections and closes them after a grace
// period, while new connections go to the new one (admin GoAwayFault).
type gwServer struct {
	mu    sync.Mutex
	build func() *grpc.Server
	cur   *grpc.Server
	old   []*grpc.Server
	lis   *muxListener
}

func newGatewayServer(cfg Config, gw *gateway.Gateway, a *auth.Auth, guard *auth.AdminGuard, hs *health.Server, lis net.Listener) (*gwServer, error) {
	unary := []grpc.UnaryServerInterceptor{gateway.RecoverUnary, guard.Unary, gw.Faults.Unary}
	streams := []grpc.StreamServerInterceptor{gateway.RecoverStream, guard.Stream, gw.Faults.Stream}
	if a != nil {
		unary = append(unary, a.Unary)
		streams = append(streams, a.Stream)
	}
	opts := []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(unary...),
		grpc.ChainStreamInterceptor(streams...),
		grpc.MaxRecvMsgSize(MaxMessageSize),
		grpc.ForceServerCodec(serverCodec{}),
		// A small window makes a client that does not read fill it quickly,
		// so push-stream readiness reflects the client's pace.
		grpc.InitialWindowSize(64 << 10),
		grpc.InitialConnWindowSize(64 << 10),
		// Zeebe: permitKeepAliveTime(30s), permitKeepAliveWithoutCalls(false).
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 30 * time.Second, PermitWithoutStream: false}),
	}
	if cfg.TLSCert != "" || cfg.TLSKey != "" || cfg.TLSClientCA != "" {
		tc, err := ServerTLS(cfg.TLSCert, cfg.TLSKey, cfg.TLSClientCA)
		if err != nil {
			return nil, err
		}
		opts = append(opts, grpc.Creds(credentials.NewTLS(tc)))
	}
	admin := gateway.NewAdmin(gw)
	s := &gwServer{lis: newMuxListener(lis)}
	s.build = func() *grpc.Server {
		srv := grpc.NewServer(opts...)
		gsd := decodeErrorsAsInvalidArgument(pb.Gateway_ServiceDesc)
		srv.RegisterService(&gsd, gw)
		if !cfg.NoAdmin {
			apb.RegisterAdminServiceServer(srv, admin)
		}
		spb.RegisterStreamControlServiceServer(srv, gateway.StreamControl{S: gw.Streams})
		healthpb.RegisterHealthServer(srv, hs)
		return srv
	}
	s.cur = s.build()
	go s.cur.Serve(s.lis.view())
	gw.GoAway = s.goAway
	return s, nil
}

// ServerTLS is the gateway's TLS configuration; with clientCA, clients must
// present a certificate signed by it (mutual TLS).
func ServerTLS(certFile, keyFile, clientCA string) (*tls.Config, error) {
	if certFile == "" || keyFile == "" {
		return nil, fmt.Errorf("TLS needs both --tls-cert and --tls-key (--tls-client-ca needs them too)")
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("loading TLS key pair: %w", err)
	}
	tc := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if clientCA != "" {
		b, err := os.ReadFile(clientCA)
		if err != nil {
			return nil, fmt.Errorf("--tls-client-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("--tls-client-ca %s: no PEM certificates", clientCA)
		}
		tc.ClientCAs = pool
		tc.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return tc, nil
}

// goAway swaps in a new server; the old one sends GOAWAY and is closed
// after grace.
func (s *gwServer) goAway(grace time.Duration) int {
	if grace < 50*time.Millisecond {
		grace = 50 * time.Millisecond // let GOAWAY reach the clients first
	}
	next := s.build()
	s.mu.Lock()
	old := s.cur
	s.cur = next
	s.old = append(s.old, old)
	s.mu.Unlock()
	go next.Serve(s.lis.view())
	go stopWithin(old, grace)
	return 1
}

func stopWithin(srv *grpc.Server, grace time.Duration) {
	done := make(chan struct{})
	go func() { srv.GracefulStop(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		srv.Stop() // long polls and streams do not end on their own
	}
}

// stop ends every server (current and swapped-out) and the listener.
func (s *gwServer) stop(grace time.Duration) {
	s.mu.Lock()
	all := append([]*grpc.Server{s.cur}, s.old...)
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, srv := range all {
		wg.Add(1)
		go func(srv *grpc.Server) { defer wg.Done(); stopWithin(srv, grace) }(srv)
	}
	wg.Wait()
	s.lis.Close()
}

// muxListener hands accepted connections to whichever server view is
// accepting; closing a view does not close the socket.
type muxListener struct {
	inner net.Listener
	conns chan net.Conn
	done  chan struct{}
}

func newMuxListener(l net.Listener) *muxListener {
	m := &muxListener{inner: l, conns: make(chan net.Conn), done: make(chan struct{})}
	go func() {
		defer close(m.done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			select {
			case m.conns <- c:
			case <-time.After(5 * time.Second):
				c.Close() // no server accepting (shutting down)
			}
		}
	}()
	return m
}

func (m *muxListener) Close() error { return m.inner.Close() }

func (m *muxListener) view() net.Listener { return &listenerView{m: m, closed: make(chan struct{})} }

type listenerView struct {
	m      *muxListener
	closed chan struct{}
	once   sync.Once
}

func (v *listenerView) Accept() (net.Conn, error) {
	select {
	case <-v.closed:
		return nil, net.ErrClosed
	default:
	}
	select {
	case c := <-v.m.conns:
		return c, nil
	case <-v.closed:
	case <-v.m.done:
	}
	return nil, net.ErrClosed
}

func (v *listenerView) Close() error {
	v.once.Do(func() { close(v.closed) })
	return nil
}

func (v *listenerView) Addr() net.Addr { return v.m.inner.Addr() }
