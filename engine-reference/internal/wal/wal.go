// Package wal is the durable append-only log under each partition.
//
// Record framing: [u32 little-endian payload length][u32 CRC-32C of payload]
// [payload]. Appends are buffered and made durable by Sync, which the
// partition calls once per batch (group commit). On open, the log is scanned;
// a torn or corrupt tail (from a crash mid-write) is truncated away, because
// nothing after it was ever acknowledged.
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
	f       *os.File
	w       *bufio.Writer
	records atomic.Int64
	fsyncs  atomic.Int64
	batches atomic.Int64
	noSync  bool
	pending int
	hdr     [8]byte
}

// Open opens (or creates) the log at path, calls replay for every intact
// record in order, truncates a damaged tail, and positions for appending.
func Open(path string, noSync bool, replay func(payload []byte) error) (*Log, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	l := &Log{f: f, noSync: noSync}
	r := bufio.NewReaderSize(f, 1<<20)
	var good int64
	var hdr [8]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			break // EOF or torn header
		}
		n := binary.LittleEndian.Uint32(hdr[0:4])
		sum := binary.LittleEndian.Uint32(hdr[4:8])
		if n > MaxRecord {
			break
		}
		buf := make([]byte, n)
		if _, err := io.ReadFull(r, buf); err != nil {
			break
		}
		if crc32.Checksum(buf, castagnoli) != sum {
			break
		}
		if err := replay(buf); err != nil {
			f.Close()
			return nil, fmt.Errorf("replaying %s at offset %d: %w", path, good, err)
		}
		good += int64(8 + n)
		l.records.Add(1)
	}
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	l.w = bufio.NewWriterSize(f, 256<<10)
	return l, nil
}

// Append buffers one record.
func (l *Log) Append(payload []byte) error {
	if len(payload) > MaxRecord {
		return errors.New("wal: record too large")
	}
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

// Sync flushes the buffered records and fsyncs once: one batch committed.
func (l *Log) Sync() error {
	if l.pending == 0 {
		return nil
	}
	if err := l.w.Flush(); err != nil {
		return err
	}
	if !l.noSync {
		if err := l.f.Sync(); err != nil {
			return err
		}
		l.fsyncs.Add(1)
	}
	l.records.Add(int64(l.pending))
	l.batches.Add(1)
	l.pending = 0
	return nil
}

// Records is the number of committed records (the log position).
func (l *Log) Records() int64 { return l.records.Load() }

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
