package jobwire

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"

	"github.com/jobwire/jobwire/sdk-go/internal/worker"
)

// DefaultAddress is the gateway address used when neither an option nor the
// environment names one.
const DefaultAddress = "127.0.0.1:26500"

// ClientOption configures NewClient.
type ClientOption func(*clientConfig)

type clientConfig struct {
	addresses      []string
	insecure       *bool // nil: plaintext for loopback addresses, TLS otherwise
	tlsConfig      *tls.Config
	caCertPath     string
	clientCertPath string // mutual TLS: PEM certificate chain
	clientKeyPath  string // mutual TLS: PEM private key
	oauth          *OAuthOptions
	keepAlive      time.Duration
	logger         *slog.Logger
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
	dialOptions    []grpc.DialOption
	backoff        worker.BackoffConfig
	backoffErr     error
}

// WithAddress sets the gateway address(es), host:port. Several addresses are
// balanced client-side, round robin; a single "dns:///host:port" target
// resolves and balances over every address of the name.
// Default: ZEEBE_GRPC_ADDRESS, ZEEBE_ADDRESS or CAMUNDA_GRPC_ADDRESS (each may
// be comma-separated), else 127.0.0.1:26500.
func WithAddress(addrs ...string) ClientOption {
	return func(c *clientConfig) { c.addresses = append([]string(nil), addrs...) }
}

// WithInsecure forces plaintext (true) or TLS (false).
// Default: ZEEBE_INSECURE_CONNECTION if set, else plaintext for loopback
// addresses (127.0.0.1, ::1, localhost) and TLS otherwise.
func WithInsecure(insecure bool) ClientOption {
	return func(c *clientConfig) { c.insecure = &insecure }
}

// WithTLS uses TLS with this configuration (implies WithInsecure(false)).
// Default: system roots, TLS 1.2+.
func WithTLS(cfg *tls.Config) ClientOption {
	return func(c *clientConfig) { c.tlsConfig = cfg; f := false; c.insecure = &f }
}

// WithCACertificate trusts the PEM certificate(s) in path (implies TLS).
// Default: ZEEBE_CA_CERTIFICATE_PATH, else system roots.
func WithCACertificate(path string) ClientOption {
	return func(c *clientConfig) { c.caCertPath = path; f := false; c.insecure = &f }
}

// WithClientCertificate presents this client certificate (PEM chain) and
// private key (PEM) to the gateway: mutual TLS (implies TLS). Both paths or
// neither. Default: ZEEBE_CLIENT_CERTIFICATE_PATH and
// ZEEBE_CLIENT_PRIVATE_KEY_PATH (or the CAMUNDA_* twins), else none.
func WithClientCertificate(certificatePath, privateKeyPath string) ClientOption {
	return func(c *clientConfig) {
		c.clientCertPath, c.clientKeyPath = certificatePath, privateKeyPath
		f := false
		c.insecure = &f
	}
}

// WithOAuth authenticates every call with an OAuth client-credentials token,
// cached and refreshed before it expires. Default: from ZEEBE_CLIENT_ID /
// ZEEBE_CLIENT_SECRET / ZEEBE_AUTHORIZATION_SERVER_URL / ZEEBE_TOKEN_AUDIENCE
// (or the CAMUNDA_* twins) when a client id is set, else no authentication.
func WithOAuth(cfg OAuthOptions) ClientOption {
	return func(c *clientConfig) { c.oauth = &cfg }
}

// WithKeepAlive sets the HTTP/2 keepalive ping interval. Default: 45 s
// (ZEEBE_KEEP_ALIVE in ms if set), within the gateway's ping policy.
func WithKeepAlive(d time.Duration) ClientOption {
	return func(c *clientConfig) { c.keepAlive = d }
}

// WithLogger sets the structured logger of the client and its workers.
// Default: slog.Default(), at warn level and above.
func WithLogger(l *slog.Logger) ClientOption {
	return func(c *clientConfig) { c.logger = l }
}

// WithTracerProvider sets the OpenTelemetry tracer provider. Default: otel.GetTracerProvider().
func WithTracerProvider(tp trace.TracerProvider) ClientOption {
	return func(c *clientConfig) { c.tracerProvider = tp }
}

// WithMeterProvider sets the OpenTelemetry meter provider. Default: otel.GetMeterProvider().
func WithMeterProvider(mp metric.MeterProvider) ClientOption {
	return func(c *clientConfig) { c.meterProvider = mp }
}

// WithDialOptions appends raw gRPC dial options (interceptors, ...), applied
// after the client's own. Default: none.
func WithDialOptions(opts ...grpc.DialOption) ClientOption {
	return func(c *clientConfig) { c.dialOptions = append(c.dialOptions, opts...) }
}

// Backoff bounds the transport back-off: the waits between activation polls
// after errors, stream reopens, outcome resends, timeout extensions and
// command resends. Each wait is the previous one × Multiplier, from Initial up
// to Max, spread by ±10 % jitter. Zero fields take the defaults.
type Backoff struct {
	Initial    time.Duration // default 50 ms; must be > 0 when set
	Max        time.Duration // default 5 s; must be ≥ Initial
	Multiplier float64       // default 1.6; must be ≥ 1 when set
}

// WithBackoff sets the transport back-off bounds of the client and its
// workers. NewClient returns an error for Initial < 0, Max < Initial or
// Multiplier < 1 (zero fields are the defaults). Default: 50 ms ×1.6 up to 5 s.
func WithBackoff(b Backoff) ClientOption {
	return func(c *clientConfig) {
		r := worker.BackoffConfig{Initial: worker.BackoffMin, Max: worker.BackoffMax, Multiplier: worker.BackoffFactor}
		if b.Initial != 0 {
			r.Initial = b.Initial
		}
		if b.Max != 0 {
			r.Max = b.Max
		}
		if b.Multiplier != 0 {
			r.Multiplier = b.Multiplier
		}
		switch {
		case r.Initial <= 0:
			c.backoffErr = fmt.Errorf("jobwire: WithBackoff: Initial must be > 0, got %s", b.Initial)
		case r.Max < r.Initial:
			c.backoffErr = fmt.Errorf("jobwire: WithBackoff: Max (%s) must be ≥ Initial (%s)", r.Max, r.Initial)
		case r.Multiplier < 1:
			c.backoffErr = fmt.Errorf("jobwire: WithBackoff: Multiplier must be ≥ 1, got %g", b.Multiplier)
		default:
			c.backoffErr = nil
		}
		c.backoff = r
	}
}

// lookupEnv is os.LookupEnv, replaced in tests.
var lookupEnv = os.LookupEnv

func firstEnv(names ...string) (string, bool) {
	for _, n := range names {
		if v, ok := lookupEnv(n); ok && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// fromEnv fills every setting not given by an option from the environment.
func (c *clientConfig) fromEnv() error {
	if len(c.addresses) == 0 {
		if v, ok := firstEnv("ZEEBE_GRPC_ADDRESS", "ZEEBE_ADDRESS", "CAMUNDA_GRPC_ADDRESS"); ok {
			for _, a := range strings.Split(v, ",") {
				if a = strings.TrimSpace(a); a != "" {
					c.addresses = append(c.addresses, a)
				}
			}
		}
	}
	if len(c.addresses) == 0 {
		c.addresses = []string{DefaultAddress}
	}
	// Scheme prefixes: grpcs:// / https:// mean TLS, grpc:// / http:// plaintext.
	for i, a := range c.addresses {
		for prefix, insecure := range map[string]bool{"grpcs://": false, "https://": false, "grpc://": true, "http://": true} {
			if strings.HasPrefix(a, prefix) {
				c.addresses[i] = strings.TrimSuffix(strings.TrimPrefix(a, prefix), "/")
				if c.insecure == nil {
					v := insecure
					c.insecure = &v
				}
			}
		}
	}
	// A host without a port gets the gateway's default port (as in every SDK).
	for i, a := range c.addresses {
		if strings.Contains(a, "://") {
			continue
		}
		if _, _, err := net.SplitHostPort(a); err != nil {
			c.addresses[i] = net.JoinHostPort(strings.Trim(a, "[]"), "26500")
		}
	}
	if c.insecure == nil {
		if v, ok := firstEnv("ZEEBE_INSECURE_CONNECTION", "CAMUNDA_INSECURE_CONNECTION"); ok {
			b, err := parseBool(v)
			if err != nil {
				return fmt.Errorf("jobwire: ZEEBE_INSECURE_CONNECTION=%q: %w", v, err)
			}
			c.insecure = &b
		}
	}
	if c.caCertPath == "" {
		if v, ok := firstEnv("ZEEBE_CA_CERTIFICATE_PATH", "CAMUNDA_CA_CERTIFICATE_PATH"); ok {
			c.caCertPath = v
			if c.insecure == nil {
				f := false
				c.insecure = &f
			}
		}
	}
	if c.clientCertPath == "" && c.clientKeyPath == "" {
		cert, hasCert := firstEnv("ZEEBE_CLIENT_CERTIFICATE_PATH", "CAMUNDA_CLIENT_CERTIFICATE_PATH")
		key, hasKey := firstEnv("ZEEBE_CLIENT_PRIVATE_KEY_PATH", "CAMUNDA_CLIENT_PRIVATE_KEY_PATH")
		if hasCert || hasKey {
			c.clientCertPath, c.clientKeyPath = cert, key
			if c.insecure == nil {
				f := false
				c.insecure = &f
			}
		}
	}
	if (c.clientCertPath == "") != (c.clientKeyPath == "") {
		return fmt.Errorf("jobwire: mutual TLS needs both a client certificate and its private key (ZEEBE_CLIENT_CERTIFICATE_PATH and ZEEBE_CLIENT_PRIVATE_KEY_PATH)")
	}
	if c.clientCertPath != "" && c.insecure != nil && *c.insecure {
		return fmt.Errorf("jobwire: a client certificate needs TLS, but the connection is set to plaintext (ZEEBE_INSECURE_CONNECTION)")
	}
	if c.insecure == nil {
		b := allLoopback(c.addresses)
		c.insecure = &b
	}
	if c.oauth == nil {
		id, hasID := firstEnv("ZEEBE_CLIENT_ID", "CAMUNDA_CLIENT_ID")
		secret, hasSecret := firstEnv("ZEEBE_CLIENT_SECRET", "CAMUNDA_CLIENT_SECRET")
		if hasID || hasSecret {
			o := OAuthOptions{ClientID: id, ClientSecret: secret}
			o.AuthorizationServerURL, _ = firstEnv("ZEEBE_AUTHORIZATION_SERVER_URL", "CAMUNDA_OAUTH_URL", "CAMUNDA_AUTHORIZATION_SERVER_URL")
			o.Audience, _ = firstEnv("ZEEBE_TOKEN_AUDIENCE", "CAMUNDA_TOKEN_AUDIENCE")
			o.Scope, _ = firstEnv("ZEEBE_TOKEN_SCOPE", "CAMUNDA_TOKEN_SCOPE")
			if o.ClientID == "" || o.ClientSecret == "" || o.AuthorizationServerURL == "" {
				return fmt.Errorf("jobwire: OAuth needs ZEEBE_CLIENT_ID, ZEEBE_CLIENT_SECRET and ZEEBE_AUTHORIZATION_SERVER_URL")
			}
			c.oauth = &o
		}
	}
	if c.keepAlive == 0 {
		c.keepAlive = 45 * time.Second
		if v, ok := firstEnv("ZEEBE_KEEP_ALIVE", "CAMUNDA_KEEP_ALIVE"); ok {
			ms, err := strconv.Atoi(v)
			if err != nil || ms <= 0 {
				return fmt.Errorf("jobwire: ZEEBE_KEEP_ALIVE=%q: want milliseconds", v)
			}
			c.keepAlive = time.Duration(ms) * time.Millisecond
		}
	}
	return nil
}

// allLoopback reports whether every address is a loopback host.
func allLoopback(addrs []string) bool {
	for _, a := range addrs {
		a = strings.TrimPrefix(a, "dns:///")
		host, _, err := net.SplitHostPort(a)
		if err != nil {
			host = a
		}
		if host == "localhost" {
			continue
		}
		ip := net.ParseIP(host)
		if ip == nil || !ip.IsLoopback() {
			return false
		}
	}
	return true
}

// parseBool reads a boolean environment value the same way in every SDK:
// true/false, 1/0, yes/no, on/off, any case; anything else is an error.
func parseBool(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "1", "yes", "on":
		return true, nil
	case "false", "0", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("want true or false")
}
