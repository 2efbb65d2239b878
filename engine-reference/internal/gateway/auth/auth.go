// Package auth is the gateway's authentication: bearer-JWT validation on the
// Gateway and StreamControl services, the development OAuth token endpoint,
// and the admin API's guard.
package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/subtle"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/golang-jwt/jwt/v5"
	"github.com/jobwire/jobwire/engine-reference/internal/gateway/faults"
	spb "github.com/jobwire/jobwire/engine-reference/internal/pb/streampb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// AuthConfig configures bearer-token validation on the Gateway service and
// (optionally) the development OAuth token endpoint.
//
// Tokens are JWTs, validated with github.com/golang-jwt/jwt/v5: signature
// (asymmetric algorithms only, so a public key can never be used as an HMAC
// secret), iss, aud, exp (required) and nbf/iat with Leeway.
type AuthConfig struct {
	Issuer   string        // required iss; default "jobwire-engine"
	Audience string        // required aud; default "zeebe-api"
	Leeway   time.Duration // clock skew allowed on exp/nbf/iat; default 5 s

	// Verification keys: a PEM public key (or certificate) file and/or a
	// JWKS file. With neither, the token endpoint's own key verifies.
	PublicKeyFile string
	JWKSFile      string

	// Endpoint starts the development token endpoint (OAuth 2.0 client
	// credentials) on 127.0.0.1, issuing ES256 JWTs that live TTL.
	Endpoint               bool
	ClientID, ClientSecret string
	TTL                    time.Duration
	// SigningKeyFile is the PEM private key the endpoint signs with
	// (EC P-256); empty = a fresh key per process. Gateways of one cluster
	// share it so a token from one is valid at every other.
	SigningKeyFile string
}

// Auth validates bearer JWTs on Gateway RPCs and serves the development
// token endpoint. Token requests are counted in the request counts under
// method "oauth/token" (peer = client address) and obey reject faults on
// that method (a token endpoint that is down).
type Auth struct {
	cfg    AuthConfig
	faults *faults.Faults
	signer *ecdsa.PrivateKey
	kid    string
	keys   map[string]crypto.PublicKey // by kid ("" = any kid)
	parser *jwt.Parser
	srv    *http.Server
	URL    string // token endpoint (Endpoint only)
	JWKS   string // the endpoint's public keys (Endpoint only)

	mu     sync.Mutex
	issued int64
}

// validMethods are the JWT algorithms accepted: asymmetric only.
var validMethods = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// NewAuth loads the keys and prepares the validator.
func NewAuth(cfg AuthConfig, f *faults.Faults) (*Auth, error) {
	if cfg.Issuer == "" {
		cfg.Issuer = "jobwire-engine"
	}
	if cfg.Audience == "" {
		cfg.Audience = "zeebe-api"
	}
	if cfg.Leeway <= 0 {
		cfg.Leeway = 5 * time.Second
	}
	if cfg.TTL <= 0 {
		cfg.TTL = time.Minute
	}
	if cfg.ClientID == "" {
		cfg.ClientID = "jobwire"
	}
	a := &Auth{cfg: cfg, faults: f, keys: map[string]crypto.PublicKey{}}
	if cfg.PublicKeyFile != "" {
		k, err := loadPublicKey(cfg.PublicKeyFile)
		if err != nil {
			return nil, fmt.Errorf("--oauth-public-key %s: %w", cfg.PublicKeyFile, err)
		}
		a.keys[""] = k
	}
	if cfg.JWKSFile != "" {
		b, err := os.ReadFile(cfg.JWKSFile)
		if err != nil {
			return nil, fmt.Errorf("--oauth-jwks %s: %w", cfg.JWKSFile, err)
		}
		var set jose.JSONWebKeySet
		if err := json.Unmarshal(b, &set); err != nil {
			return nil, fmt.Errorf("--oauth-jwks %s: %w", cfg.JWKSFile, err)
		}
		n := 0
		for _, k := range set.Keys {
			if k.Use != "" && k.Use != "sig" || !k.Valid() {
				continue
			}
			pub := k.Public()
			if pub.Key == nil {
				continue
			}
			a.keys[k.KeyID] = pub.Key
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("--oauth-jwks %s: no usable signing keys", cfg.JWKSFile)
		}
	}
	if cfg.Endpoint {
		if cfg.ClientSecret == "" {
			return nil, errors.New("the token endpoint needs a client secret")
		}
		var err error
		if cfg.SigningKeyFile != "" {
			a.signer, err = loadECKey(cfg.SigningKeyFile)
			if err != nil {
				return nil, fmt.Errorf("--oauth-signing-key %s: %w", cfg.SigningKeyFile, err)
			}
		} else if a.signer, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			return nil, err
		}
		der, _ := x509.MarshalPKIXPublicKey(&a.signer.PublicKey)
		sum := jwtKID(der)
		a.kid = sum
		a.keys[a.kid] = &a.signer.PublicKey
	}
	if len(a.keys) == 0 {
		return nil, errors.New("token validation needs a key: --oauth (token endpoint), --oauth-public-key or --oauth-jwks")
	}
	a.parser = jwt.NewParser(jwt.WithValidMethods(validMethods), jwt.WithIssuer(cfg.Issuer),
		jwt.WithAudience(cfg.Audience), jwt.WithLeeway(cfg.Leeway), jwt.WithExpirationRequired(), jwt.WithIssuedAt())
	return a, nil
}

func jwtKID(der []byte) string {
	h := crypto.SHA256.New()
	h.Write(der)
	return hex.EncodeToString(h.Sum(nil)[:8])
}

func loadPublicKey(path string) (crypto.PublicKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, errors.New("not PEM")
	}
	switch blk.Type {
	case "CERTIFICATE":
		c, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			return nil, err
		}
		return c.PublicKey, nil
	case "RSA PUBLIC KEY":
		return x509.ParsePKCS1PublicKey(blk.Bytes)
	default:
		k, err := x509.ParsePKIXPublicKey(blk.Bytes)
		if err != nil {
			return nil, err
		}
		switch k.(type) {
		case *rsa.PublicKey, *ecdsa.PublicKey, ed25519.PublicKey:
			return k, nil
		}
		return nil, fmt.Errorf("unsupported key type %T", k)
	}
}

func loadECKey(path string) (*ecdsa.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, errors.New("not PEM")
	}
	if k, err := x509.ParseECPrivateKey(blk.Bytes); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
	if err != nil {
		return nil, err
	}
	ec, ok := k.(*ecdsa.PrivateKey)
	if !ok || ec.Curve != elliptic.P256() {
		return nil, errors.New("want an EC P-256 private key")
	}
	return ec, nil
}

// WriteSigningKey writes a fresh EC P-256 key (PEM) for SigningKeyFile.
func WriteSigningKey(path string) error {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		return err
	}
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600)
}

// Start serves POST /oauth/token and GET /.well-known/jwks.json on
// 127.0.0.1 (free port). Without Endpoint it does nothing.
func (a *Auth) Start() error {
	if !a.cfg.Endpoint {
		return nil
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/oauth/token", a.token)
	mux.HandleFunc("/.well-known/jwks.json", a.jwks)
	a.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	a.URL = "http://" + lis.Addr().String() + "/oauth/token"
	a.JWKS = "http://" + lis.Addr().String() + "/.well-known/jwks.json"
	go a.srv.Serve(lis)
	return nil
}

// Close stops the token endpoint.
func (a *Auth) Close() {
	if a.srv != nil {
		a.srv.Close()
	}
}

// Issued is the number of tokens the endpoint has issued.
func (a *Auth) Issued() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.issued
}

func (a *Auth) jwks(w http.ResponseWriter, r *http.Request) {
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &a.signer.PublicKey, KeyID: a.kid, Algorithm: "ES256", Use: "sig"}}}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(set)
}

const maxTokenRequest = 64 << 10

func (a *Auth) token(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	code := codes.OK
	defer func() { a.faults.Record("oauth/token", r.RemoteAddr, code, at) }()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if c, _, ok := a.faults.TakeReject("oauth/token", 0); ok {
		// A token endpoint that is down (injected fault).
		code = c
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"error":"temporarily_unavailable"}`))
		return
	}
	if r.Method != http.MethodPost {
		code = codes.InvalidArgument
		w.WriteHeader(http.StatusMethodNotAllowed)
		w.Write([]byte(`{"error":"invalid_request"}`))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxTokenRequest)
	var id, secret, grant, aud string
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		str := func(k string) string { s, _ := body[k].(string); return s }
		id, secret, grant, aud = str("client_id"), str("client_secret"), str("grant_type"), str("audience")
	} else {
		_ = r.ParseForm()
		id, secret, grant, aud = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret"), r.PostForm.Get("grant_type"), r.PostForm.Get("audience")
	}
	if u, p, ok := r.BasicAuth(); ok && id == "" {
		id, secret = u, p
	}
	if grant != "" && grant != "client_credentials" {
		code = codes.InvalidArgument
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":"unsupported_grant_type"}`))
		return
	}
	idOK := subtle.ConstantTimeCompare([]byte(id), []byte(a.cfg.ClientID)) == 1
	secretOK := subtle.ConstantTimeCompare([]byte(secret), []byte(a.cfg.ClientSecret)) == 1
	if !idOK || !secretOK {
		code = codes.Unauthenticated
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"invalid_client","error_description":"unknown client id or wrong secret"}`))
		return
	}
	if aud == "" {
		aud = a.cfg.Audience
	}
	// The token names the audience the client asked for: a client that
	// asks for another audience gets a token the gateway rejects.
	tok, err := a.Sign(jwt.MapClaims{"sub": id, "aud": aud, "azp": id}, a.cfg.TTL)
	if err != nil {
		code = codes.Internal
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"error":"server_error"}`))
		return
	}
	a.mu.Lock()
	a.issued++
	a.mu.Unlock()
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer",
		"expires_in": int64(a.cfg.TTL / time.Second), "scope": ""})
}

// Sign issues a JWT with the endpoint's key: claims plus iss, iat, nbf,
// exp = now + ttl and a random jti (development endpoint and tests).
func (a *Auth) Sign(claims jwt.MapClaims, ttl time.Duration) (string, error) {
	if a.signer == nil {
		return "", errors.New("no signing key (token endpoint off)")
	}
	now := time.Now()
	// NumericDates are whole seconds: round exp up, so a token lives at
	// least ttl (truncating would cut a 1 s token to anything in 0..1 s and
	// an SDK refreshing at 80 % of expires_in would send expired tokens).
	exp := now.Add(ttl)
	expUnix := exp.Unix()
	if exp.Nanosecond() > 0 {
		expUnix++
	}
	// After an ExpireTokens fault, tokens issued at or before its cutoff
	// second count as expired. A client that fetches a new token within that
	// same second must still get a valid one (a quick refresh is what a
	// good client does), so iat moves to the next second: less than a
	// second ahead, inside the validators' leeway.
	iat := now.Unix()
	if upTo := a.faults.TokensExpiredUpTo(); iat <= upTo {
		iat = upTo + 1
	}
	c := jwt.MapClaims{"iss": a.cfg.Issuer, "iat": iat, "nbf": now.Unix(), "exp": expUnix}
	jti := make([]byte, 12)
	_, _ = rand.Read(jti)
	c["jti"] = hex.EncodeToString(jti)
	for k, v := range claims {
		c[k] = v
	}
	t := jwt.NewWithClaims(jwt.SigningMethodES256, c)
	t.Header["kid"] = a.kid
	return t.SignedString(a.signer)
}

func (a *Auth) keyFor(t *jwt.Token) (any, error) {
	kid, _ := t.Header["kid"].(string)
	if k, ok := a.keys[kid]; ok && kid != "" {
		return k, nil
	}
	if k, ok := a.keys[""]; ok {
		return k, nil
	}
	if kid == "" && len(a.keys) == 1 {
		for _, k := range a.keys {
			return k, nil
		}
	}
	return nil, fmt.Errorf("no key with kid %q", kid)
}

// Validate checks a bearer token; the error says why it was refused (never
// echoing the token).
func (a *Auth) Validate(tok string) error {
	if tok == "" {
		return errors.New("empty token")
	}
	if len(tok) > 16<<10 {
		return errors.New("token too large")
	}
	t, err := a.parser.Parse(tok, a.keyFor)
	if err == nil {
		if upTo := a.faults.TokensExpiredUpTo(); upTo > 0 {
			// an ExpireTokens fault: tokens issued until then have expired
			iat, ierr := t.Claims.GetIssuedAt()
			if ierr != nil || iat == nil || iat.Unix() <= upTo {
				return errors.New("the token has expired")
			}
		}
		return nil
	}
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return errors.New("the token has expired")
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return errors.New("the token is not valid yet")
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return fmt.Errorf("the token's audience is not %q", a.cfg.Audience)
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return fmt.Errorf("the token's issuer is not %q", a.cfg.Issuer)
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return fmt.Errorf("the token lacks a required claim (%v)", err)
	case errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, jwt.ErrTokenUnverifiable):
		return errors.New("the token's signature is invalid")
	case errors.Is(err, jwt.ErrTokenMalformed):
		return errors.New("the token is malformed")
	}
	return errors.New("the token is invalid")
}

func bearer(ctx context.Context) (string, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get("authorization")
	if len(vals) == 0 {
		return "", status.Error(codes.Unauthenticated, "Expected bearer token at header with key [authorization], but found nothing")
	}
	v := vals[0]
	if len(v) < 7 || !strings.EqualFold(v[:7], "bearer ") {
		return "", status.Error(codes.Unauthenticated, "Expected bearer token in the authorization header ('Bearer <token>')")
	}
	return strings.TrimSpace(v[7:]), nil
}

func (a *Auth) check(ctx context.Context, full string) error {
	if svc, _ := faults.ShortMethod(full); svc != faults.GatewayService && svc != spb.StreamControlService_ServiceDesc.ServiceName {
		return nil // health: open; admin: its own guard (AdminGuard)
	}
	tok, err := bearer(ctx)
	if err != nil {
		return err
	}
	if err := a.Validate(tok); err != nil {
		return status.Error(codes.Unauthenticated, "Expected a valid token, but "+err.Error())
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

// AdminService is the full name of the admin service.
const AdminService = "jobwire.admin.v1.AdminService"

// AdminGuard protects the admin API. With a token, every admin call needs
// `authorization: Bearer <token>`. Without one the admin API is open only
// when the gateway itself is open (Off false); next to an authenticated
// gateway it is off (Off true).
type AdminGuard struct {
	Token string
	Off   bool
}

// LoadAdminToken reads an admin token file (surrounding whitespace ignored;
// at least 16 characters).
func LoadAdminToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("--admin-token-file: %w", err)
	}
	t := strings.TrimSpace(string(b))
	if len(t) < 16 {
		return "", fmt.Errorf("--admin-token-file %s: the token must have at least 16 characters", path)
	}
	return t, nil
}

func (g *AdminGuard) check(ctx context.Context, full string) error {
	if svc, _ := faults.ShortMethod(full); svc != AdminService {
		return nil
	}
	if g.Token == "" {
		if g.Off {
			return status.Error(codes.Unauthenticated, "the admin API is off: the gateway requires authentication and no admin token was configured (--admin-token-file)")
		}
		return nil
	}
	tok, err := bearer(ctx)
	if err != nil {
		return status.Error(codes.Unauthenticated, "the admin API requires the admin token (authorization: Bearer <admin token>)")
	}
	if subtle.ConstantTimeCompare([]byte(tok), []byte(g.Token)) != 1 {
		return status.Error(codes.Unauthenticated, "the admin API requires the admin token: wrong token")
	}
	return nil
}

// Unary guards unary admin RPCs.
func (g *AdminGuard) Unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if err := g.check(ctx, info.FullMethod); err != nil {
		return nil, err
	}
	return h(ctx, req)
}

// Stream guards streaming admin RPCs.
func (g *AdminGuard) Stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	if err := g.check(ss.Context(), info.FullMethod); err != nil {
		return err
	}
	return h(srv, ss)
}

// PublicKeyPEM is the token endpoint's verification key (PEM, PKIX), for
// gateways that validate the endpoint's tokens without running it; nil
// without Endpoint.
func (a *Auth) PublicKeyPEM() []byte {
	if a.signer == nil {
		return nil
	}
	der, err := x509.MarshalPKIXPublicKey(&a.signer.PublicKey)
	if err != nil {
		return nil
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}
