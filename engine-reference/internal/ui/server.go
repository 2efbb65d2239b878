package ui

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/gateway/faults"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

//go:embed static
var static embed.FS

// Authorizer decides whether a request may see the live view: nil error =
// allowed. One function, so the engine's credential check (issue 17) can
// be swapped in without touching the handlers.
type Authorizer func(r *http.Request) error

// ErrUnauthenticated is returned by an Authorizer for a missing or wrong
// credential (HTTP 401 with a Basic challenge, so a browser asks).
var ErrUnauthenticated = errors.New("unauthenticated")

// Resolver resolves an incident from the page (like Operate's "retry":
// a job incident whose job has no retries left gets 1 retry first).
type Resolver func(ctx context.Context, incidentKey int64) error

// Config configures the live view's HTTP server.
type Config struct {
	Host      string // default 127.0.0.1
	Port      int    // 0 = pick a free port
	Hub       *Hub
	Resolve   Resolver
	Authorize Authorizer // nil = open (auth off)
}

// Server serves the page, the SSE stream and the resolve action.
type Server struct {
	cfg Config
	lis net.Listener
	srv *http.Server
}

// Serve starts the HTTP server on 127.0.0.1.
func Serve(cfg Config) (*Server, error) {
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	lis, err := net.Listen("tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)))
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, lis: lis}
	files, _ := fs.Sub(static, "static")
	mux := http.NewServeMux()
	mux.Handle("GET /", http.FileServer(http.FS(files)))
	mux.HandleFunc("GET /api/snapshot", s.snapshot)
	mux.HandleFunc("GET /api/events", s.events)
	mux.HandleFunc("POST /api/incidents/{key}/resolve", s.resolve)
	s.srv = &http.Server{Handler: s.guard(mux), ReadHeaderTimeout: 5 * time.Second}
	go s.srv.Serve(lis)
	return s, nil
}

// URL is the page's address.
func (s *Server) URL() string { return "http://" + s.lis.Addr().String() + "/" }

// Addr is host:port.
func (s *Server) Addr() string { return s.lis.Addr().String() }

// Close stops the server (the hub must be closed first to end SSE streams).
func (s *Server) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		s.srv.Close()
	}
}

// guard checks the Host header (no DNS rebinding: only loopback names) and
// the credential, and blocks cross-site POSTs (a custom header forces a
// CORS preflight, which this server never answers).
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if host != "127.0.0.1" && host != "localhost" && host != "[::1]" && host != "::1" {
			http.Error(w, "the live view answers only on loopback names", http.StatusMisdirectedRequest)
			return
		}
		if s.cfg.Authorize != nil {
			if err := s.cfg.Authorize(r); err != nil {
				w.Header().Set("WWW-Authenticate", `Basic realm="jobwire-engine", charset="UTF-8"`)
				http.Error(w, "unauthenticated: "+err.Error(), http.StatusUnauthorized)
				return
			}
		}
		if r.Method == http.MethodPost && r.Header.Get("X-Jobwire-UI") != "1" {
			http.Error(w, "missing X-Jobwire-UI header", http.StatusForbidden)
			return
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; img-src 'self' data:")
		next.ServeHTTP(w, r)
	})
}

func (s *Server) snapshot(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	snap := s.cfg.Hub.Snapshot()
	if s.cfg.Hub.tables != nil {
		if t, err := s.cfg.Hub.tables(r.Context()); err == nil {
			snap.Tables = t
		}
	}
	_ = json.NewEncoder(w).Encode(snap)
}

// KeepAlive is how often an idle SSE stream gets a comment line.
const KeepAlive = 15 * time.Second

func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	v, first := s.cfg.Hub.subscribe()
	defer s.cfg.Hub.unsubscribe(v)
	write := func(b []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if _, err := w.Write(b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !write(append([]byte("retry: 1000\n\n"), first...)) {
		return
	}
	ka := time.NewTicker(KeepAlive)
	defer ka.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-ka.C:
			if !write([]byte(": keep-alive\n\n")) {
				return
			}
		case msg, ok := <-v.ch:
			if !ok {
				return
			}
			var out []byte
			if msg == nil || v.resync.Load() {
				if out = s.cfg.Hub.resnapshot(v); out == nil {
					return
				}
			} else {
				out = msg
			more: // coalesce what is already queued into one write
				for len(out) < 1<<20 {
					select {
					case m, ok := <-v.ch:
						if !ok || m == nil {
							break more
						}
						out = append(out, m...)
					default:
						break more
					}
				}
			}
			if !write(out) {
				return
			}
		}
	}
}

func (s *Server) resolve(w http.ResponseWriter, r *http.Request) {
	key, err := strconv.ParseInt(r.PathValue("key"), 10, 64)
	w.Header().Set("Content-Type", "application/json")
	if err != nil || key <= 0 {
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "incident key must be a positive integer"})
		return
	}
	if s.cfg.Resolve == nil {
		w.WriteHeader(http.StatusNotImplemented)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "resolving is not available here"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	if err := s.cfg.Resolve(ctx, key); err != nil {
		st := status.Convert(err)
		code := http.StatusInternalServerError
		switch st.Code() {
		case codes.NotFound:
			code = http.StatusNotFound
		case codes.FailedPrecondition, codes.InvalidArgument:
			code = http.StatusConflict
		case codes.Unavailable, codes.DeadlineExceeded, codes.ResourceExhausted:
			code = http.StatusServiceUnavailable
		}
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": st.Message(), "code": faults.CodeName(st.Code())})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"resolved": strconv.FormatInt(key, 10)})
}
