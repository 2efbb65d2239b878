package supervisor

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/cluster"
	"github.com/jobwire/jobwire/engine-reference/internal/engine"
	"github.com/jobwire/jobwire/engine-reference/internal/gateway/auth"
	"github.com/jobwire/jobwire/engine-reference/internal/gateway/faults"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// Security is what the cluster's gateways demand of clients — the same
// settings `dev` and `gateway` take (zero value: plaintext, no tokens, admin
// API open).
type Security struct {
	// TLS on every gateway (and on the supervisor's admin port).
	TLSCert, TLSKey string
	// TLSClientCA: clients must present a certificate signed by it (mutual
	// TLS). The supervisor itself authenticates with the cluster's node
	// certificate, which the gateways accept as well.
	TLSClientCA string
	// OAuth: the supervisor serves the development token endpoint (one URL
	// for the whole cluster, surviving gateway restarts; ES256 JWTs living
	// OAuthTTL) and every gateway requires its tokens.
	OAuth                     bool
	OAuthID, OAuthSecret      string
	OAuthTTL, OAuthLeeway     time.Duration
	Issuer, Audience          string
	OAuthSigningKey           string // PEM EC P-256 key of the endpoint (default: a fresh one)
	OAuthPublicKey, OAuthJWKS string // external verification keys (tokens required without OAuth too)
	// AdminTokenFile: the admin API (supervisor port and gateways) requires
	// this bearer token. Without it, next to gateways that require tokens,
	// the supervisor's admin port is off (as on `dev`).
	AdminTokenFile string
}

func (c Security) tokensRequired() bool {
	return c.OAuth || c.OAuthPublicKey != "" || c.OAuthJWKS != ""
}

func (c Security) tlsOn() bool { return c.TLSCert != "" || c.TLSKey != "" }

// security is the prepared form: gateway arguments, the supervisor's own
// credentials towards its gateways, and the token endpoint.
type security struct {
	gwArgs      []string
	dialCreds   credentials.TransportCredentials
	adminToken  string // the supervisor's credential towards the gateways' admin API
	guard       *auth.AdminGuard
	serverCreds credentials.TransportCredentials // admin port (nil: plaintext)
	faults      *faults.Faults                   // token endpoint faults and counts
	auth        *auth.Auth                       // the token endpoint (OAuth only)
}

func prepareSecurity(c Security, dir string, link *cluster.LinkTLS) (*security, error) {
	s := &security{faults: faults.NewFaults(), dialCreds: insecure.NewCredentials()}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return nil, errors.New("TLS needs both a certificate and a key")
	}
	if c.TLSClientCA != "" && !c.tlsOn() {
		return nil, errors.New("a client CA (mutual TLS) needs a TLS certificate and key")
	}
	if c.OAuth && c.OAuthPublicKey != "" {
		return nil, errors.New("with the cluster's own token endpoint, give external keys as a JWKS file (--oauth-jwks), not --oauth-public-key")
	}
	if c.tlsOn() {
		leaf, err := tls.LoadX509KeyPair(c.TLSCert, c.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("TLS certificate: %w", err)
		}
		s.gwArgs = append(s.gwArgs, "--tls-cert", c.TLSCert, "--tls-key", c.TLSKey)
		node, err := tls.LoadX509KeyPair(link.CertFile, link.KeyFile)
		if err != nil {
			return nil, err
		}
		// The supervisor talks to children it started on 127.0.0.1: it pins
		// the configured certificate rather than trusting a CA it may not
		// have, and presents the cluster node certificate (mutual TLS).
		want := leaf.Certificate[0]
		s.dialCreds = credentials.NewTLS(&tls.Config{
			InsecureSkipVerify: true, // replaced by the pin below
			VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
				if len(raw) == 0 || !bytes.Equal(raw[0], want) {
					return errors.New("the gateway did not present the cluster's TLS certificate")
				}
				return nil
			},
			Certificates: []tls.Certificate{node},
			MinVersion:   tls.VersionTLS12,
		})
		clientCA := c.TLSClientCA
		if clientCA != "" {
			user, err := os.ReadFile(clientCA)
			if err != nil {
				return nil, fmt.Errorf("client CA: %w", err)
			}
			own, err := os.ReadFile(link.CAFile)
			if err != nil {
				return nil, err
			}
			clientCA = filepath.Join(dir, "gateway-client-ca.pem")
			if err := os.WriteFile(clientCA, append(append(user, '\n'), own...), 0o600); err != nil {
				return nil, err
			}
			s.gwArgs = append(s.gwArgs, "--tls-client-ca", clientCA)
		}
		sc, err := engine.ServerTLS(c.TLSCert, c.TLSKey, clientCA)
		if err != nil {
			return nil, err
		}
		s.serverCreds = credentials.NewTLS(sc)
	}
	if c.tokensRequired() {
		issuer, audience := c.Issuer, c.Audience
		if issuer == "" {
			issuer = "jobwire-engine"
		}
		if audience == "" {
			audience = "zeebe-api"
		}
		leeway := c.OAuthLeeway
		if leeway <= 0 {
			leeway = 5 * time.Second
		}
		s.gwArgs = append(s.gwArgs, "--oauth-issuer", issuer, "--oauth-audience", audience, "--oauth-leeway", leeway.String())
		if c.OAuthJWKS != "" {
			s.gwArgs = append(s.gwArgs, "--oauth-jwks", c.OAuthJWKS)
		}
		if c.OAuthPublicKey != "" {
			s.gwArgs = append(s.gwArgs, "--oauth-public-key", c.OAuthPublicKey)
		}
		if c.OAuth {
			key := c.OAuthSigningKey
			if key == "" {
				key = filepath.Join(dir, "oauth-signing-key.pem")
				if err := auth.WriteSigningKey(key); err != nil {
					return nil, err
				}
			}
			a, err := auth.NewAuth(auth.AuthConfig{Issuer: issuer, Audience: audience, Leeway: leeway,
				Endpoint: true, ClientID: c.OAuthID, ClientSecret: c.OAuthSecret, TTL: c.OAuthTTL, SigningKeyFile: key}, s.faults)
			if err != nil {
				return nil, err
			}
			pub := filepath.Join(dir, "oauth-public-key.pem")
			if err := os.WriteFile(pub, a.PublicKeyPEM(), 0o600); err != nil {
				return nil, err
			}
			if err := a.Start(); err != nil {
				return nil, err
			}
			s.auth = a
			s.gwArgs = append(s.gwArgs, "--oauth-public-key", pub)
		}
	}
	s.guard = &auth.AdminGuard{Off: c.tokensRequired()}
	if c.AdminTokenFile != "" {
		t, err := auth.LoadAdminToken(c.AdminTokenFile)
		if err != nil {
			return nil, err
		}
		s.guard.Token, s.adminToken = t, t
		s.gwArgs = append(s.gwArgs, "--admin-token-file", c.AdminTokenFile)
	} else if c.tokensRequired() {
		// The gateways' admin API would be off: the supervisor (health,
		// faults) uses a private token that only it knows; its own admin
		// port stays off.
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		s.adminToken = hex.EncodeToString(b)
		f := filepath.Join(dir, "supervisor-admin-token")
		if err := os.WriteFile(f, []byte(s.adminToken), 0o600); err != nil {
			return nil, err
		}
		s.gwArgs = append(s.gwArgs, "--admin-token-file", f)
	}
	return s, nil
}

// dialOptions are the supervisor's options towards its gateways.
func (s *security) dialOptions() []grpc.DialOption {
	o := []grpc.DialOption{grpc.WithTransportCredentials(s.dialCreds)}
	if s.adminToken != "" {
		o = append(o, grpc.WithPerRPCCredentials(bearerCreds(s.adminToken)))
	}
	return o
}

// serverOptions guard the supervisor's admin port like a gateway's.
func (s *security) serverOptions() []grpc.ServerOption {
	o := []grpc.ServerOption{grpc.ChainUnaryInterceptor(s.guard.Unary), grpc.ChainStreamInterceptor(s.guard.Stream)}
	if s.serverCreds != nil {
		o = append(o, grpc.Creds(s.serverCreds))
	}
	return o
}

func (s *security) close() {
	if s != nil && s.auth != nil {
		s.auth.Close()
	}
}

type bearerCreds string

func (b bearerCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}

func (bearerCreds) RequireTransportSecurity() bool { return false } // 127.0.0.1 children
