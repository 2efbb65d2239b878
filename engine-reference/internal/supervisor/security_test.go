package supervisor

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/cluster"
	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

func fetchToken(t *testing.T, tokenURL, secret string) (string, int) {
	t.Helper()
	resp, err := http.PostForm(tokenURL, url.Values{"grant_type": {"client_credentials"}, "client_id": {"jobwire"},
		"client_secret": {secret}, "audience": {"zeebe-api"}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return body.AccessToken, resp.StatusCode
}

// call runs Topology (gateway) or GetCluster (admin) over creds with an
// optional bearer token.
func call(t *testing.T, addr string, creds credentials.TransportCredentials, token string, admin bool) error {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := ctxT(t, 10*time.Second)
	if token != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
	}
	if admin {
		_, err = apb.NewAdminServiceClient(conn).GetCluster(ctx, &apb.GetClusterRequest{})
	} else {
		_, err = pb.NewGatewayClient(conn).Topology(ctx, &pb.TopologyRequest{})
	}
	return err
}

func wantCode(t *testing.T, what string, err error, code codes.Code) {
	t.Helper()
	if status.Code(err) != code {
		t.Fatalf("%s: want %v, got %v", what, code, err)
	}
}

// TestClusterSecurity: `cluster` hands TLS, mutual TLS, bearer-token
// validation and the admin credential to every gateway (and guards its own
// admin port); its token endpoint serves the whole cluster and survives a
// gateway restart; the ExpireTokens fault expires every token issued so far.
func TestClusterSecurity(t *testing.T) {
	dir := t.TempDir()
	server, err := cluster.GenerateLinkTLS(filepath.Join(dir, "server")) // the gateways' certificate and its CA
	if err != nil {
		t.Fatal(err)
	}
	clients, err := cluster.GenerateLinkTLS(filepath.Join(dir, "clients")) // the client CA and one client certificate
	if err != nil {
		t.Fatal(err)
	}
	adminTok := "admin-token-0123456789abcdef"
	adminFile := filepath.Join(dir, "admin-token")
	if err := os.WriteFile(adminFile, []byte(adminTok), 0o600); err != nil {
		t.Fatal(err)
	}
	secret := "cluster-client-secret-42"
	s, err := Start(Config{Gateways: 2, Brokers: 1, Partitions: 2, Bin: engineBin, DataDir: filepath.Join(dir, "data"),
		Out: testWriter{t}, Security: Security{TLSCert: server.CertFile, TLSKey: server.KeyFile, TLSClientCA: clients.CAFile,
			OAuth: true, OAuthID: "jobwire", OAuthSecret: secret, OAuthTTL: time.Minute, AdminTokenFile: adminFile}})
	if err != nil {
		t.Fatalf("cluster start: %v", err)
	}
	defer s.Close()
	if s.TokenURL() == "" {
		t.Fatal("no token endpoint")
	}
	pool := x509.NewCertPool()
	caPEM, _ := os.ReadFile(server.CAFile)
	pool.AppendCertsFromPEM(caPEM)
	clientCert, err := tls.LoadX509KeyPair(clients.CertFile, clients.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	mtls := credentials.NewTLS(&tls.Config{RootCAs: pool, Certificates: []tls.Certificate{clientCert}})
	noCert := credentials.NewTLS(&tls.Config{RootCAs: pool})
	tok, code := fetchToken(t, s.TokenURL(), secret)
	if code != 200 || tok == "" {
		t.Fatalf("token endpoint answered %d", code)
	}
	if _, code := fetchToken(t, s.TokenURL(), "wrong-secret"); code != http.StatusUnauthorized {
		t.Fatalf("wrong client secret: token endpoint answered %d", code)
	}
	for i, gw := range s.GatewayAddrs() {
		if err := call(t, gw, mtls, tok, false); err != nil {
			t.Fatalf("gateway %d, client certificate and token: %v", i, err)
		}
		wantCode(t, "no token", call(t, gw, mtls, "", false), codes.Unauthenticated)
		wantCode(t, "garbage token", call(t, gw, mtls, "not-a-jwt", false), codes.Unauthenticated)
		wantCode(t, "admin token as a gateway token", call(t, gw, mtls, adminTok, false), codes.Unauthenticated)
		wantCode(t, "no client certificate", call(t, gw, noCert, tok, false), codes.Unavailable)
		wantCode(t, "plaintext", call(t, gw, insecure.NewCredentials(), tok, false), codes.Unavailable)
		// the gateways' own admin API needs the admin token as well
		wantCode(t, "gateway admin with a gateway token", call(t, gw, mtls, tok, true), codes.Unauthenticated)
		if err := call(t, gw, mtls, adminTok, true); status.Code(err) == codes.Unauthenticated {
			t.Fatalf("gateway admin with the admin token: %v", err)
		}
	}
	adm := s.AdminAddr()
	wantCode(t, "admin port without a token", call(t, adm, mtls, "", true), codes.Unauthenticated)
	wantCode(t, "admin port with a gateway token", call(t, adm, mtls, tok, true), codes.Unauthenticated)
	wantCode(t, "admin port in plaintext", call(t, adm, insecure.NewCredentials(), adminTok, true), codes.Unavailable)
	if err := call(t, adm, mtls, adminTok, true); err != nil {
		t.Fatalf("admin port with the admin token: %v", err)
	}

	conn, err := grpc.NewClient(adm, grpc.WithTransportCredentials(mtls), grpc.WithPerRPCCredentials(bearerCreds(adminTok)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	admin := apb.NewAdminServiceClient(conn)
	// A gateway restart: the supervisor reaches the new process (TLS, its
	// node certificate, the admin token) and the cluster's token stays valid.
	if _, err := admin.RestartGateway(ctxT(t, 30*time.Second), &apb.RestartGatewayRequest{Index: 0}); err != nil {
		t.Fatalf("restart gateway: %v", err)
	}
	if err := call(t, s.GatewayAddrs()[0], mtls, tok, false); err != nil {
		t.Fatalf("after the restart: %v", err)
	}
	// ExpireTokens: the token issued before is refused, a new one works.
	time.Sleep(1100 * time.Millisecond) // a new second, so the fault's cutoff is after tok's iat
	if _, err := admin.InjectFault(ctxT(t, 5*time.Second), &apb.InjectFaultRequest{Fault: &apb.InjectFaultRequest_ExpireTokens{ExpireTokens: &apb.ExpireTokensFault{}}}); err != nil {
		t.Fatal(err)
	}
	for _, gw := range s.GatewayAddrs() {
		err := call(t, gw, mtls, tok, false)
		wantCode(t, "expired token", err, codes.Unauthenticated)
		if !strings.Contains(err.Error(), "expired") {
			t.Fatalf("expired token: %v", err)
		}
	}
	// At once, within the cutoff's second: the endpoint issues a token the
	// gateways accept (a quick refresh must not meet a refused token).
	tok2, _ := fetchToken(t, s.TokenURL(), secret)
	for _, gw := range s.GatewayAddrs() {
		if err := call(t, gw, mtls, tok2, false); err != nil {
			t.Fatalf("a token issued after the fault: %v", err)
		}
	}
	// A gateway restarted after the fault keeps refusing the expired token.
	if _, err := admin.RestartGateway(ctxT(t, 30*time.Second), &apb.RestartGatewayRequest{Index: 1}); err != nil {
		t.Fatalf("restart gateway: %v", err)
	}
	wantCode(t, "expired token after a restart", call(t, s.GatewayAddrs()[1], mtls, tok, false), codes.Unauthenticated)
	if err := call(t, s.GatewayAddrs()[1], mtls, tok2, false); err != nil {
		t.Fatalf("a token issued after the fault, restarted gateway: %v", err)
	}
	// The token endpoint obeys reject faults on "oauth/token" and is counted.
	if _, err := admin.InjectFault(ctxT(t, 5*time.Second), &apb.InjectFaultRequest{Fault: &apb.InjectFaultRequest_Reject{
		Reject: &apb.RejectFault{Method: "oauth/token", Code: int32(codes.Unavailable), Count: 1}}}); err != nil {
		t.Fatal(err)
	}
	if _, code := fetchToken(t, s.TokenURL(), secret); code != http.StatusServiceUnavailable {
		t.Fatalf("token endpoint down: answered %d", code)
	}
	if _, code := fetchToken(t, s.TokenURL(), secret); code != 200 {
		t.Fatalf("token endpoint back: answered %d", code)
	}
	rc, err := admin.GetRequestCounts(ctxT(t, 5*time.Second), &apb.GetRequestCountsRequest{Method: "oauth/token"})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, c := range rc.Counts {
		n += c.Count
	}
	if n != 5 { // tok, wrong secret, tok2, down, back
		t.Fatalf("oauth/token counted %d times, want 5: %v", n, rc.Counts)
	}
}

// TestClusterAdminOffWithoutAdminToken: gateways that require tokens and no
// admin token: the supervisor still manages its gateways (a private token)
// but its admin port is off.
func TestClusterAdminOffWithoutAdminToken(t *testing.T) {
	s, err := Start(Config{Gateways: 1, Brokers: 1, Partitions: 1, Bin: engineBin, DataDir: t.TempDir(), Out: testWriter{t},
		Security: Security{OAuth: true, OAuthSecret: "another-secret-77"}})
	if err != nil {
		t.Fatalf("cluster start: %v", err)
	}
	defer s.Close()
	tok, _ := fetchToken(t, s.TokenURL(), "another-secret-77")
	if err := call(t, s.GatewayAddrs()[0], insecure.NewCredentials(), tok, false); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "gateway without a token", call(t, s.GatewayAddrs()[0], insecure.NewCredentials(), "", false), codes.Unauthenticated)
	for _, tk := range []string{"", tok} {
		err := call(t, s.AdminAddr(), insecure.NewCredentials(), tk, true)
		wantCode(t, "admin port", err, codes.Unauthenticated)
		if !strings.Contains(err.Error(), "off") {
			t.Fatalf("admin port: %v", err)
		}
		wantCode(t, "gateway admin", call(t, s.GatewayAddrs()[0], insecure.NewCredentials(), tk, true), codes.Unauthenticated)
	}
}
