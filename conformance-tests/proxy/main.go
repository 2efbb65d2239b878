// Command jwproxy is the conformance suite's HTTP/2-aware fault proxy.
//
// It sits between a gRPC client (an SDK driver) and a gateway, relays HTTP/2
// frames one for one (each client connection gets its own upstream
// connection, so stream ids and flow control pass through unchanged) and, on
// command, misbehaves: GOAWAY, RST_STREAM, stalled streams (DATA held back
// while PINGs and other streams flow), request delay, dropped connections and
// synthetic UNIMPLEMENTED answers. Header blocks are decoded and re-encoded on
// each hop (literal, never indexed), so the proxy may hold, drop or inject
// header blocks without breaking either side's HPACK state.
//
// Usage: jwproxy --upstream 127.0.0.1:26500 [--listen 127.0.0.1:0] [--control 127.0.0.1:0]
// [--max-concurrent-streams N] (advertise N to clients and refuse streams beyond it)
// Prints "proxy listening on ADDR" and "control listening on ADDR"; exits
// when stdin closes. Control API (HTTP, POST unless noted):
//
//	GET  /stats                            counters as JSON
//	POST /goaway?grace_ms=200&code=0&close=true&debug=too_many_pings
//	POST /rst?method=StreamActivatedJobs&code=8
//	POST /end?method=StreamActivatedJobs      end open calls cleanly (grpc-status 0)
//	POST /pings?local=true                 answer client PINGs in the proxy (never forwarded)
//	POST /blackhole?method=StreamActivatedJobs   drop every frame of the connections open now
//	     (those carrying a call of method, if given), PINGs too; TCP stays up
//	POST /stall?method=StreamActivatedJobs&ms=0&existing=false
//	     (ms 0: until /unstall; existing=true: only streams open now)
//	POST /unstall
//	POST /delay?ms=100                     delay each new request
//	POST /drop                             close every connection now
//	POST /unimplemented?method=StreamActivatedJobs&count=-1
//	POST /clear                            remove every fault (unstalls)
//	POST /upstream?addr=HOST:PORT
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
)

func main() {
	upstream := flag.String("upstream", "", "gateway address HOST:PORT")
	listen := flag.String("listen", "127.0.0.1:0", "proxy listen address")
	control := flag.String("control", "127.0.0.1:0", "control API listen address")
	maxStreams := flag.Int("max-concurrent-streams", 0, "advertise at most this SETTINGS_MAX_CONCURRENT_STREAMS to clients and refuse streams beyond it (0: relay the gateway's)")
	flag.Parse()
	if *upstream == "" {
		fmt.Fprintln(os.Stderr, "--upstream is required")
		os.Exit(2)
	}
	log.SetOutput(os.Stdout)
	log.SetFlags(log.Lmicroseconds)
	p := newProxy(*upstream)
	p.maxStreams = uint32(*maxStreams)
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	cln, err := net.Listen("tcp", *control)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("proxy listening on %s\n", ln.Addr())
	fmt.Printf("control listening on %s\n", cln.Addr())
	go func() { _ = http.Serve(cln, p.controlHandler()) }()
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	for {
		c, err := ln.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go p.serve(c)
	}
}
