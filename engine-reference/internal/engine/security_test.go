package engine

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
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

	jose "github.com/go-jose/go-jose/v4"
	"github.com/golang-jwt/jwt/v5"
	"github.com/jobwire/jobwire/engine-reference/internal/gateway/auth"
	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
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
	en := start(t, Config{NoSync: true, OAuth: true, OAuthTTL: time.Second, OAuthLeeway: time.Millisecond})
	_, err := en.gw.Topology(ctx(t), &pb.TopologyRequest{})
	wantCode(t, "no token", err, codes.Unauthenticated, "found nothing")
	if _, code := fetchToken(t, en.e.Auth.URL, "jobwire", "wrong"); code != http.StatusUnauthorized {
		t.Fatalf("wrong secret: status %d", code)
	}
	tok, code := fetchToken(t, en.e.Auth.URL, "jobwire", "secret")
	if code != 200 || strings.Count(tok, ".") != 2 {
		t.Fatalf("token: %d %q (want a JWT)", code, tok)
	}
	authed := metadata.AppendToOutgoingContext(ctx(t), "authorization", "Bearer "+tok)
	if _, err := en.gw.Topology(authed, &pb.TopologyRequest{}); err != nil {
		t.Fatal(err)
	}
	bad := metadata.AppendToOutgoingContext(ctx(t), "authorization", "Bearer nope")
	_, err = en.gw.Topology(bad, &pb.TopologyRequest{})
	wantCode(t, "garbage token", err, codes.Unauthenticated, "malformed")
	basic := metadata.AppendToOutgoingContext(ctx(t), "authorization", "Basic "+tok)
	_, err = en.gw.Topology(basic, &pb.TopologyRequest{})
	wantCode(t, "not a bearer", err, codes.Unauthenticated, "Bearer")
	// Wait until just past the token's exp (the issue time + 1 s, rounded up
	// to the second), not a fixed worst case.
	claims := jwt.MapClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(tok, claims); err != nil {
		t.Fatal(err)
	}
	exp, err := claims.GetExpirationTime()
	if err != nil || exp == nil {
		t.Fatalf("token without exp: %v", err)
	}
	time.Sleep(time.Until(exp.Time) + 100*time.Millisecond)
	_, err = en.gw.Topology(authed, &pb.TopologyRequest{})
	wantCode(t, "expired token", err, codes.Unauthenticated, "expired")
	// The admin API is off next to an authenticated gateway without an
	// admin token; token requests are counted.
	_, err = en.admin.GetRequestCounts(ctx(t), &apb.GetRequestCountsRequest{Method: "oauth/token"})
	wantCode(t, "admin without admin token", err, codes.Unauthenticated, "admin API is off")
	_, err = en.admin.GetRequestCounts(authed, &apb.GetRequestCountsRequest{Method: "oauth/token"})
	wantCode(t, "admin with a gateway token", err, codes.Unauthenticated, "admin API is off")
	if n := en.e.Auth.Issued(); n != 1 {
		t.Fatalf("issued %d tokens, want 1", n)
	}
}

// forged signs claims with a key the engine does not know (or alg none).
func forged(t *testing.T, method jwt.SigningMethod, key any, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(method, claims).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestOAuthRejectsEveryBadToken: each kind of bad token is UNAUTHENTICATED
// and nothing is processed (no instance is created).
func TestOAuthRejectsEveryBadToken(t *testing.T) {
	adminFile := filepath.Join(t.TempDir(), "admin-token")
	os.WriteFile(adminFile, []byte("admin-0123456789abcdef\n"), 0o600)
	en := start(t, Config{NoSync: true, OAuth: true, OAuthTTL: time.Minute, OAuthLeeway: 2 * time.Second, AdminTokenFile: adminFile})
	adminCtx := metadata.AppendToOutgoingContext(ctx(t), "authorization", "Bearer admin-0123456789abcdef")
	good, _ := fetchToken(t, en.e.Auth.URL, "jobwire", "secret")
	goodCtx := metadata.AppendToOutgoingContext(ctx(t), "authorization", "Bearer "+good)
	if _, err := en.gw.DeployResource(goodCtx, &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "one-task.bpmn", Content: bpmnFile(t, "one-task.bpmn")}}}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	base := func() jwt.MapClaims {
		return jwt.MapClaims{"iss": "jobwire-engine", "aud": "zeebe-api", "sub": "jobwire", "iat": now.Unix(),
			"nbf": now.Unix(), "exp": now.Add(time.Minute).Unix()}
	}
	with := func(k string, v any) jwt.MapClaims { c := base(); c[k] = v; return c }
	otherKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	sign := func(c jwt.MapClaims) string {
		s, err := en.e.Auth.Sign(c, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// A token signed by the engine's key, then one byte of the payload changed.
	parts := strings.Split(sign(jwt.MapClaims{"sub": "jobwire", "aud": "zeebe-api"}), ".")
	payload := []byte(parts[1])
	payload[len(payload)/2] ^= 1
	tampered := parts[0] + "." + string(payload) + "." + parts[2]
	cases := []struct{ name, tok, msg string }{
		{"signed by another key", forged(t, jwt.SigningMethodES256, otherKey, base()), "signature"},
		{"alg none", forged(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, base()), "invalid"},
		{"HS256 with the client secret", forged(t, jwt.SigningMethodHS256, []byte("secret"), base()), "invalid"},
		{"tampered payload", tampered, ""},
		{"wrong issuer", sign(jwt.MapClaims{"iss": "someone-else", "aud": "zeebe-api"}), "issuer"},
		{"wrong audience", sign(jwt.MapClaims{"aud": "operate-api"}), "audience"},
		{"no audience", sign(jwt.MapClaims{}), "aud"},
		{"expired beyond leeway", sign(with("exp", now.Add(-4*time.Second).Unix())), "expired"},
		{"not valid yet", sign(with("nbf", now.Add(time.Minute).Unix())), "not valid yet"},
		{"empty bearer", "", ""},
	}
	for _, c := range cases {
		md := metadata.AppendToOutgoingContext(ctx(t), "authorization", "Bearer "+c.tok)
		_, err := en.gw.CreateProcessInstance(md, &pb.CreateProcessInstanceRequest{BpmnProcessId: "one-task"})
		wantCode(t, c.name, err, codes.Unauthenticated, c.msg)
		if strings.Contains(err.Error(), good) || (c.tok != "" && strings.Contains(err.Error(), c.tok)) {
			t.Fatalf("%s: the error echoes a token: %v", c.name, err)
		}
		stream, err := en.gw.StreamActivatedJobs(md, &pb.StreamActivatedJobsRequest{Type: "one", Timeout: 1000})
		if err == nil {
			_, err = stream.Recv()
		}
		wantCode(t, c.name+" (stream)", err, codes.Unauthenticated, c.msg)
	}
	// Within the leeway an expired token is still accepted (clock skew).
	skew := metadata.AppendToOutgoingContext(ctx(t), "authorization", "Bearer "+sign(with("exp", time.Now().Unix())))
	if _, err := en.gw.Topology(skew, &pb.TopologyRequest{}); err != nil {
		t.Fatalf("token expired less than 1 s ago, leeway 2 s: %v", err)
	}
	// Nothing was processed: no instance exists.
	r, err := en.admin.ListProcessInstances(adminCtx, &apb.ListProcessInstancesRequest{BpmnProcessId: "one-task", IncludeInstances: true})
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, n := range r.CountsByState {
		total += n
	}
	if len(r.Instances) != 0 || total != 0 {
		t.Fatalf("rejected calls created instances: %v", r)
	}
	// The admin API needs the admin token, not a gateway token.
	_, err = en.admin.ListJobs(goodCtx, &apb.ListJobsRequest{})
	wantCode(t, "admin with gateway token", err, codes.Unauthenticated, "wrong token")
	_, err = en.admin.ListJobs(ctx(t), &apb.ListJobsRequest{})
	wantCode(t, "admin without token", err, codes.Unauthenticated, "admin token")
	if _, err := en.admin.ListJobs(adminCtx, &apb.ListJobsRequest{}); err != nil {
		t.Fatal(err)
	}
	// The admin token is not a gateway token either.
	_, err = en.gw.Topology(adminCtx, &pb.TopologyRequest{})
	wantCode(t, "gateway with admin token", err, codes.Unauthenticated, "")
}

func TestOAuthTokenWithoutExpIsRejected(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "sign.pem")
	if err := auth.WriteSigningKey(keyFile); err != nil {
		t.Fatal(err)
	}
	en := start(t, Config{NoSync: true, OAuth: true, OAuthSigningKey: keyFile})
	b, _ := os.ReadFile(keyFile)
	blk, _ := pem.Decode(b)
	k, err := x509.ParseECPrivateKey(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	good, _ := fetchToken(t, en.e.Auth.URL, "jobwire", "secret")
	kid, _ := jwtHeader(t, good)["kid"].(string)
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"iss": "jobwire-engine", "aud": "zeebe-api", "iat": time.Now().Unix()})
	tok.Header["kid"] = kid
	s, err := tok.SignedString(k)
	if err != nil {
		t.Fatal(err)
	}
	md := metadata.AppendToOutgoingContext(ctx(t), "authorization", "Bearer "+s)
	_, err = en.gw.Topology(md, &pb.TopologyRequest{})
	wantCode(t, "no exp", err, codes.Unauthenticated, "exp")
	// The same key with exp is accepted (the key file is really used).
	tok = jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"iss": "jobwire-engine", "aud": "zeebe-api", "exp": time.Now().Add(time.Minute).Unix()})
	tok.Header["kid"] = kid
	s, _ = tok.SignedString(k)
	md = metadata.AppendToOutgoingContext(ctx(t), "authorization", "Bearer "+s)
	if _, err := en.gw.Topology(md, &pb.TopologyRequest{}); err != nil {
		t.Fatal(err)
	}
}

func jwtHeader(t *testing.T, tok string) map[string]any {
	t.Helper()
	p, _, err := jwt.NewParser().ParseUnverified(tok, jwt.MapClaims{})
	if err != nil {
		t.Fatal(err)
	}
	return p.Header
}

// TestOAuthExternalKeys: validation against a configured public key and a
// JWKS file (an external identity provider), without the token endpoint.
func TestOAuthExternalKeys(t *testing.T) {
	dir := t.TempDir()
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	der, _ := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
	pubFile := filepath.Join(dir, "idp.pem")
	os.WriteFile(pubFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o600)
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	jwks, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &ecKey.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	jwksFile := filepath.Join(dir, "jwks.json")
	os.WriteFile(jwksFile, jwks, 0o600)
	claims := jwt.MapClaims{"iss": "https://idp.example", "aud": "jobwire", "exp": time.Now().Add(time.Minute).Unix()}
	for _, c := range []struct {
		name string
		cfg  Config
		tok  func() string
	}{
		{"public key", Config{OAuthPublicKey: pubFile}, func() string { return forged(t, jwt.SigningMethodRS256, rsaKey, claims) }},
		{"jwks", Config{OAuthJWKS: jwksFile}, func() string {
			tk := jwt.NewWithClaims(jwt.SigningMethodES256, claims)
			tk.Header["kid"] = "k1"
			s, _ := tk.SignedString(ecKey)
			return s
		}},
	} {
		c.cfg.NoSync, c.cfg.OAuthIssuer, c.cfg.OAuthAudience = true, "https://idp.example", "jobwire"
		en := start(t, c.cfg)
		if en.e.Auth.URL != "" {
			t.Fatalf("%s: no token endpoint without --oauth", c.name)
		}
		md := metadata.AppendToOutgoingContext(ctx(t), "authorization", "Bearer "+c.tok())
		if _, err := en.gw.Topology(md, &pb.TopologyRequest{}); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, err := en.gw.Topology(ctx(t), &pb.TopologyRequest{})
		wantCode(t, c.name+": no token", err, codes.Unauthenticated, "")
		// HS256 keyed with the public key's bytes (algorithm confusion).
		confused := forged(t, jwt.SigningMethodHS256, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), claims)
		md = metadata.AppendToOutgoingContext(ctx(t), "authorization", "Bearer "+confused)
		_, err = en.gw.Topology(md, &pb.TopologyRequest{})
		wantCode(t, c.name+": alg confusion", err, codes.Unauthenticated, "")
	}
	if _, err := Start(Config{DataDir: t.TempDir(), OAuthJWKS: pubFile}); err == nil || !strings.Contains(err.Error(), "jwks") {
		t.Fatalf("a PEM file as JWKS must fail clearly: %v", err)
	}
}

func TestOAuthTokenEndpointDown(t *testing.T) {
	adminFile := filepath.Join(t.TempDir(), "admin-token")
	os.WriteFile(adminFile, []byte("admin-0123456789abcdef"), 0o600)
	en := start(t, Config{NoSync: true, OAuth: true, AdminTokenFile: adminFile})
	adminCtx := metadata.AppendToOutgoingContext(ctx(t), "authorization", "Bearer admin-0123456789abcdef")
	if _, err := en.admin.InjectFault(adminCtx, &apb.InjectFaultRequest{Fault: &apb.InjectFaultRequest_Reject{Reject: &apb.RejectFault{
		Method: "oauth/token", Code: int32(codes.Unavailable), Count: 2}}}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, code := fetchToken(t, en.e.Auth.URL, "jobwire", "secret"); code != http.StatusServiceUnavailable {
			t.Fatalf("request %d while down: %d", i, code)
		}
	}
	if tok, code := fetchToken(t, en.e.Auth.URL, "jobwire", "secret"); code != 200 || tok == "" {
		t.Fatalf("after the fault: %d", code)
	}
}

func TestMutualTLS(t *testing.T) {
	cert, key, pool := selfSigned(t)
	caFile, ca, caKey := testCA(t, "jobwire test client CA")
	_, other, otherKey := testCA(t, "unrelated CA")
	e, err := Start(Config{NoSync: true, DataDir: t.TempDir(), TLSCert: cert, TLSKey: key, TLSClientCA: caFile})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	call := func(certs []tls.Certificate) error {
		conn, err := grpc.NewClient(e.Addr(), grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool, Certificates: certs})))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_, err = pb.NewGatewayClient(conn).Topology(ctx(t), &pb.TopologyRequest{})
		if err == nil {
			_, err = apb.NewAdminServiceClient(conn).ListJobs(ctx(t), &apb.ListJobsRequest{})
		}
		return err
	}
	if err := call([]tls.Certificate{clientCert(t, ca, caKey)}); err != nil {
		t.Fatalf("with a client certificate: %v", err)
	}
	if err := call(nil); status.Code(err) != codes.Unavailable {
		t.Fatalf("without a client certificate: %v", err)
	}
	if err := call([]tls.Certificate{clientCert(t, other, otherKey)}); status.Code(err) != codes.Unavailable {
		t.Fatalf("with a certificate of another CA: %v", err)
	}
	if _, err := Start(Config{DataDir: t.TempDir(), TLSClientCA: caFile}); err == nil || !strings.Contains(err.Error(), "--tls-cert") {
		t.Fatalf("--tls-client-ca without a server certificate must fail clearly: %v", err)
	}
}

func testCA(t *testing.T, name string) (string, *x509.Certificate, *ecdsa.PrivateKey) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	f := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	return f, c, key
}

func clientCert(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey) tls.Certificate {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(3), Subject: pkix.Name{CommonName: "worker"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
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

// TestOAuthTokensLiveAtLeastTheirTTL: exp is rounded up to the second, so a
// token issued at any moment is accepted for its whole expires_in.
func TestOAuthTokensLiveAtLeastTheirTTL(t *testing.T) {
	en := start(t, Config{NoSync: true, OAuth: true, OAuthTTL: time.Second, OAuthLeeway: time.Millisecond})
	for i := 0; i < 5; i++ {
		issued := time.Now()
		tok, _ := fetchToken(t, en.e.Auth.URL, "jobwire", "secret")
		var claims jwt.MapClaims
		if _, _, err := jwt.NewParser().ParseUnverified(tok, &claims); err != nil {
			t.Fatal(err)
		}
		exp, _ := claims.GetExpirationTime()
		if exp.Time.Before(issued.Add(time.Second).Truncate(time.Second)) || exp.Time.Before(issued.Add(time.Second-time.Millisecond)) {
			t.Fatalf("token issued at %v expires at %v: shorter than its 1 s lifetime", issued, exp.Time)
		}
		time.Sleep(230 * time.Millisecond)
	}
}
