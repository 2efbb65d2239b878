// The faults the control API injects, and the counters /stats reports.

package main

import (
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

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
