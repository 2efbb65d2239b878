// Relaying frames one for one, and the streams held back by a stall.

package main

import (
	"fmt"
	"log"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

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
