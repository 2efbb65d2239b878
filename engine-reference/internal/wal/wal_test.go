package wal

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAppendReplayAndTornTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	l, err := Open(path, false, func([]byte) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{"one", "two", "three"} {
		if err := l.Append([]byte(r)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	if l.Fsyncs() != 1 || l.Batches() != 1 || l.Records() != 3 {
		t.Fatalf("counters %d %d %d", l.Fsyncs(), l.Batches(), l.Records())
	}
	l.Close()
	// Simulate a crash mid-write: a partial record, then garbage.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.Write([]byte{10, 0, 0, 0, 1, 2, 3, 4, 'x'})
	f.Close()
	size := func() int64 { st, _ := os.Stat(path); return st.Size() }
	before := size()
	var got []string
	l, err = Open(path, false, func(b []byte) error { got = append(got, string(b)); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[2] != "three" {
		t.Fatalf("replayed %v", got)
	}
	if size() != before-9 {
		t.Fatalf("torn tail not truncated: %d → %d", before, size())
	}
	// Appending after recovery continues cleanly.
	l.Append([]byte("four"))
	l.Close()
	got = nil
	l, _ = Open(path, false, func(b []byte) error { got = append(got, string(b)); return nil })
	l.Close()
	if len(got) != 4 || got[3] != "four" {
		t.Fatalf("after append %v", got)
	}
	// A corrupted byte inside a record with intact records after it is
	// corruption of acknowledged data: Open refuses, names the offset, and
	// changes nothing (it used to truncate the log there, silently).
	b, _ := os.ReadFile(path)
	b[8+3+8+1] ^= 0xff // inside "two"
	os.WriteFile(path, b, 0o644)
	got = nil
	_, err = Open(path, false, func(b []byte) error { got = append(got, string(b)); return nil })
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Offset != 11 || ce.Next != 22 || !strings.Contains(err.Error(), "offset 11") {
		t.Fatalf("want CorruptError at offset 11, got %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, b) {
		t.Fatal("the corrupt log was modified")
	}
}

func writeLog(t *testing.T, path string, n int) []int64 {
	t.Helper()
	l, err := Open(path, true, func([]byte) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	var ends []int64
	var end int64
	for i := 0; i < n; i++ {
		rec := []byte(fmt.Sprintf(`{"record":%d,"pad":"%s"}`, i, strings.Repeat("x", i%50)))
		l.Append(rec)
		end += int64(8 + len(rec))
		ends = append(ends, end)
	}
	l.Close()
	return ends
}

func replayAll(path string) (int, *Log, error) {
	n := 0
	l, err := Open(path, true, func([]byte) error { n++; return nil })
	return n, l, err
}

// One byte flipped anywhere but in the last record: refuse with the
// damaged record's offset, whatever the byte (length, checksum, payload).
func TestFlipOneByteMidLogRefuses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	ends := writeLog(t, path, 300)
	orig, _ := os.ReadFile(path)
	lastStart := ends[len(ends)-2]
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 200; round++ {
		pos := rng.Int63n(lastStart)
		b := append([]byte(nil), orig...)
		b[pos] ^= byte(1 + rng.Intn(255))
		os.WriteFile(path, b, 0o644)
		_, _, err := replayAll(path)
		var ce *CorruptError
		if !errors.As(err, &ce) {
			t.Fatalf("flip at %d: want CorruptError, got %v", pos, err)
		}
		// The named offset is the start of the record holding the byte.
		start := int64(0)
		for _, e := range ends {
			if e > pos {
				break
			}
			start = e
		}
		if ce.Offset != start || !strings.Contains(err.Error(), fmt.Sprintf("offset %d", start)) || !strings.Contains(err.Error(), path) {
			t.Fatalf("flip at %d (record at %d): %v", pos, start, err)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, b) {
			t.Fatal("the corrupt log was modified")
		}
	}
}

// A torn tail, cut at every byte of the last record (and a zero-filled
// tail as a crash can leave): repaired, only the torn record is lost, and
// the repair is reported.
func TestTornTailRepairsLosingOnlyTheTornRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	ends := writeLog(t, path, 50)
	orig, _ := os.ReadFile(path)
	lastStart := ends[len(ends)-2]
	for cut := lastStart + 1; cut < int64(len(orig)); cut++ {
		os.WriteFile(path, orig[:cut], 0o644)
		n, l, err := replayAll(path)
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if n != 49 || l.Repaired == nil || l.Repaired.Offset != lastStart || l.Repaired.Dropped != cut-lastStart {
			t.Fatalf("cut at %d: %d records, repair %+v", cut, n, l.Repaired)
		}
		l.Close()
		if st, _ := os.Stat(path); st.Size() != lastStart {
			t.Fatalf("cut at %d: size %d after repair", cut, st.Size())
		}
	}
	// Zeros after the last intact record (file size grew, data never written).
	os.WriteFile(path, append(append([]byte(nil), orig...), make([]byte, 4096)...), 0o644)
	n, l, err := replayAll(path)
	if err != nil || n != 50 || l.Repaired == nil || l.Repaired.Dropped != 4096 {
		t.Fatalf("zero tail: %d %v %+v", n, err, l.Repaired)
	}
	l.Close()
	// A clean log reports no repair.
	n, l, err = replayAll(path)
	if err != nil || n != 50 || l.Repaired != nil {
		t.Fatalf("clean: %d %v %+v", n, err, l.Repaired)
	}
	l.Close()
}
