// The proxy, its connections and their streams.

package main

import (
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

type proxy struct {
	mu       sync.Mutex
	upstream string
	conns    map[*conn]bool

	// faults
	delay         time.Duration
	stall         map[string]bool // method -> stalled
	unimplemented map[string]int  // method -> remaining (-1 forever)
	localPings    bool            // answer client PINGs here (the gateway never sees them)
	maxStreams    uint32          // > 0: advertised and enforced MAX_CONCURRENT_STREAMS per connection

	// counters
	connectionsTotal int64
	requests         map[string]int64
	bytesUp          int64
	bytesDown        int64
	pings            int64 // client PINGs (not ACKs)
	pingsServer      int64
	pingsLocal       int64 // client PINGs answered by the proxy
	refused          int64 // streams refused beyond maxStreams (RST_STREAM REFUSED_STREAM)
	maxOpen          int64 // most streams open at once on one connection
	blackholed       int64 // connections blackholed
	dropped          int64 // frames dropped by a blackhole
	goaways          int64 // sent by the proxy
	goawaysServer    int64
	rsts             int64 // streams reset by the proxy
	ends             int64 // streams ended cleanly (status OK) by the proxy
	rstClient        int64
	rstServer        int64
	unimplSent       int64
	dialErrors       int64
	closedByClient   int64 // connections the client ended (EOF / GOAWAY from the client side)
	closedByServer   int64
	goawaysClient    int64
}

func newProxy(up string) *proxy {
	return &proxy{upstream: up, conns: map[*conn]bool{}, stall: map[string]bool{},
		unimplemented: map[string]int{}, requests: map[string]int64{}}
}

type stream struct {
	id       uint32
	method   string
	local    bool // answered by the proxy, never forwarded
	reset    bool // reset by the proxy: drop further frames
	held     []heldFrame
	endC     bool
	endS     bool
	released bool
	stalled  bool // stalled individually (/stall?existing=true)
	hdrS     bool // the server's response headers were relayed
}

type heldFrame struct {
	data    []byte
	pad     uint8
	end     bool
	headers []hpack.HeaderField // trailers when non-nil
	rst     bool                // a held RST_STREAM with code
	code    http2.ErrCode
}

// discardHeld drops a stream's held frames and returns the flow-control
// bytes they consumed (c.mu held); the caller credits them back to the server.
func discardHeld(s *stream) uint32 {
	var n uint32
	for _, h := range s.held {
		if h.headers == nil && !h.rst {
			n += uint32(len(h.data))
			if h.pad > 0 {
				n += uint32(h.pad) + 1
			}
		}
	}
	s.held = nil
	return n
}

func (c *conn) creditServer(n uint32) {
	if n > 0 {
		_ = c.toServer(func(fr *http2.Framer) error { return fr.WriteWindowUpdate(0, n) })
	}
}

type conn struct {
	p      *proxy
	client net.Conn
	server net.Conn
	cfr    *http2.Framer // reads from / writes to the client
	sfr    *http2.Framer // reads from / writes to the server
	cw     sync.Mutex
	sw     sync.Mutex
	cdec   *hpack.Decoder
	sdec   *hpack.Decoder

	mu        sync.Mutex
	streams   map[uint32]*stream
	maxStream uint32
	closeOnce sync.Once
	closing   atomic.Bool // set by the proxy's own close and by the first read error
	hole      atomic.Bool // blackholed: every frame, both ways, silently dropped
}

func methodOf(path string) string {
	if i := strings.LastIndex(path, "/"); i >= 0 {
		return path[i+1:]
	}
	return path
}
