package jobwire

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func withEnv(t *testing.T, env map[string]string) {
	t.Helper()
	old := lookupEnv
	lookupEnv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	t.Cleanup(func() { lookupEnv = old })
}

func TestConfigDefaults(t *testing.T) {
	withEnv(t, nil)
	var c clientConfig
	if err := c.fromEnv(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.addresses, []string{"127.0.0.1:26500"}) || !*c.insecure || c.oauth != nil || c.keepAlive != 45*time.Second {
		t.Fatalf("defaults: %+v insecure=%v", c, *c.insecure)
	}
}

func TestConfigFromEnv(t *testing.T) {
	withEnv(t, map[string]string{
		"ZEEBE_ADDRESS":                  "gw1.example.com:26500, gw2.example.com:26500",
		"ZEEBE_CLIENT_ID":                "id",
		"ZEEBE_CLIENT_SECRET":            "secret",
		"ZEEBE_AUTHORIZATION_SERVER_URL": "https://login.example.com/oauth/token",
		"ZEEBE_TOKEN_AUDIENCE":           "zeebe-api",
	})
	var c clientConfig
	if err := c.fromEnv(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.addresses, []string{"gw1.example.com:26500", "gw2.example.com:26500"}) {
		t.Fatalf("addresses %v", c.addresses)
	}
	if *c.insecure {
		t.Fatal("remote address must default to TLS")
	}
	want := OAuthOptions{ClientID: "id", ClientSecret: "secret", AuthorizationServerURL: "https://login.example.com/oauth/token", Audience: "zeebe-api"}
	if c.oauth == nil || *c.oauth != want {
		t.Fatalf("oauth %+v", c.oauth)
	}
}

func TestConfigPrecedenceAndTwins(t *testing.T) {
	withEnv(t, map[string]string{
		"ZEEBE_GRPC_ADDRESS":        "grpcs://gw.local:443",
		"ZEEBE_ADDRESS":             "ignored:1",
		"ZEEBE_INSECURE_CONNECTION": "true", // scheme wins over the env flag
		"CAMUNDA_CLIENT_ID":         "cid",
		"CAMUNDA_CLIENT_SECRET":     "sec",
		"CAMUNDA_OAUTH_URL":         "http://127.0.0.1:1/token",
	})
	var c clientConfig
	if err := c.fromEnv(); err != nil {
		t.Fatal(err)
	}
	if c.addresses[0] != "gw.local:443" || *c.insecure {
		t.Fatalf("addresses %v insecure %v", c.addresses, *c.insecure)
	}
	if c.oauth == nil || c.oauth.ClientID != "cid" || c.oauth.AuthorizationServerURL != "http://127.0.0.1:1/token" {
		t.Fatalf("oauth %+v", c.oauth)
	}
	// Options win over the environment.
	c = clientConfig{}
	WithAddress("127.0.0.1:9")(&c)
	WithInsecure(false)(&c)
	if err := c.fromEnv(); err != nil {
		t.Fatal(err)
	}
	if c.addresses[0] != "127.0.0.1:9" || *c.insecure {
		t.Fatalf("options lost: %v %v", c.addresses, *c.insecure)
	}
}

func TestConfigInvalidInsecureFlag(t *testing.T) {
	withEnv(t, map[string]string{"ZEEBE_INSECURE_CONNECTION": "maybe"})
	var c clientConfig
	if err := c.fromEnv(); err == nil {
		t.Fatal("want an error for ZEEBE_INSECURE_CONNECTION=maybe")
	}
}

func TestOAuthTokenCachedAndRefreshed(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		if r.Form.Get("grant_type") != "client_credentials" || r.Form.Get("client_id") != "id" || r.Form.Get("audience") != "aud" {
			http.Error(w, "bad form", 400)
			return
		}
		n := calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"access_token":"tok` + string(rune('0'+n)) + `","expires_in":3600,"token_type":"Bearer"}`))
	}))
	defer srv.Close()
	ts := newTokenSource(OAuthOptions{ClientID: "id", ClientSecret: "s", AuthorizationServerURL: srv.URL, Audience: "aud"})
	ctx := context.Background()
	md := func(ctx context.Context) (map[string]string, error) {
		tok, err := ts.get(ctx)
		return map[string]string{"authorization": "Bearer " + tok}, err
	}
	for i := 0; i < 5; i++ {
		md, err := md(ctx)
		if err != nil || md["authorization"] != "Bearer tok1" {
			t.Fatalf("md %v err %v", md, err)
		}
	}
	if calls.Load() != 1 {
		t.Fatalf("token fetched %d times, want 1 (cached)", calls.Load())
	}
	ts.invalidate("tok1")
	m, _ := md(ctx)
	if m["authorization"] != "Bearer tok2" {
		t.Fatalf("after invalidate: %v", m)
	}
	// A token about to expire is refreshed before use.
	ts.mu.Lock()
	ts.expires = time.Now().Add(-time.Second)
	ts.mu.Unlock()
	m, _ = md(ctx)
	if m["authorization"] != "Bearer tok3" {
		t.Fatalf("expired token not refreshed: %v", m)
	}
}

// Rule 6: environment handling shared with the other SDKs.
func TestEnvHandlingSharedWithOtherSDKs(t *testing.T) {
	withEnv(t, map[string]string{"ZEEBE_ADDRESS": "gw.example.com", "ZEEBE_INSECURE_CONNECTION": "yes", "CAMUNDA_KEEP_ALIVE": "30000"})
	var c clientConfig
	if err := c.fromEnv(); err != nil {
		t.Fatal(err)
	}
	if c.addresses[0] != "gw.example.com:26500" || !*c.insecure || c.keepAlive != 30*time.Second {
		t.Fatalf("%+v insecure=%v", c, *c.insecure)
	}
	withEnv(t, map[string]string{"ZEEBE_INSECURE_CONNECTION": "maybe"})
	c = clientConfig{}
	if err := c.fromEnv(); err == nil {
		t.Fatal("an invalid boolean was accepted")
	}
	withEnv(t, map[string]string{"ZEEBE_CLIENT_SECRET": "s"})
	c = clientConfig{}
	if err := c.fromEnv(); err == nil || !strings.Contains(err.Error(), "ZEEBE_CLIENT_ID") {
		t.Fatalf("incomplete OAuth env: %v", err)
	}
	withEnv(t, map[string]string{"ZEEBE_CLIENT_ID": "i", "ZEEBE_CLIENT_SECRET": "s", "CAMUNDA_AUTHORIZATION_SERVER_URL": "http://127.0.0.1:1/token"})
	c = clientConfig{}
	if err := c.fromEnv(); err != nil || c.oauth.AuthorizationServerURL != "http://127.0.0.1:1/token" {
		t.Fatalf("oauth %+v err %v", c.oauth, err)
	}
}

// Mutual TLS: client certificate and key from the environment (same names
// as the other SDKs), both or neither, and never with plaintext.
func TestConfigClientCertificate(t *testing.T) {
	withEnv(t, map[string]string{"ZEEBE_ADDRESS": "127.0.0.1:26500",
		"ZEEBE_CLIENT_CERTIFICATE_PATH": "/c.pem", "CAMUNDA_CLIENT_PRIVATE_KEY_PATH": "/k.pem"})
	var c clientConfig
	if err := c.fromEnv(); err != nil {
		t.Fatal(err)
	}
	if c.clientCertPath != "/c.pem" || c.clientKeyPath != "/k.pem" || *c.insecure {
		t.Fatalf("client cert %q key %q insecure %v (a client certificate implies TLS, even on loopback)", c.clientCertPath, c.clientKeyPath, *c.insecure)
	}
	withEnv(t, map[string]string{"ZEEBE_CLIENT_CERTIFICATE_PATH": "/c.pem"})
	c = clientConfig{}
	if err := c.fromEnv(); err == nil || !strings.Contains(err.Error(), "ZEEBE_CLIENT_PRIVATE_KEY_PATH") {
		t.Fatalf("certificate without key: %v", err)
	}
	withEnv(t, map[string]string{"ZEEBE_CLIENT_CERTIFICATE_PATH": "/c.pem", "ZEEBE_CLIENT_PRIVATE_KEY_PATH": "/k.pem", "ZEEBE_INSECURE_CONNECTION": "true"})
	c = clientConfig{}
	if err := c.fromEnv(); err == nil || !strings.Contains(err.Error(), "plaintext") {
		t.Fatalf("certificate with plaintext: %v", err)
	}
	withEnv(t, map[string]string{"ZEEBE_CLIENT_CERTIFICATE_PATH": "/env.pem", "ZEEBE_CLIENT_PRIVATE_KEY_PATH": "/env.key"})
	c = clientConfig{}
	WithClientCertificate("/opt.pem", "/opt.key")(&c)
	if err := c.fromEnv(); err != nil || c.clientCertPath != "/opt.pem" || c.clientKeyPath != "/opt.key" {
		t.Fatalf("the option must win over the environment: %q %q %v", c.clientCertPath, c.clientKeyPath, err)
	}
	_, err := NewClient(context.Background(), WithAddress("127.0.0.1:1"), WithClientCertificate("/nonexistent.pem", "/nonexistent.key"))
	if err == nil || !strings.Contains(err.Error(), "client certificate") {
		t.Fatalf("a missing certificate file must fail clearly: %v", err)
	}
}
