package wal

import (
	"os"
	"path/filepath"
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
	// A corrupted byte inside a record stops replay there.
	b, _ := os.ReadFile(path)
	b[8+3+8+1] ^= 0xff // inside "two"
	os.WriteFile(path, b, 0o644)
	got = nil
	l, _ = Open(path, false, func(b []byte) error { got = append(got, string(b)); return nil })
	l.Close()
	if len(got) != 1 {
		t.Fatalf("replay past corruption: %v", got)
	}
}
