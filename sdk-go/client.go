package jobwire

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"

	"github.com/jobwire/jobwire/sdk-go/internal/pb"
	"github.com/jobwire/jobwire/sdk-go/internal/pb/streampb"
)

// Version is the SDK version.
const Version = "0.1.0"

// Receive windows of the long-call connections. Setting them turns off
// grpc-go's BDP-driven window growth, so that a worker that stops reading its
// job stream (no free slot) leaves few activated jobs in transport buffers
// where no other worker can take them. 64 KiB is grpc-go's minimum per-stream
// window. The connection window is returned on receipt (not on read), so it
// does not hold up other calls.
const (
	streamWindow = 64 << 10
	connWindow   = 1 << 20
)

// workersPerLongConn bounds the workers whose long-lived calls (a parked
// ActivateJobs and a StreamActivatedJobs each) share one long-call connection:
// 2 × 32 = 64 calls stay under common MAX_CONCURRENT_STREAMS limits (100 in
// many proxies), so no long-lived call queues behind the others. Commands
// never share a connection with them.
const workersPerLongConn = 32

// Client talks to a Zeebe-compatible gateway. It is safe for concurrent use;
// create one per process and share it between workers.
//
//	client, err := jobwire.NewClient(ctx) // ZEEBE_ADDRESS etc., else 127.0.0.1:26500
//	if err != nil { ... }
//	defer client.Close()
type Client struct {
	cfg     clientConfig
	log     *slog.Logger
	conn    *grpc.ClientConn // the command channel: unary calls of the client and all its workers
	gw      pb.GatewayClient
	dial    []grpc.DialOption // shared by every connection (before the user's)
	mu      sync.Mutex
	workers map[*Worker]struct{}
	long    []*longConn // long-lived calls (polls, streams), at most workersPerLongConn workers each
	closed  bool

	tagsDropped sync.Once // warn once when the gateway drops instance tags (Zeebe before 8.8)
}

// longConn is a connection for the long-lived calls of up to
// workersPerLongConn workers, with small receive windows.
type longConn struct {
	conn    *grpc.ClientConn
	gw      pb.GatewayClient
	control streampb.StreamControlServiceClient
	workers int
}

// leaseLong returns a long-call connection with room for one more worker,
// dialling a new one (lazily connected) when all are full.
func (c *Client) leaseLong() (*longConn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, lc := range c.long {
		if lc.workers < workersPerLongConn {
			lc.workers++
			return lc, nil
		}
	}
	target, extra := c.dialTarget()
	opts := append(append(append([]grpc.DialOption{}, c.dial...), extra...),
		grpc.WithInitialWindowSize(streamWindow), grpc.WithInitialConnWindowSize(connWindow))
	opts = append(opts, c.cfg.dialOptions...) // the user's options still win
	conn, err := grpc.NewClient(target, opts...)
	if err != nil {
		return nil, fmt.Errorf("jobwire: connect %s: %w", target, err)
	}
	lc := &longConn{conn: conn, gw: pb.NewGatewayClient(conn), control: streampb.NewStreamControlServiceClient(conn), workers: 1}
	c.long = append(c.long, lc)
	return lc, nil
}

// releaseLong gives a worker's place back; an unused connection is closed.
func (c *Client) releaseLong(lc *longConn) {
	c.mu.Lock()
	lc.workers--
	drop := lc.workers == 0
	if drop {
		for i, x := range c.long {
			if x == lc {
				c.long = append(c.long[:i], c.long[i+1:]...)
				break
			}
		}
	}
	c.mu.Unlock()
	if drop {
		_ = lc.conn.Close()
	}
}

// NewClient connects lazily to the gateway (no I/O happens before the first
// call). Settings not given as options come from the environment (see
// WithAddress, WithInsecure, WithCACertificate, WithOAuth). A ctx that is
// already done returns its error.
func NewClient(ctx context.Context, opts ...ClientOption) (*Client, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("jobwire: NewClient: %w", err)
	}
	var cfg clientConfig
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.backoffErr != nil {
		return nil, cfg.backoffErr
	}
	if err := cfg.fromEnv(); err != nil {
		return nil, err
	}
	if cfg.logger == nil {
		cfg.logger = slog.New(warnOnly{slog.Default().Handler()})
	}
	if cfg.tracerProvider == nil {
		cfg.tracerProvider = otel.GetTracerProvider()
	}
	if cfg.meterProvider == nil {
		cfg.meterProvider = otel.GetMeterProvider()
	}
	c := &Client{cfg: cfg, log: cfg.logger, workers: map[*Worker]struct{}{}}
	base, _, err := c.dialOptions()
	if err != nil {
		return nil, err
	}
	c.dial = base
	target, extra := c.dialTarget()
	dial := append(append(append([]grpc.DialOption{}, base...), extra...), cfg.dialOptions...) // the user's options win
	if c.conn, err = grpc.NewClient(target, dial...); err != nil {
		return nil, fmt.Errorf("jobwire: connect %s: %w", target, err)
	}
	c.gw = pb.NewGatewayClient(c.conn)
	return c, nil
}

func (c *Client) dialOptions() ([]grpc.DialOption, string, error) {
	cfg := &c.cfg
	var opts []grpc.DialOption
	if *cfg.insecure {
		opts = append(opts, grpc.WithTransportCredentials(insecure.NewCredentials()))
	} else {
		tc := cfg.tlsConfig
		if tc == nil {
			tc = &tls.Config{MinVersion: tls.VersionTLS12}
		} else {
			tc = tc.Clone()
		}
		if cfg.caCertPath != "" {
			pem, err := os.ReadFile(cfg.caCertPath)
			if err != nil {
				return nil, "", fmt.Errorf("jobwire: CA certificate: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, "", fmt.Errorf("jobwire: CA certificate %s: no PEM certificate found", cfg.caCertPath)
			}
			tc.RootCAs = pool
		}
		if cfg.clientCertPath != "" {
			cert, err := tls.LoadX509KeyPair(cfg.clientCertPath, cfg.clientKeyPath)
			if err != nil {
				return nil, "", fmt.Errorf("jobwire: client certificate %s / key %s: %w", cfg.clientCertPath, cfg.clientKeyPath, err)
			}
			tc.Certificates = []tls.Certificate{cert}
		} else if len(tc.Certificates) == 0 && tc.GetClientCertificate == nil {
			// A gateway that requires mutual TLS asks for a certificate during
			// the handshake; with TLS 1.3 the refusal then surfaces only as a
			// broken connection ("broken pipe"). Say what is missing, once.
			var once sync.Once
			log := c.log
			tc.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
				once.Do(func() {
					log.Warn("the gateway asks for a client certificate (mutual TLS), but none is configured; " +
						"if it requires one, every call fails: set ZEEBE_CLIENT_CERTIFICATE_PATH and ZEEBE_CLIENT_PRIVATE_KEY_PATH (or WithClientCertificate)")
				})
				return &tls.Certificate{}, nil
			}
		}
		opts = append(opts, grpc.WithTransportCredentials(credentials.NewTLS(tc)))
	}
	if cfg.oauth != nil {
		ts := newTokenSource(*cfg.oauth) // one token cache for every connection of the client
		opts = append(opts, grpc.WithChainUnaryInterceptor(ts.unary), grpc.WithChainStreamInterceptor(ts.stream))
	}
	opts = append(opts,
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: cfg.keepAlive, Timeout: 20 * cfg.keepAlive / 45}),
		grpc.WithUserAgent("jobwire-go/"+Version),
		// Reconnect soon after a gateway restarts: 100 ms doubling (×1.6,
		// jittered) to at most 5 s, as the Node and Python SDKs do. grpc-go's
		// default (1 s up to 120 s) left a worker unable to reopen its stream
		// for more than 10 s after an engine restart of a few seconds.
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 5 * time.Second},
			MinConnectTimeout: 20 * time.Second,
		}),
		// A job near the gateway's 4 MiB variables limit arrives in a message
		// slightly over 4 MiB (its headers and fields): receive up to 5 MiB,
		// as the Node, Python and Java SDKs do.
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(5<<20)),
		grpc.WithDefaultServiceConfig(`{"loadBalancingConfig":[{"round_robin":{}}]}`),
	)
	return opts, "", nil
}

// dialTarget returns the dial target and, for several addresses, a resolver of
// its own (a new one per connection).
func (c *Client) dialTarget() (string, []grpc.DialOption) {
	addrs := c.cfg.addresses
	if len(addrs) == 1 {
		if strings.Contains(addrs[0], ":///") {
			return addrs[0], nil
		}
		return "passthrough:///" + addrs[0], nil
	}
	r := manual.NewBuilderWithScheme("jobwire")
	var list []resolver.Address
	for _, a := range addrs {
		// TLS verifies each gateway by its own host name; without it the
		// dial target's ("gateways") would be checked and every handshake fail.
		host := a
		if h, _, err := net.SplitHostPort(a); err == nil {
			host = h
		}
		list = append(list, resolver.Address{Addr: a, ServerName: host})
	}
	r.InitialState(resolver.State{Addresses: list})
	return "jobwire:///gateways", []grpc.DialOption{grpc.WithResolvers(r)}
}

// Close closes the connection. Close workers first (Worker.Close with a
// timeout) for a graceful shutdown: workers still open here are closed at once
// (unstarted jobs handed back, running handlers cancelled).
func (c *Client) Close() error {
	c.mu.Lock()
	c.closed = true
	var open []*Worker
	for w := range c.workers {
		open = append(open, w)
	}
	c.mu.Unlock()
	if len(open) > 0 {
		now, cancel := context.WithCancel(context.Background())
		cancel()
		var wg sync.WaitGroup
		for _, w := range open {
			wg.Add(1)
			go func() { defer wg.Done(); _ = w.Close(now) }()
		}
		wg.Wait()
	}
	c.mu.Lock()
	long := c.long
	c.long = nil
	c.mu.Unlock()
	for _, lc := range long {
		_ = lc.conn.Close()
	}
	return c.conn.Close()
}

// warnOnly filters a handler down to warn and above: the default logging of
// an SDK should not be chatty.
type warnOnly struct{ slog.Handler }

func (w warnOnly) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.Handler.Enabled(ctx, l)
}
func (w warnOnly) WithAttrs(a []slog.Attr) slog.Handler { return warnOnly{w.Handler.WithAttrs(a)} }
func (w warnOnly) WithGroup(n string) slog.Handler      { return warnOnly{w.Handler.WithGroup(n)} }
