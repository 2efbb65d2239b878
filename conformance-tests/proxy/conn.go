// A client connection and its upstream: set-up, close and writing frames either way.

package main

import (
	"bufio"
	"io"
	"net"
	"strings"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

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
