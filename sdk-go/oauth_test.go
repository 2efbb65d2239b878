package jobwire

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/jobwire/jobwire/sdk-go/internal/fakegw"
)

// The gateway refuses a token that is still cached (e.g. revoked): the client
// fetches a new one and retries the call once.
func TestOAuthRetryOnceAfterUnauthenticated(t *testing.T) {
	var issued atomic.Int32
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := issued.Add(1)
		fmt.Fprintf(w, `{"access_token":"tok%d","expires_in":3600}`, n)
	}))
	defer tokens.Close()
	var mu sync.Mutex
	var seen []string
	revoked := map[string]bool{"Bearer tok1": true}
	auth := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		md, _ := metadata.FromIncomingContext(ctx)
		got := ""
		if v := md.Get("authorization"); len(v) > 0 {
			got = v[0]
		}
		mu.Lock()
		seen = append(seen, got)
		bad := got == "" || revoked[got]
		mu.Unlock()
		if bad {
			return nil, status.Error(codes.Unauthenticated, "token refused")
		}
		return h(ctx, req)
	}
	gw := fakegw.Start(t, grpc.UnaryInterceptor(auth))
	c, err := NewClient(context.Background(), WithAddress(gw.Addr), WithLogger(testLogger()),
		WithOAuth(OAuthOptions{ClientID: "id", ClientSecret: "s", AuthorizationServerURL: tokens.URL}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Topology(context.Background()); err != nil {
		t.Fatalf("call not retried with a fresh token: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0] != "Bearer tok1" || seen[1] != "Bearer tok2" {
		t.Fatalf("authorization headers %v", seen)
	}
	// Only one retry: a gateway that refuses every token yields UnauthenticatedError.
	revoked["Bearer tok2"], revoked["Bearer tok3"] = true, true
	mu.Unlock()
	_, err = c.Topology(context.Background())
	mu.Lock()
	var ue *UnauthenticatedError
	if !errors.As(err, &ue) || issued.Load() != 3 {
		t.Fatalf("err %v, tokens issued %d", err, issued.Load())
	}
}
