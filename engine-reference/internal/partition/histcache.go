package partition

import (
	"bytes"
	"encoding/json"
)

// histCache keeps the JSON encoding of every finished instance and job in
// the history. They never change once the batch that finished them is
// over, so each is encoded once, by the first snapshot that holds it, and
// every later snapshot copies the bytes. Without it every snapshot
// re-encoded the whole history (1,000 instances and 1,000 jobs by
// default, most of a snapshot's bytes): 8 % of the CPU of `bench`.
//
// Owned by whoever writes snapshots: snapLoop, and Close once snapLoop has
// stopped. Never touched by the partition goroutine while snapLoop runs.
type histCache struct {
	insts map[*Instance][]byte
	jobs  map[*Job][]byte
	size  int // the last encoding's length
}

// encodeHistory returns exactly encodeJSON(h); entries are taken from the
// cache or encoded and cached. Entries that left the history are dropped
// from the cache.
func (c *histCache) encodeHistory(h *History) ([]byte, error) {
	if c.insts == nil {
		c.insts, c.jobs = map[*Instance][]byte{}, map[*Job][]byte{}
	}
	var buf bytes.Buffer
	buf.Grow(c.size + 4096)
	buf.WriteString(`{"Max":`)
	if err := writeJSON(&buf, h.Max); err != nil {
		return nil, err
	}
	buf.WriteString(`,"Instances":`)
	insts := make(map[*Instance][]byte, len(h.Instances))
	if h.Instances == nil {
		buf.WriteString("null")
	} else {
		buf.WriteByte('[')
		for i, in := range h.Instances {
			b, ok := c.insts[in]
			if !ok {
				var err error
				if b, err = encodeJSON(in); err != nil {
					return nil, err
				}
			}
			insts[in] = b
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.Write(b)
		}
		buf.WriteByte(']')
	}
	buf.WriteString(`,"Jobs":`)
	jobs := make(map[*Job][]byte, len(h.Jobs))
	if h.Jobs == nil {
		buf.WriteString("null")
	} else {
		buf.WriteByte('[')
		for i, j := range h.Jobs {
			b, ok := c.jobs[j]
			if !ok {
				var err error
				if b, err = encodeJSON(j); err != nil {
					return nil, err
				}
			}
			jobs[j] = b
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.Write(b)
		}
		buf.WriteByte(']')
	}
	buf.WriteString(`,"EvictedInstances":`)
	if err := writeJSON(&buf, h.EvictedInstances); err != nil {
		return nil, err
	}
	buf.WriteString(`,"EvictedJobs":`)
	if err := writeJSON(&buf, h.EvictedJobs); err != nil {
		return nil, err
	}
	buf.WriteByte('}')
	c.insts, c.jobs, c.size = insts, jobs, buf.Len()
	return buf.Bytes(), nil
}

func writeJSON(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // the encoder's newline
	return nil
}
