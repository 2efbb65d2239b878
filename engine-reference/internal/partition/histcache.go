package partition

import "bytes"

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
	var buf bytes.Buffer
	buf.Grow(c.size + 4096)
	buf.WriteString(`{"Max":`)
	if err := writeJSON(&buf, h.Max); err != nil {
		return nil, err
	}
	buf.WriteString(`,"Instances":`)
	insts, err := encodeEntries(&buf, h.Instances, c.insts)
	if err != nil {
		return nil, err
	}
	buf.WriteString(`,"Jobs":`)
	jobs, err := encodeEntries(&buf, h.Jobs, c.jobs)
	if err != nil {
		return nil, err
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

// encodeEntries writes list as a JSON array (null when nil), each entry's
// encoding taken from cache or made; returns the encodings of exactly the
// entries written (the next cache).
func encodeEntries[T comparable](buf *bytes.Buffer, list []T, cache map[T][]byte) (map[T][]byte, error) {
	next := make(map[T][]byte, len(list))
	if list == nil {
		buf.WriteString("null")
		return next, nil
	}
	buf.WriteByte('[')
	for i, x := range list {
		b, ok := cache[x]
		if !ok {
			var err error
			if b, err = encodeJSON(x); err != nil {
				return nil, err
			}
		}
		next[x] = b
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(b)
	}
	buf.WriteByte(']')
	return next, nil
}

// writeJSON appends encodeJSON(v).
func writeJSON(buf *bytes.Buffer, v any) error {
	b, err := encodeJSON(v)
	if err != nil {
		return err
	}
	buf.Write(b)
	return nil
}
