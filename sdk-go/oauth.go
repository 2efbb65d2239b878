package jobwire

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// OAuthOptions is an OAuth 2.0 client-credentials grant. The token is fetched
// from AuthorizationServerURL, cached, refreshed before it expires, and
// refreshed once more (with the call retried) when the gateway answers
// UNAUTHENTICATED.
type OAuthOptions struct {
	ClientID               string
	ClientSecret           string
	AuthorizationServerURL string       // token endpoint, e.g. https://login.example.com/oauth/token
	Audience               string       // optional
	Scope                  string       // optional
	HTTPClient             *http.Client // default: a client with a 10 s timeout
}

// tokenSource caches the access token.
type tokenSource struct {
	cfg      OAuthOptions
	mu       sync.Mutex
	token    string
	expires  time.Time
	inflight chan struct{}
}

func newTokenSource(cfg OAuthOptions) *tokenSource {
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	return &tokenSource{cfg: cfg}
}

// refreshMargin: a token is renewed when less than this is left (or a fifth of
// its lifetime, for short-lived tokens).
const refreshMargin = 30 * time.Second

func (t *tokenSource) get(ctx context.Context) (string, error) {
	for {
		t.mu.Lock()
		if t.token != "" && time.Now().Before(t.expires) {
			tok := t.token
			t.mu.Unlock()
			return tok, nil
		}
		if wait := t.inflight; wait != nil { // one fetch at a time
			t.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
		done := make(chan struct{})
		t.inflight = done
		t.mu.Unlock()
		tok, ttl, err := t.fetch(ctx)
		t.mu.Lock()
		t.inflight = nil
		if err == nil {
			margin := refreshMargin
			if ttl/5 < margin {
				margin = ttl / 5
			}
			t.token, t.expires = tok, time.Now().Add(ttl-margin)
		}
		t.mu.Unlock()
		close(done)
		if err != nil {
			return "", err
		}
		return tok, nil
	}
}

// invalidate drops the cached token if it is still the one that was refused.
func (t *tokenSource) invalidate(refused string) {
	t.mu.Lock()
	if t.token == refused {
		t.token = ""
	}
	t.mu.Unlock()
}

func (t *tokenSource) fetch(ctx context.Context) (string, time.Duration, error) {
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {t.cfg.ClientID}, "client_secret": {t.cfg.ClientSecret}}
	if t.cfg.Audience != "" {
		form.Set("audience", t.cfg.Audience)
	}
	if t.cfg.Scope != "" {
		form.Set("scope", t.cfg.Scope)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.cfg.AuthorizationServerURL, strings.NewReader(form.Encode()))
	if err != nil {
		return "", 0, fmt.Errorf("jobwire: oauth: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := t.cfg.HTTPClient.Do(req)
	if err != nil {
		return "", 0, fmt.Errorf("jobwire: oauth token request: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", 0, fmt.Errorf("jobwire: oauth token response: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return "", 0, fmt.Errorf("jobwire: oauth token endpoint answered %s: %.200s", resp.Status, body)
	}
	var tr struct {
		AccessToken string          `json:"access_token"`
		ExpiresIn   json.RawMessage `json:"expires_in"`
	}
	if err := json.Unmarshal(body, &tr); err != nil || tr.AccessToken == "" {
		return "", 0, fmt.Errorf("jobwire: oauth token response without access_token: %.200s", body)
	}
	ttl := 5 * time.Minute
	if n, err := json.Number(strings.Trim(string(tr.ExpiresIn), `"`)).Int64(); err == nil && n > 0 {
		ttl = time.Duration(n) * time.Second
	}
	return tr.AccessToken, ttl, nil
}

// withToken adds the bearer token to the outgoing call and returns the token.
func (t *tokenSource) withToken(ctx context.Context) (context.Context, string, error) {
	tok, err := t.get(ctx)
	if err != nil {
		return ctx, "", status.Error(codes.Unauthenticated, err.Error())
	}
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+tok), tok, nil
}

// unary authenticates a call, and retries it once with a fresh token after
// UNAUTHENTICATED (the cached token may have been revoked or expired early).
func (t *tokenSource) unary(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	actx, used, err := t.withToken(ctx)
	if err != nil {
		return err
	}
	err = invoker(actx, method, req, reply, cc, opts...)
	if status.Code(err) != codes.Unauthenticated {
		return err
	}
	t.invalidate(used)
	if actx, _, err = t.withToken(ctx); err != nil {
		return err
	}
	return invoker(actx, method, req, reply, cc, opts...)
}

// stream authenticates a stream; a refused token is dropped so that the next
// call (workers reopen streams and polls by themselves) fetches a fresh one.
func (t *tokenSource) stream(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	actx, used, err := t.withToken(ctx)
	if err != nil {
		return nil, err
	}
	s, err := streamer(actx, desc, cc, method, opts...)
	if err != nil {
		if status.Code(err) == codes.Unauthenticated {
			t.invalidate(used)
		}
		return nil, err
	}
	return &authStream{ClientStream: s, t: t, used: used}, nil
}

type authStream struct {
	grpc.ClientStream
	t    *tokenSource
	used string
}

func (s *authStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if status.Code(err) == codes.Unauthenticated {
		s.t.invalidate(s.used)
	}
	return err
}
