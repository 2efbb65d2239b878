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
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
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

// ---------------------------------------------------------------- state

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

func (p *proxy) serve(client net.Conn) {
	p.mu.Lock()
	up := p.upstream
	p.mu.Unlock()
	server, err := net.DialTimeout("tcp", up, 3*time.Second)
	if err != nil {
		p.mu.Lock()
		p.dialErrors++
		p.mu.Unlock()
		client.Close()
		return
	}
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(client, preface); err != nil || string(preface) != http2.ClientPreface {
		client.Close()
		server.Close()
		return
	}
	if _, err := server.Write(preface); err != nil {
		client.Close()
		server.Close()
		return
	}
	c := &conn{p: p, client: client, server: server, streams: map[uint32]*stream{}}
	c.cfr = http2.NewFramer(client, bufio.NewReaderSize(client, 64<<10))
	c.sfr = http2.NewFramer(server, bufio.NewReaderSize(server, 64<<10))
	for _, fr := range []*http2.Framer{c.cfr, c.sfr} {
		fr.SetMaxReadFrameSize(1 << 24)
		fr.MaxHeaderListSize = 1 << 20
	}
	c.cdec = hpack.NewDecoder(4096, nil)
	c.sdec = hpack.NewDecoder(4096, nil)
	c.cfr.ReadMetaHeaders = c.cdec
	c.sfr.ReadMetaHeaders = c.sdec
	p.mu.Lock()
	p.conns[c] = true
	p.connectionsTotal++
	p.mu.Unlock()
	go c.loop(true)
	c.loop(false)
}

func (c *conn) close() {
	c.closing.Store(true)
	c.closeOnce.Do(func() {
		c.client.Close()
		c.server.Close()
		c.p.mu.Lock()
		delete(c.p.conns, c)
		c.p.mu.Unlock()
	})
}

// encode re-encodes a header list as literal, never-indexed fields.
func encode(fields []hpack.HeaderField) []byte {
	var buf strings.Builder
	enc := hpack.NewEncoder(&buf)
	for _, f := range fields {
		f.Sensitive = true
		_ = enc.WriteField(f)
	}
	return []byte(buf.String())
}

func writeHeaders(fr *http2.Framer, id uint32, fields []hpack.HeaderField, end bool) error {
	block := encode(fields)
	const max = 16384
	first := block
	if len(first) > max {
		first = block[:max]
	}
	rest := block[len(first):]
	if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: first, EndStream: end,
		EndHeaders: len(rest) == 0}); err != nil {
		return err
	}
	for len(rest) > 0 {
		n := len(rest)
		if n > max {
			n = max
		}
		if err := fr.WriteContinuation(id, n == len(rest), rest[:n]); err != nil {
			return err
		}
		rest = rest[n:]
	}
	return nil
}

func (c *conn) toClient(fn func(*http2.Framer) error) error {
	c.cw.Lock()
	defer c.cw.Unlock()
	return fn(c.cfr)
}

func (c *conn) toServer(fn func(*http2.Framer) error) error {
	c.sw.Lock()
	defer c.sw.Unlock()
	return fn(c.sfr)
}

func dataPad(f *http2.DataFrame) uint8 {
	if f.Header().Flags.Has(http2.FlagDataPadded) {
		return uint8(int(f.Header().Length) - len(f.Data()) - 1)
	}
	return 0
}

func padded(n uint8) []byte {
	if n == 0 {
		return nil
	}
	return make([]byte, n)
}

func (c *conn) maybeForget(s *stream) {
	if (s.endC && s.endS) || s.reset || s.local {
		if len(s.held) == 0 {
			delete(c.streams, s.id)
		}
	}
}

// loop relays frames in one direction: fromClient=true is client -> server.
func (c *conn) loop(fromClient bool) {
	defer c.close()
	p := c.p
	rd := c.sfr
	if fromClient {
		rd = c.cfr
	}
	side := "server"
	if fromClient {
		side = "client"
	}
	for {
		f, err := rd.ReadFrame()
		if err != nil {
			log.Printf("conn %s: read from %s: %v", c.client.RemoteAddr(), side, err)
			if !c.closing.Load() { // the first side to end the connection
				c.closing.Store(true)
				p.mu.Lock()
				if fromClient {
					p.closedByClient++
				} else {
					p.closedByServer++
				}
				p.mu.Unlock()
			}
			return
		}
		if ga, ok := f.(*http2.GoAwayFrame); ok {
			if fromClient {
				p.mu.Lock()
				p.goawaysClient++
				p.mu.Unlock()
			}
			log.Printf("conn %s: GOAWAY from %s: code %v last %d %q", c.client.RemoteAddr(), side, ga.ErrCode,
				ga.LastStreamID, ga.DebugData())
		}
		if c.hole.Load() {
			p.mu.Lock()
			p.dropped++
			p.mu.Unlock()
			continue
		}
		if err := c.relay(p, f, fromClient); err != nil {
			log.Printf("conn %s: relay from %s: %v", c.client.RemoteAddr(), side, err)
			return
		}
	}
}

func (c *conn) relay(p *proxy, f http2.Frame, fromClient bool) error {
	fwd := c.toServer
	back := c.toClient
	if !fromClient {
		fwd, back = c.toClient, c.toServer
	}
	switch f := f.(type) {
	case *http2.MetaHeadersFrame:
		id := f.StreamID
		fields := append([]hpack.HeaderField(nil), f.Fields...)
		if fromClient {
			c.mu.Lock()
			s := c.streams[id]
			if s == nil {
				if open := c.openLocked(); p.maxStreams > 0 && open >= int(p.maxStreams) {
					c.mu.Unlock()
					p.mu.Lock()
					p.refused++
					p.mu.Unlock()
					log.Printf("conn %s: stream %d refused: %d streams open (limit %d)", c.client.RemoteAddr(), id, open, p.maxStreams)
					return c.toClient(func(fr *http2.Framer) error { return fr.WriteRSTStream(id, http2.ErrCodeRefusedStream) })
				}
				s = &stream{id: id, method: methodOf(f.PseudoValue("path"))}
				c.streams[id] = s
				if open := int64(c.openLocked()); true {
					p.mu.Lock()
					p.maxOpen = max(p.maxOpen, open)
					p.mu.Unlock()
				}
				if id > c.maxStream {
					c.maxStream = id
				}
				p.mu.Lock()
				p.requests[s.method]++
				delay := p.delay
				if n, ok := p.unimplemented[s.method]; ok && n != 0 {
					s.local = true
					if n > 0 {
						p.unimplemented[s.method] = n - 1
					}
					p.unimplSent++
				}
				p.mu.Unlock()
				if s.local {
					c.mu.Unlock()
					return c.toClient(func(fr *http2.Framer) error {
						return writeHeaders(fr, id, []hpack.HeaderField{
							{Name: ":status", Value: "200"}, {Name: "content-type", Value: "application/grpc"},
							{Name: "grpc-status", Value: "12"},
							{Name: "grpc-message", Value: "unimplemented (injected by jwproxy)"}}, true)
					})
				}
				if delay > 0 {
					c.mu.Unlock()
					time.Sleep(delay)
					c.mu.Lock()
				}
			}
			if s.local || s.reset {
				c.mu.Unlock()
				return nil
			}
			if f.StreamEnded() {
				s.endC = true
			}
			c.maybeForget(s)
			c.mu.Unlock()
			return fwd(func(fr *http2.Framer) error { return writeHeaders(fr, id, fields, f.StreamEnded()) })
		}
		c.mu.Lock()
		s := c.streams[id]
		if s != nil && (s.local || s.reset) {
			c.mu.Unlock()
			return nil
		}
		if s != nil && c.stalled(s) {
			s.held = append(s.held, heldFrame{headers: fields, end: f.StreamEnded()})
			c.mu.Unlock()
			return nil
		}
		if s != nil {
			s.hdrS = true
		}
		if s != nil && f.StreamEnded() {
			s.endS = true
			c.maybeForget(s)
		}
		c.mu.Unlock()
		return fwd(func(fr *http2.Framer) error { return writeHeaders(fr, id, fields, f.StreamEnded()) })

	case *http2.DataFrame:
		id := f.StreamID
		n := int64(f.Header().Length)
		p.mu.Lock()
		if fromClient {
			p.bytesUp += n
		} else {
			p.bytesDown += n
		}
		p.mu.Unlock()
		c.mu.Lock()
		s := c.streams[id]
		if s != nil && (s.local || s.reset) {
			c.mu.Unlock()
			// never delivered: give the sender its connection window back
			if n > 0 {
				return back(func(fr *http2.Framer) error { return fr.WriteWindowUpdate(0, uint32(n)) })
			}
			return nil
		}
		if !fromClient && s != nil && c.stalled(s) {
			s.held = append(s.held, heldFrame{data: append([]byte(nil), f.Data()...), pad: dataPad(f),
				end: f.StreamEnded()})
			c.mu.Unlock()
			return nil
		}
		if s != nil && f.StreamEnded() {
			if fromClient {
				s.endC = true
			} else {
				s.endS = true
			}
			c.maybeForget(s)
		}
		c.mu.Unlock()
		data, pad, end := f.Data(), dataPad(f), f.StreamEnded()
		return fwd(func(fr *http2.Framer) error { return fr.WriteDataPadded(id, end, data, padded(pad)) })

	case *http2.SettingsFrame:
		if f.IsAck() {
			return fwd(func(fr *http2.Framer) error { return fr.WriteSettingsAck() })
		}
		var ss []http2.Setting
		limited := false
		_ = f.ForeachSetting(func(s http2.Setting) error {
			if !fromClient && p.maxStreams > 0 && s.ID == http2.SettingMaxConcurrentStreams {
				s.Val = min(s.Val, p.maxStreams)
				limited = true
			}
			ss = append(ss, s)
			if s.ID == http2.SettingHeaderTableSize {
				// the receiver of this SETTINGS encodes for the sender: our decoder on
				// the other direction must accept that table size
				if fromClient {
					c.sdec.SetAllowedMaxDynamicTableSize(s.Val)
				} else {
					c.cdec.SetAllowedMaxDynamicTableSize(s.Val)
				}
			}
			return nil
		})
		if !fromClient && p.maxStreams > 0 && !limited {
			ss = append(ss, http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: p.maxStreams})
		}
		return fwd(func(fr *http2.Framer) error { return fr.WriteSettings(ss...) })

	case *http2.PingFrame:
		if !f.IsAck() {
			p.mu.Lock()
			local := fromClient && p.localPings
			if fromClient {
				p.pings++
			} else {
				p.pingsServer++
			}
			if local {
				p.pingsLocal++
			}
			p.mu.Unlock()
			if local { // answered here: a short client keepalive never meets the gateway's ping policy
				return back(func(fr *http2.Framer) error { return fr.WritePing(true, f.Data) })
			}
		}
		return fwd(func(fr *http2.Framer) error { return fr.WritePing(f.IsAck(), f.Data) })

	case *http2.WindowUpdateFrame:
		if f.StreamID != 0 {
			c.mu.Lock()
			s := c.streams[f.StreamID]
			drop := s != nil && (s.local || s.reset)
			c.mu.Unlock()
			if drop {
				return nil
			}
		}
		return fwd(func(fr *http2.Framer) error { return fr.WriteWindowUpdate(f.StreamID, f.Increment) })

	case *http2.RSTStreamFrame:
		p.mu.Lock()
		if fromClient {
			p.rstClient++
		} else {
			p.rstServer++
		}
		p.mu.Unlock()
		c.mu.Lock()
		s := c.streams[f.StreamID]
		drop := s != nil && (s.local || s.reset)
		if s != nil && !drop {
			if !fromClient && c.stalled(s) {
				s.held = append(s.held, heldFrame{rst: true, code: f.ErrCode, end: true})
				c.mu.Unlock()
				return nil // delivered after the held frames on /unstall
			}
			s.endC, s.endS = true, true
			credit := discardHeld(s)
			c.maybeForget(s)
			c.mu.Unlock()
			if fromClient {
				c.creditServer(credit)
			}
			return fwd(func(fr *http2.Framer) error { return fr.WriteRSTStream(f.StreamID, f.ErrCode) })
		}
		c.mu.Unlock()
		if drop {
			return nil
		}
		return fwd(func(fr *http2.Framer) error { return fr.WriteRSTStream(f.StreamID, f.ErrCode) })

	case *http2.GoAwayFrame:
		if !fromClient {
			p.mu.Lock()
			p.goawaysServer++
			p.mu.Unlock()
		}
		debug := append([]byte(nil), f.DebugData()...)
		return fwd(func(fr *http2.Framer) error { return fr.WriteGoAway(f.LastStreamID, f.ErrCode, debug) })

	case *http2.PriorityFrame:
		return fwd(func(fr *http2.Framer) error { return fr.WritePriority(f.StreamID, f.PriorityParam) })

	default:
		h := f.Header()
		if h.Type == http2.FrameContinuation || h.Type == http2.FramePushPromise {
			return fmt.Errorf("unexpected %v", h.Type)
		}
		// unknown extension frame types are ignored per RFC 9113
		return nil
	}
}

// stalled reports whether server->client frames of s are held (c.mu held).
func (c *conn) stalled(s *stream) bool {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	return s.stalled || c.p.stall[s.method] || c.p.stall["*"]
}

// flush delivers every held frame (after /unstall).
func (c *conn) flush() {
	c.mu.Lock()
	type item struct {
		id uint32
		hf heldFrame
	}
	var items []item
	for id, s := range c.streams {
		if c.stalled(s) {
			continue
		}
		for _, hf := range s.held {
			items = append(items, item{id, hf})
			if hf.end {
				s.endS = true
			}
		}
		s.held = nil
		c.maybeForget(s)
	}
	c.mu.Unlock()
	for _, it := range items {
		it := it
		var err error
		if it.hf.rst {
			err = c.toClient(func(fr *http2.Framer) error { return fr.WriteRSTStream(it.id, it.hf.code) })
		} else if it.hf.headers != nil {
			err = c.toClient(func(fr *http2.Framer) error { return writeHeaders(fr, it.id, it.hf.headers, it.hf.end) })
		} else {
			err = c.toClient(func(fr *http2.Framer) error {
				return fr.WriteDataPadded(it.id, it.hf.end, it.hf.data, padded(it.hf.pad))
			})
		}
		if err != nil {
			c.close()
			return
		}
	}
}

// ---------------------------------------------------------------- faults

func (p *proxy) snapshotConns() []*conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*conn, 0, len(p.conns))
	for c := range p.conns {
		out = append(out, c)
	}
	return out
}

func (p *proxy) goaway(grace time.Duration, code http2.ErrCode, debug string, closeAfter bool) int {
	cs := p.snapshotConns()
	for _, c := range cs {
		c.mu.Lock()
		last := c.maxStream
		c.mu.Unlock()
		_ = c.toClient(func(fr *http2.Framer) error { return fr.WriteGoAway(last, code, []byte(debug)) })
		p.mu.Lock()
		p.goaways++
		p.mu.Unlock()
		if closeAfter {
			c := c
			time.AfterFunc(grace, c.close)
		}
	}
	return len(cs)
}

func (p *proxy) rst(method string, code http2.ErrCode) int {
	n := 0
	for _, c := range p.snapshotConns() {
		c.mu.Lock()
		var ids []uint32
		var credit uint32
		for id, s := range c.streams {
			if s.local || s.reset || (s.endC && s.endS) {
				continue
			}
			if method == "" || s.method == method {
				s.reset = true
				credit += discardHeld(s)
				ids = append(ids, id)
			}
		}
		c.mu.Unlock()
		c.creditServer(credit)
		for _, id := range ids {
			id := id
			_ = c.toServer(func(fr *http2.Framer) error { return fr.WriteRSTStream(id, http2.ErrCodeCancel) })
			_ = c.toClient(func(fr *http2.Framer) error { return fr.WriteRSTStream(id, code) })
			n++
		}
	}
	p.mu.Lock()
	p.rsts += int64(n)
	p.mu.Unlock()
	return n
}

// end ends the open calls of method cleanly, as a gateway that closes its
// streams with status OK: the client gets trailers with grpc-status 0 and
// END_STREAM (a trailers-only response if no headers were sent yet), the
// server a RST_STREAM(CANCEL).
func (p *proxy) end(method string) int {
	type ending struct {
		id  uint32
		hdr bool
	}
	n := 0
	for _, c := range p.snapshotConns() {
		c.mu.Lock()
		var ends []ending
		var credit uint32
		for id, s := range c.streams {
			if s.local || s.reset || s.endS {
				continue
			}
			if method == "" || s.method == method {
				s.reset = true
				credit += discardHeld(s)
				ends = append(ends, ending{id, s.hdrS})
			}
		}
		c.mu.Unlock()
		c.creditServer(credit)
		for _, e := range ends {
			e := e
			fields := []hpack.HeaderField{{Name: "grpc-status", Value: "0"}}
			if !e.hdr {
				fields = append([]hpack.HeaderField{{Name: ":status", Value: "200"},
					{Name: "content-type", Value: "application/grpc"}}, fields...)
			}
			_ = c.toServer(func(fr *http2.Framer) error { return fr.WriteRSTStream(e.id, http2.ErrCodeCancel) })
			_ = c.toClient(func(fr *http2.Framer) error { return writeHeaders(fr, e.id, fields, true) })
			n++
		}
	}
	p.mu.Lock()
	p.ends += int64(n)
	p.mu.Unlock()
	return n
}

// blackhole silently drops every frame, both ways and PINGs included, of the
// connections open now (those carrying a call of method, if given); the TCP
// connections stay up. Only a client keepalive can tell the peer is gone.
func (p *proxy) blackhole(method string) int {
	n := 0
	for _, c := range p.snapshotConns() {
		if method != "" {
			c.mu.Lock()
			has := false
			for _, s := range c.streams {
				if s.method == method && !s.local && !s.reset && !(s.endC && s.endS) {
					has = true
				}
			}
			c.mu.Unlock()
			if !has {
				continue
			}
		}
		if !c.hole.Swap(true) {
			n++
		}
	}
	p.mu.Lock()
	p.blackholed += int64(n)
	p.mu.Unlock()
	return n
}

// openLocked counts the calls open on c (c.mu held).
func (c *conn) openLocked() int {
	n := 0
	for _, s := range c.streams {
		if !s.local && !s.reset && !(s.endC && s.endS) {
			n++
		}
	}
	return n
}

func (p *proxy) unstall() {
	p.mu.Lock()
	p.stall = map[string]bool{}
	p.mu.Unlock()
	for _, c := range p.snapshotConns() {
		c.mu.Lock()
		for _, s := range c.streams {
			s.stalled = false
		}
		c.mu.Unlock()
		c.flush()
	}
}

// stallExisting stalls only the streams open now (new ones flow normally).
func (p *proxy) stallExisting(method string) int {
	n := 0
	for _, c := range p.snapshotConns() {
		c.mu.Lock()
		for _, s := range c.streams {
			if !s.local && !s.reset && !(s.endC && s.endS) && (method == "*" || s.method == method) {
				s.stalled = true
				n++
			}
		}
		c.mu.Unlock()
	}
	return n
}

func (p *proxy) stats() map[string]any {
	p.mu.Lock()
	req := map[string]int64{}
	for k, v := range p.requests {
		req[k] = v
	}
	out := map[string]any{
		"connections": p.connectionsTotal, "requests": req,
		"bytes_up": p.bytesUp, "bytes_down": p.bytesDown, "pings": p.pings, "pings_server": p.pingsServer,
		"pings_local": p.pingsLocal, "blackholed": p.blackholed, "dropped_frames": p.dropped,
		"refused_streams": p.refused, "max_open_streams_per_connection": p.maxOpen,
		"goaways": p.goaways, "goaways_server": p.goawaysServer, "rsts": p.rsts, "ends": p.ends, "rst_client": p.rstClient,
		"rst_server": p.rstServer, "unimplemented_sent": p.unimplSent, "dial_errors": p.dialErrors,
		"open_connections": int64(len(p.conns)), "closed_by_client": p.closedByClient,
		"closed_by_server": p.closedByServer, "goaways_client": p.goawaysClient,
	}
	p.mu.Unlock()
	open := map[string]int64{}
	var held int64
	for _, c := range p.snapshotConns() {
		c.mu.Lock()
		for _, s := range c.streams {
			if !s.local && !s.reset && !(s.endC && s.endS) {
				open[s.method]++
			}
			held += int64(len(s.held))
		}
		c.mu.Unlock()
	}
	out["open_streams"] = open
	out["held_frames"] = held
	return out
}

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
