// Package wal is the durable append-only log under each partition.
//
// Record framing: [u32 little-endian payload length][u32 CRC-32C of payload]
// [payload]. Appends are buffered and made durable by Sync, which the
// partition calls once per batch (group commit). On open, the log is scanned:
// a torn tail (a crash mid-append: damage with nothing intact after it) is
// truncated away, because nothing in it was ever acknowledged; damage with
// intact records after it is corruption, and Open refuses (CorruptError).
package wal

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync/atomic"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// MaxRecord bounds a single record so a corrupt length cannot allocate
// gigabytes during replay.
const MaxRecord = 64 << 20

// Log is one partition's log file. Not safe for concurrent appends; the
// partition goroutine owns it. Counters are atomic for the admin API.
type Log struct {
	f            *os.File
	w            *bufio.Writer
	records      atomic.Int64
	bytes        atomic.Int64 // framed bytes of the records counted in records
	fsyncs       atomic.Int64
	batches      atomic.Int64
	noSync       bool
	pending      int
	pendingBytes int64
	hdr          [8]byte
	// Repaired is set when Open cut off a torn tail.
	Repaired *Repair
}

// Repair describes a torn tail that Open cut off.
type Repair struct {
	Offset  int64 // where the intact log ends (the new file size)
	Dropped int64 // bytes removed
	Reason  string
}

// CorruptError is returned by Open when a record in the middle of the log
// is damaged: intact records follow it, so the damage is not a crash
// during an append. Nothing is truncated or moved.
type CorruptError struct {
	Path   string
	Offset int64  // start of the damaged record
	Next   int64  // start of the next intact record found after it (-1: none, but later segments exist)
	Reason string // what is wrong with the record at Offset
}

func (e *CorruptError) Error() string {
	if e.Next < 0 {
		return fmt.Sprintf("log segment %s is corrupt at offset %d (%s), and later segments exist, so this is damage to data that was already written, not a torn write; refusing to start (nothing was changed)",
			e.Path, e.Offset, e.Reason)
	}
	return fmt.Sprintf("log %s is corrupt at offset %d (%s), and intact records follow at offset %d: "+
		"this is damage to data that was already written, not a torn write; refusing to start (nothing was changed). "+
		"Restore the file from a backup, or, to drop everything from offset %d on (losing acknowledged data), truncate it to %d bytes",
		e.Path, e.Offset, e.Reason, e.Next, e.Offset, e.Offset)
}

// Open opens (or creates) the log at path, calls replay for every intact
// record in order, and positions for appending.
//
// A damaged record with nothing intact after it is a torn tail (a crash
// while appending: that batch was never fsynced, so never acknowledged): it
// is truncated away and reported in Log.Repaired. A damaged record followed
// by intact records is corruption of acknowledged data: Open returns a
// *CorruptError naming the file and offset and changes nothing.
func Open(path string, noSync bool, replay func(payload []byte) error) (*Log, error) {
	return OpenSegment(path, noSync, true, replay)
}

// OpenSegment is Open for one segment of a segmented log. Only the last
// segment can have a torn tail (earlier ones were complete and fsynced
// before the next one was started), so in a segment that is not the last
// any damage is corruption.
func OpenSegment(path string, noSync, last bool, replay func(payload []byte) error) (*Log, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	size := st.Size()
	l := &Log{f: f, noSync: noSync}
	r := bufio.NewReaderSize(f, 1<<20)
	var good int64
	var hdr [8]byte
	reason := ""
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			if err != io.EOF {
				reason = "incomplete record header"
			}
			break
		}
		n := binary.LittleEndian.Uint32(hdr[0:4])
		sum := binary.LittleEndian.Uint32(hdr[4:8])
		if n == 0 || n > MaxRecord || int64(n) > size-good-8 {
			reason = fmt.Sprintf("record length %d does not fit", n)
			break
		}
		buf := make([]byte, n)
		if _, err := io.ReadFull(r, buf); err != nil {
			reason = "incomplete record"
			break
		}
		if crc32.Checksum(buf, castagnoli) != sum {
			reason = "checksum mismatch"
			break
		}
		if err := replay(buf); err != nil {
			f.Close()
			return nil, fmt.Errorf("replaying %s at offset %d: %w", path, good, err)
		}
		good += int64(8 + n)
		l.records.Add(1)
		l.bytes.Add(int64(8 + n))
	}
	if reason != "" {
		next, err := findIntact(f, good+1, size)
		if err != nil {
			f.Close()
			return nil, err
		}
		if next >= 0 || !last {
			f.Close()
			return nil, &CorruptError{Path: path, Offset: good, Next: next, Reason: reason}
		}
		if err := f.Truncate(good); err != nil {
			f.Close()
			return nil, err
		}
		if !noSync {
			if err := f.Sync(); err != nil {
				f.Close()
				return nil, err
			}
		}
		l.Repaired = &Repair{Offset: good, Dropped: size - good, Reason: reason}
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	l.w = bufio.NewWriterSize(f, 256<<10)
	return l, nil
}

// findIntact looks for the first offset in [from, size) where an intact
// record starts (sane length, matching CRC-32C); -1 if there is none. A
// random 8-byte window passes the checksum with probability 2^-32, so a
// torn tail is not mistaken for intact data.
func findIntact(f *os.File, from, size int64) (int64, error) {
	if from >= size {
		return -1, nil
	}
	rest := make([]byte, size-from+1)
	n, err := f.ReadAt(rest[1:], from)
	if err != nil && err != io.EOF {
		return -1, err
	}
	rest = rest[1 : 1+n]
	for k := 0; k+8 < len(rest); k++ {
		ln := binary.LittleEndian.Uint32(rest[k:])
		if ln == 0 || ln > MaxRecord || int(ln) > len(rest)-k-8 {
			continue
		}
		if crc32.Checksum(rest[k+8:k+8+int(ln)], castagnoli) == binary.LittleEndian.Uint32(rest[k+4:]) {
			return from + int64(k), nil
		}
	}
	return -1, nil
}

// Append buffers one record.
func (l *Log) Append(payload []byte) error {
	if len(payload) > MaxRecord {
		return errors.New("wal: record too large")
	}
	l.pendingBytes += int64(8 + len(payload))
	binary.LittleEndian.PutUint32(l.hdr[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(l.hdr[4:8], crc32.Checksum(payload, castagnoli))
	if _, err := l.w.Write(l.hdr[:]); err != nil {
		return err
	}
	if _, err := l.w.Write(payload); err != nil {
		return err
	}
	l.pending++
	return nil
}

// Flush writes the buffered records of one batch to the file (no fsync)
// and reports whether there were any. The partition goroutine calls it;
// the fsync (SyncFile) may then run on another goroutine while the next
// batch is processed and appended (pipelined group commit).
func (l *Log) Flush() (bool, error) {
	if l.pending == 0 {
		return false, nil
	}
	if err := l.w.Flush(); err != nil {
		return false, err
	}
	l.records.Add(int64(l.pending))
	l.bytes.Add(l.pendingBytes)
	l.batches.Add(1)
	l.pending, l.pendingBytes = 0, 0
	return true, nil
}

// SyncFile makes everything flushed so far durable (one fsync). Safe to
// call concurrently with Append/Flush.
func (l *Log) SyncFile() error {
	if l.noSync {
		return nil
	}
	if err := l.f.Sync(); err != nil {
		return err
	}
	l.fsyncs.Add(1)
	return nil
}

// Sync flushes the buffered records and fsyncs once: one batch committed.
func (l *Log) Sync() error {
	wrote, err := l.Flush()
	if err != nil || !wrote {
		return err
	}
	return l.SyncFile()
}

// Records is the number of records written (the log position).
func (l *Log) Records() int64 { return l.records.Load() }

// Bytes is the size of the records counted by Records (headers included).
func (l *Log) Bytes() int64 { return l.bytes.Load() }

// Fsyncs counts fsync calls.
func (l *Log) Fsyncs() int64 { return l.fsyncs.Load() }

// Batches counts committed batches.
func (l *Log) Batches() int64 { return l.batches.Load() }

// Close flushes and closes the file.
func (l *Log) Close() error {
	if err := l.Sync(); err != nil {
		l.f.Close()
		return err
	}
	return l.f.Close()
}
