package partition

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/wal"
)

// Every logged record is a results record of version 2; a log holding a
// record of a newer version (written by a later engine) is refused with a
// clear message and left as it was, while command records of versions 0
// (no "v", logs from before versions existed) and 1 still replay through
// the processors.
func TestLogRecordVersion(t *testing.T) {
	dir := t.TempDir()
	p, err := Open(Config{ID: 1, Count: 1, DataDir: dir, NoSync: true, Defs: NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	go p.Run()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := p.Submit(ctx, &Command{Op: OpDeploy, Resources: []Resource{{Name: "p.bpmn", Content: []byte(waitBPMN)}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Submit(ctx, &Command{Op: OpCreate, BpmnProcessID: "p", Version: -1}); err != nil {
		t.Fatal(err)
	}
	seg := segmentPath(filepath.Join(dir, "partition-1"), p.segment)
	var records []string
	l, err := wal.Open(seg, true, func(b []byte) error { records = append(records, string(b)); return nil })
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if len(records) != 2 {
		t.Fatalf("%d records logged, want 2", len(records))
	}
	for _, r := range records {
		if !strings.HasPrefix(r, `{"v":3,"op":"results",`) {
			t.Fatalf("record is not a version 3 results record: %.80s", r)
		}
	}

	// Version 2 results records (written by the previous engine; these two
	// have the same shape in both versions) are applied as well.
	v2dir := t.TempDir()
	os.MkdirAll(filepath.Join(v2dir, "partition-1"), 0o755)
	l2, err := wal.Open(filepath.Join(v2dir, "partition-1", "log-000000000001"), true, func([]byte) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		l2.Append([]byte(strings.Replace(r, `{"v":3,`, `{"v":2,`, 1)))
	}
	l2.Close()
	pv2, err := Open(Config{ID: 1, Count: 1, DataDir: v2dir, NoSync: true, Defs: NewRegistry()})
	if err != nil {
		t.Fatalf("a log of version 2 results records does not open: %v", err)
	}
	if n := len(pv2.st.Instances); n != 1 {
		t.Fatalf("%d instances from version 2 records, want 1", n)
	}
	pv2.log.Close()
	// Stop without the closing snapshot: the records stay in the log.
	close(p.stop)
	<-p.done
	p.log.Close()

	// Command records of version 0 (no "v") and 1 after them still replay.
	l, err = wal.Open(seg, true, func([]byte) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixMilli()
	for _, v := range []int{0, 1} {
		b, _ := json.Marshal(&Command{V: v, Op: OpCreate, BpmnProcessID: "p", Version: -1, Now: now})
		if v == 0 && bytes.Contains(b, []byte(`"v"`)) {
			t.Fatalf("a version 0 record has a version field: %s", b)
		}
		l.Append(b)
	}
	l.Close()
	p2, err := Open(Config{ID: 1, Count: 1, DataDir: dir, NoSync: true, Defs: NewRegistry()})
	if err != nil {
		t.Fatalf("a log with command records does not open: %v", err)
	}
	if n := len(p2.st.Instances); n != 3 {
		t.Fatalf("%d instances after replay, want 3", n)
	}
	p2.log.Close()

	// A record from a later engine: refused, nothing changed.
	for _, rec := range []string{
		strings.Replace(records[1], `{"v":3,`, `{"v":99,`, 1),
		`{"v":2,"op":"create","now":1}`, // versions 2 and 3 hold results records only
	} {
		seg2 := filepath.Join(t.TempDir(), "log-000000000001")
		b, _ := os.ReadFile(seg)
		os.WriteFile(seg2, b, 0o644)
		l, err = wal.Open(seg2, true, func([]byte) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		l.Append([]byte(rec))
		l.Close()
		d2 := filepath.Dir(filepath.Dir(seg2))
		os.MkdirAll(filepath.Join(d2, "partition-1"), 0o755)
		os.Rename(seg2, filepath.Join(d2, "partition-1", "log-000000000001"))
		seg2 = filepath.Join(d2, "partition-1", "log-000000000001")
		before, _ := os.ReadFile(seg2)
		_, err = Open(Config{ID: 1, Count: 1, DataDir: d2, NoSync: true, Defs: NewRegistry()})
		want := "log record version 99 is newer than this engine reads"
		if !strings.Contains(rec, `"v":99`) {
			want = "log record of version 2 is not a results record"
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("record %.40s: not refused with %q: %v", rec, want, err)
		}
		after, _ := os.ReadFile(seg2)
		if !bytes.Equal(before, after) {
			t.Fatal("the refused log was changed")
		}
	}
}
