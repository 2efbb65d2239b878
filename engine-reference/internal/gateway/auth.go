package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// Auth is a mock OAuth 2.0 client-credentials server plus the bearer-token
// check for gateway RPCs. Tokens are opaque random strings; the engine
// remembers when each expires. Token requests are counted in the request
// counts under method "oauth/token" (peer = client address).
type Auth struct {
	ClientID, ClientSecret string
	TTL                    time.Duration
	faults                 *Faults
	mu                     sync.Mutex
	tokens                 map[string]time.Time
	srv                    *http.Server
	URL                    string
}

// NewAuth creates the token store.
func NewAuth(id, secret string, ttl time.Duration, f *Faults) *Auth {
	return &Auth{ClientID: id, ClientSecret: secret, TTL: ttl, faults: f, tokens: map[string]time.Time{}}
}

// Start serves POST /oauth/token on 127.0.0.1 (free port).
func (a *Auth) Start() error {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/oauth/token", a.token)
	a.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	a.URL = "http://" + lis.Addr().String() + "/oauth/token"
	go a.srv.Serve(lis)
	return nil
}

// Close stops the token endpoint.
func (a *Auth) Close() {
	if a.srv != nil {
		a.srv.Close()
	}
}

func (a *Auth) token(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	code := codes.OK
	defer func() { a.faults.Record("oauth/token", r.RemoteAddr, code, at) }()
	if r.Method != http.MethodPost {
		code = codes.InvalidArgument
		http.Error(w, `{"error":"invalid_request"}`, http.StatusMethodNotAllowed)
		return
	}
	var id, secret, grant string
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		var body map[string]string
		_ = json.NewDecoder(r.Body).Decode(&body)
		id, secret, grant = body["client_id"], body["client_secret"], body["grant_type"]
	} else {
		_ = r.ParseForm()
		id, secret, grant = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret"), r.PostForm.Get("grant_type")
	}
	if u, p, ok := r.BasicAuth(); ok && id == "" {
		id, secret = u, p
	}
	w.Header().Set("Content-Type", "application/json")
	if grant != "" && grant != "client_credentials" {
		code = codes.InvalidArgument
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":"unsupported_grant_type"}`))
		return
	}
	if id != a.ClientID || secret != a.ClientSecret {
		code = codes.Unauthenticated
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"invalid_client","error_description":"unknown client id or wrong secret"}`))
		return
	}
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	tok := hex.EncodeToString(b)
	a.mu.Lock()
	a.tokens[tok] = time.Now().Add(a.TTL)
	a.mu.Unlock()
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer",
		"expires_in": int64(a.TTL / time.Second), "scope": ""})
}

func (a *Auth) check(ctx context.Context, full string) error {
	if svc, _ := shortMethod(full); svc != gatewayService {
		return nil // health and admin stay open for tests and probes
	}
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get("authorization")
	if len(vals) == 0 {
		return status.Error(codes.Unauthenticated, "Expected bearer token at header with key [authorization], but found nothing")
	}
	v := vals[0]
	if len(v) < 7 || !strings.EqualFold(v[:7], "bearer ") {
		return status.Error(codes.Unauthenticated, "Expected bearer token in the authorization header ('Bearer <token>')")
	}
	tok := strings.TrimSpace(v[7:])
	a.mu.Lock()
	exp, ok := a.tokens[tok]
	a.mu.Unlock()
	if !ok {
		return status.Error(codes.Unauthenticated, "Expected a valid token, but the token is unknown")
	}
	if time.Now().After(exp) {
		return status.Error(codes.Unauthenticated, "Expected a valid token, but the token has expired")
	}
	return nil
}

// Unary checks tokens on unary RPCs.
func (a *Auth) Unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if err := a.check(ctx, info.FullMethod); err != nil {
		return nil, err
	}
	return h(ctx, req)
}

// Stream checks tokens on streaming RPCs.
func (a *Auth) Stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	if err := a.check(ss.Context(), info.FullMethod); err != nil {
		return err
	}
	return h(srv, ss)
}
