package engine

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
)

func fetchToken(t *testing.T, u, id, secret string) (string, int) {
	t.Helper()
	resp, err := http.PostForm(u, url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}, "audience": {"zeebe-api"}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return body.AccessToken, resp.StatusCode
}

func TestOAuthBearerTokens(t *testing.T) {
	en := start(t, Config{NoSync: true, OAuth: true, OAuthTTL: 300 * time.Millisecond})
	_, err := en.gw.Topology(ctx(t), &pb.TopologyRequest{})
	wantCode(t, "no token", err, codes.Unauthenticated, "")
	if _, code := fetchToken(t, en.e.Auth.URL, "jobwire", "wrong"); code != http.StatusUnauthorized {
		t.Fatalf("wrong secret: status %d", code)
	}
	tok, code := fetchToken(t, en.e.Auth.URL, "jobwire", "secret")
	if code != 200 || tok == "" {
		t.Fatalf("token: %d %q", code, tok)
	}
	authed := metadata.AppendToOutgoingContext(ctx(t), "authorization", "Bearer "+tok)
	if _, err := en.gw.Topology(authed, &pb.TopologyRequest{}); err != nil {
		t.Fatal(err)
	}
	bad := metadata.AppendToOutgoingContext(ctx(t), "authorization", "Bearer nope")
	_, err = en.gw.Topology(bad, &pb.TopologyRequest{})
	wantCode(t, "unknown token", err, codes.Unauthenticated, "unknown")
	time.Sleep(400 * time.Millisecond)
	_, err = en.gw.Topology(authed, &pb.TopologyRequest{})
	wantCode(t, "expired token", err, codes.Unauthenticated, "expired")
	// Admin stays open; token requests are counted.
	r, err := en.admin.GetRequestCounts(ctx(t), &apb.GetRequestCountsRequest{Method: "oauth/token"})
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, c := range r.Counts {
		total += c.Count
	}
	if total != 2 {
		t.Fatalf("token requests counted %d, want 2", total)
	}
}

func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	kb, _ := x509.MarshalECPrivateKey(key)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	pool = x509.NewCertPool()
	c, _ := x509.ParseCertificate(der)
	pool.AddCert(c)
	return
}

func TestTLS(t *testing.T) {
	cert, key, pool := selfSigned(t)
	e, err := Start(Config{NoSync: true, DataDir: t.TempDir(), TLSCert: cert, TLSKey: key})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	conn, err := grpc.NewClient(e.Addr(), grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool})))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := pb.NewGatewayClient(conn).Topology(ctx(t), &pb.TopologyRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Start(Config{DataDir: t.TempDir(), TLSCert: cert, TLSKey: "/nonexistent"}); err == nil || !strings.Contains(err.Error(), "TLS") {
		t.Fatalf("bad key must fail clearly: %v", err)
	}
}
