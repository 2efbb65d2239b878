package auth

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jobwire/jobwire/engine-reference/internal/gateway/faults"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

func endpoint(t *testing.T, f *faults.Faults, cfg AuthConfig) *Auth {
	t.Helper()
	cfg.Endpoint = true
	if cfg.ClientSecret == "" {
		cfg.ClientSecret = "s3cret"
	}
	a, err := NewAuth(cfg, f)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func wantRefused(t *testing.T, what string, err error, reason string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: accepted, want refused (%s)", what, reason)
	}
	if !strings.Contains(err.Error(), reason) {
		t.Fatalf("%s: refused with %q, want %q", what, err, reason)
	}
}

func TestSignedTokensValidateAndBadOnesAreRefused(t *testing.T) {
	a := endpoint(t, faults.NewFaults(), AuthConfig{})
	good, err := a.Sign(jwt.MapClaims{"sub": "w", "aud": "zeebe-api"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Validate(good); err != nil {
		t.Fatalf("a token the endpoint signed is refused: %v", err)
	}
	otherAud, _ := a.Sign(jwt.MapClaims{"aud": "operate-api"}, time.Minute)
	wantRefused(t, "other audience", a.Validate(otherAud), `audience is not "zeebe-api"`)
	otherIss, _ := a.Sign(jwt.MapClaims{"aud": "zeebe-api", "iss": "someone-else"}, time.Minute)
	wantRefused(t, "other issuer", a.Validate(otherIss), `issuer is not "jobwire-engine"`)
	expired, _ := a.Sign(jwt.MapClaims{"aud": "zeebe-api"}, -time.Minute)
	wantRefused(t, "expired", a.Validate(expired), "expired")
	nx := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"iss": "jobwire-engine", "aud": "zeebe-api", "iat": time.Now().Unix()})
	nx.Header["kid"] = a.kid
	noExp, _ := nx.SignedString(a.signer)
	wantRefused(t, "without exp", a.Validate(noExp), "required claim")
	future, _ := a.Sign(jwt.MapClaims{"aud": "zeebe-api", "nbf": time.Now().Add(time.Hour).Unix()}, 2*time.Hour)
	wantRefused(t, "not yet valid", a.Validate(future), "not valid yet")
	parts := strings.Split(good, ".")
	parts[1] = strings.TrimRight(parts[1], "=") + "e30" // claims changed after signing
	wantRefused(t, "tampered", a.Validate(strings.Join(parts, ".")), "")
	wantRefused(t, "empty", a.Validate(""), "empty token")
	wantRefused(t, "garbage", a.Validate("not-a-jwt"), "malformed")
	wantRefused(t, "huge", a.Validate(strings.Repeat("a", 17<<10)), "too large")
	// Another endpoint's key (another process) does not verify here.
	b := endpoint(t, faults.NewFaults(), AuthConfig{})
	foreign, _ := b.Sign(jwt.MapClaims{"aud": "zeebe-api"}, time.Minute)
	wantRefused(t, "foreign key", a.Validate(foreign), "signature is invalid")
	// HMAC is never accepted, whatever the key.
	hs := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iss": "jobwire-engine", "aud": "zeebe-api",
		"exp": time.Now().Add(time.Minute).Unix(), "iat": time.Now().Unix()})
	hsTok, _ := hs.SignedString(a.PublicKeyPEM())
	wantRefused(t, "HS256", a.Validate(hsTok), "")
}

func TestExpireTokensFaultRefusesEarlierTokensOnly(t *testing.T) {
	f := faults.NewFaults()
	a := endpoint(t, f, AuthConfig{})
	old, _ := a.Sign(jwt.MapClaims{"aud": "zeebe-api"}, time.Hour)
	if err := a.Validate(old); err != nil {
		t.Fatal(err)
	}
	f.ExpireTokens(0)
	wantRefused(t, "token issued before the cutoff", a.Validate(old), "expired")
	fresh, _ := a.Sign(jwt.MapClaims{"aud": "zeebe-api"}, time.Hour)
	if err := a.Validate(fresh); err != nil {
		t.Fatalf("a token issued after the cutoff (same second) is refused: %v", err)
	}
}

func TestNewAuthNeedsAKey(t *testing.T) {
	if _, err := NewAuth(AuthConfig{}, faults.NewFaults()); err == nil {
		t.Fatal("a validator without any key was created")
	}
	if _, err := NewAuth(AuthConfig{Endpoint: true}, faults.NewFaults()); err == nil {
		t.Fatal("a token endpoint without a client secret was created")
	}
	if _, err := NewAuth(AuthConfig{PublicKeyFile: filepath.Join(t.TempDir(), "missing.pem")}, nil); err == nil {
		t.Fatal("a missing public key file was accepted")
	}
}

// Gateways of one cluster share the signing key, and a gateway without the
// endpoint validates with its public key.
func TestSharedSigningKeyAndPublicKeyFile(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "sign.pem")
	if err := WriteSigningKey(key); err != nil {
		t.Fatal(err)
	}
	a := endpoint(t, faults.NewFaults(), AuthConfig{SigningKeyFile: key})
	b := endpoint(t, faults.NewFaults(), AuthConfig{SigningKeyFile: key})
	tok, _ := a.Sign(jwt.MapClaims{"aud": "zeebe-api"}, time.Minute)
	if err := b.Validate(tok); err != nil {
		t.Fatalf("a token of a gateway with the same signing key is refused: %v", err)
	}
	pub := filepath.Join(dir, "pub.pem")
	if err := os.WriteFile(pub, a.PublicKeyPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	v, err := NewAuth(AuthConfig{PublicKeyFile: pub}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Validate(tok); err != nil {
		t.Fatalf("the public key does not validate the endpoint's token: %v", err)
	}
	if v.PublicKeyPEM() != nil {
		t.Fatal("a validator without the endpoint has a signing key")
	}
	if _, err := v.Sign(jwt.MapClaims{}, time.Minute); err == nil {
		t.Fatal("a validator without the endpoint signed a token")
	}
}

func TestTokenEndpoint(t *testing.T) {
	f := faults.NewFaults()
	a := endpoint(t, f, AuthConfig{ClientID: "worker", TTL: 30 * time.Second})
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if !strings.HasPrefix(a.URL, "http://127.0.0.1:") {
		t.Fatalf("token endpoint at %q, want 127.0.0.1", a.URL)
	}
	post := func(form url.Values) (int, map[string]any) {
		t.Helper()
		r, err := http.PostForm(a.URL, form)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		return r.StatusCode, m
	}
	code, m := post(url.Values{"client_id": {"worker"}, "client_secret": {"s3cret"}, "grant_type": {"client_credentials"}})
	if code != 200 || m["token_type"] != "Bearer" || m["expires_in"] != float64(30) {
		t.Fatalf("good credentials: %d %v", code, m)
	}
	tok, _ := m["access_token"].(string)
	if err := a.Validate(tok); err != nil {
		t.Fatalf("the issued token does not validate: %v", err)
	}
	if code, m := post(url.Values{"client_id": {"worker"}, "client_secret": {"wrong"}}); code != 401 || m["error"] != "invalid_client" {
		t.Fatalf("wrong secret: %d %v", code, m)
	}
	if code, m := post(url.Values{"client_id": {"worker"}, "client_secret": {"s3cret"}, "grant_type": {"password"}}); code != 400 || m["error"] != "unsupported_grant_type" {
		t.Fatalf("other grant: %d %v", code, m)
	}
	code, m = post(url.Values{"client_id": {"worker"}, "client_secret": {"s3cret"}, "audience": {"operate-api"}})
	if other, _ := m["access_token"].(string); code != 200 || a.Validate(other) == nil {
		t.Fatalf("a token for another audience: %d, validates: %v", code, a.Validate(other))
	}
	if r, err := http.Get(a.URL); err != nil || r.StatusCode != 405 {
		t.Fatalf("GET: %v %v", r, err)
	} else {
		r.Body.Close()
	}
	f.AddReject("oauth/token", 0, codes.Unavailable, 1, "")
	if code, m := post(url.Values{"client_id": {"worker"}, "client_secret": {"s3cret"}}); code != 503 || m["error"] != "temporarily_unavailable" {
		t.Fatalf("injected fault: %d %v", code, m)
	}
	if code, _ := post(url.Values{"client_id": {"worker"}, "client_secret": {"s3cret"}}); code != 200 {
		t.Fatalf("after the one-call fault: %d", code)
	}
	if a.Issued() != 3 {
		t.Fatalf("Issued() = %d, want 3", a.Issued())
	}
	var total, ok, unavailable int64
	for _, c := range f.Counts("oauth/token") {
		total += c.Total
		ok += c.ByCode["OK"]
		unavailable += c.ByCode["UNAVAILABLE"]
	}
	if total != 7 || ok != 3 || unavailable != 1 {
		t.Fatalf("token request counts: %d (OK %d, UNAVAILABLE %d), want 7 (3, 1)", total, ok, unavailable)
	}
	r, err := http.Get(a.JWKS)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var set struct {
		Keys []struct {
			Kid, Alg, Use string
		}
	}
	if err := json.NewDecoder(r.Body).Decode(&set); err != nil || len(set.Keys) != 1 || set.Keys[0].Alg != "ES256" || set.Keys[0].Kid == "" {
		t.Fatalf("JWKS: %+v %v", set, err)
	}
}

func unary(t *testing.T, i grpc.UnaryServerInterceptor, full, authorization string) (codes.Code, string, bool) {
	t.Helper()
	ctx := context.Background()
	if authorization != "" {
		ctx = metadata.NewIncomingContext(ctx, metadata.Pairs("authorization", authorization))
	}
	ran := false
	_, err := i(ctx, nil, &grpc.UnaryServerInfo{FullMethod: full}, func(context.Context, any) (any, error) {
		ran = true
		return nil, nil
	})
	st, _ := status.FromError(err)
	return st.Code(), st.Message(), ran
}

func TestInterceptorChecksGatewayAndStreamControlOnly(t *testing.T) {
	a := endpoint(t, faults.NewFaults(), AuthConfig{})
	tok, _ := a.Sign(jwt.MapClaims{"aud": "zeebe-api"}, time.Minute)
	for _, m := range []string{"/gateway_protocol.Gateway/Topology", "/jobwire.stream.v1.StreamControlService/ReleaseUnread"} {
		if code, msg, ran := unary(t, a.Unary, m, ""); code != codes.Unauthenticated || ran || !strings.Contains(msg, "bearer token") {
			t.Fatalf("%s without a token: %v %q (handler ran: %v)", m, code, msg, ran)
		}
		if code, _, ran := unary(t, a.Unary, m, "Basic abc"); code != codes.Unauthenticated || ran {
			t.Fatalf("%s with a non-bearer header: %v (handler ran: %v)", m, code, ran)
		}
		if code, msg, ran := unary(t, a.Unary, m, "Bearer x.y.z"); code != codes.Unauthenticated || ran || !strings.HasPrefix(msg, "Expected a valid token, but") {
			t.Fatalf("%s with a bad token: %v %q (handler ran: %v)", m, code, msg, ran)
		}
		if code, _, ran := unary(t, a.Unary, m, "bearer "+tok); code != codes.OK || !ran {
			t.Fatalf("%s with a good token: %v (handler ran: %v)", m, code, ran)
		}
	}
	// Health is open; the admin API has its own guard.
	for _, m := range []string{"/grpc.health.v1.Health/Check", "/" + AdminService + "/ClearFaults"} {
		if code, _, ran := unary(t, a.Unary, m, ""); code != codes.OK || !ran {
			t.Fatalf("%s without a token: %v, want it passed on", m, code)
		}
	}
}

func TestAdminGuard(t *testing.T) {
	admin := "/" + AdminService + "/ClearFaults"
	g := &AdminGuard{Token: "0123456789abcdef"}
	if code, _, ran := unary(t, g.Unary, admin, ""); code != codes.Unauthenticated || ran {
		t.Fatalf("admin without a token: %v", code)
	}
	if code, msg, ran := unary(t, g.Unary, admin, "Bearer 0123456789abcdeX"); code != codes.Unauthenticated || ran || !strings.Contains(msg, "wrong token") {
		t.Fatalf("admin with a wrong token: %v %q", code, msg)
	}
	if code, _, ran := unary(t, g.Unary, admin, "Bearer 0123456789abcdef"); code != codes.OK || !ran {
		t.Fatalf("admin with the token: %v", code)
	}
	if code, _, ran := unary(t, g.Unary, "/gateway_protocol.Gateway/Topology", ""); code != codes.OK || !ran {
		t.Fatalf("the guard checked a Gateway call: %v", code)
	}
	off := &AdminGuard{Off: true}
	if code, msg, _ := unary(t, off.Unary, admin, "Bearer anything"); code != codes.Unauthenticated || !strings.Contains(msg, "admin API is off") {
		t.Fatalf("admin next to an authenticated gateway without a token: %v %q", code, msg)
	}
	open := &AdminGuard{}
	if code, _, ran := unary(t, open.Unary, admin, ""); code != codes.OK || !ran {
		t.Fatalf("admin next to an open gateway: %v", code)
	}
}

func TestLoadAdminToken(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "token")
	os.WriteFile(p, []byte("  0123456789abcdef\n"), 0o600)
	if tok, err := LoadAdminToken(p); err != nil || tok != "0123456789abcdef" {
		t.Fatalf("LoadAdminToken = %q, %v", tok, err)
	}
	os.WriteFile(p, []byte("short\n"), 0o600)
	if _, err := LoadAdminToken(p); err == nil {
		t.Fatal("a 5-character admin token was accepted")
	}
	if _, err := LoadAdminToken(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("a missing token file was accepted")
	}
}
