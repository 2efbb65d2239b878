// The control API (HTTP): one handler per fault; see main.go for the list.

package main

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"golang.org/x/net/http2"
)

func (p *proxy) controlHandler() http.Handler {
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	num := func(r *http.Request, k string, def int) int {
		if v := r.URL.Query().Get(k); v != "" {
			if n, err := strconv.Atoi(v); err == nil {
				return n
			}
		}
		return def
	}
	method := func(r *http.Request, def string) string {
		if v := r.URL.Query().Get("method"); v != "" {
			return v
		}
		return def
	}
	mux.HandleFunc("/stats", func(w http.ResponseWriter, r *http.Request) { reply(w, p.stats()) })
	mux.HandleFunc("/goaway", func(w http.ResponseWriter, r *http.Request) {
		closeAfter := r.URL.Query().Get("close") != "false"
		// debug: the GOAWAY's debug data; "too_many_pings" with code 11
		// (ENHANCE_YOUR_CALM) is what a gRPC server sends to a client that
		// pings more often than its keepalive policy allows.
		debug := r.URL.Query().Get("debug")
		if debug == "" {
			debug = "jwproxy goaway"
		}
		n := p.goaway(time.Duration(num(r, "grace_ms", 200))*time.Millisecond, http2.ErrCode(num(r, "code", 0)),
			debug, closeAfter)
		reply(w, map[string]any{"connections": n})
	})
	mux.HandleFunc("/rst", func(w http.ResponseWriter, r *http.Request) {
		reply(w, map[string]any{"streams": p.rst(method(r, ""), http2.ErrCode(num(r, "code", int(http2.ErrCodeCancel))))})
	})
	mux.HandleFunc("/end", func(w http.ResponseWriter, r *http.Request) {
		reply(w, map[string]any{"streams": p.end(method(r, "StreamActivatedJobs"))})
	})
	mux.HandleFunc("/pings", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.localPings = r.URL.Query().Get("local") == "true"
		p.mu.Unlock()
		reply(w, map[string]any{"local": r.URL.Query().Get("local") == "true"})
	})
	mux.HandleFunc("/blackhole", func(w http.ResponseWriter, r *http.Request) {
		reply(w, map[string]any{"connections": p.blackhole(r.URL.Query().Get("method"))})
	})
	mux.HandleFunc("/stall", func(w http.ResponseWriter, r *http.Request) {
		m := method(r, "StreamActivatedJobs")
		n := -1
		if r.URL.Query().Get("existing") == "true" {
			n = p.stallExisting(m)
		} else {
			p.mu.Lock()
			p.stall[m] = true
			p.mu.Unlock()
		}
		if ms := num(r, "ms", 0); ms > 0 {
			time.AfterFunc(time.Duration(ms)*time.Millisecond, p.unstall)
		}
		reply(w, map[string]any{"stalled": m, "streams": n})
	})
	mux.HandleFunc("/unstall", func(w http.ResponseWriter, r *http.Request) {
		p.unstall()
		reply(w, map[string]any{})
	})
	mux.HandleFunc("/delay", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.delay = time.Duration(num(r, "ms", 0)) * time.Millisecond
		p.mu.Unlock()
		reply(w, map[string]any{})
	})
	mux.HandleFunc("/drop", func(w http.ResponseWriter, r *http.Request) {
		cs := p.snapshotConns()
		for _, c := range cs {
			c.close()
		}
		reply(w, map[string]any{"connections": len(cs)})
	})
	mux.HandleFunc("/unimplemented", func(w http.ResponseWriter, r *http.Request) {
		m := method(r, "StreamActivatedJobs")
		p.mu.Lock()
		p.unimplemented[m] = num(r, "count", -1)
		p.mu.Unlock()
		reply(w, map[string]any{"method": m})
	})
	mux.HandleFunc("/clear", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.delay = 0
		p.unimplemented = map[string]int{}
		p.mu.Unlock()
		p.unstall()
		reply(w, map[string]any{})
	})
	mux.HandleFunc("/upstream", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.upstream = r.URL.Query().Get("addr")
		p.mu.Unlock()
		reply(w, map[string]any{})
	})
	return mux
}
