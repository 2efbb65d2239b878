package partition

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/wal"
)

// Every logged record carries the record version; a log holding a record
// of a newer version (written by a later engine) is refused with a clear
// message and left as it was, while records without a version (logs from
// before versions existed) replay as before.
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
		if !strings.HasPrefix(r, `{"v":1,`) {
			t.Fatalf("record without version 1: %.80s", r)
		}
	}
	// Stop without the closing snapshot: the records stay in the log.
	close(p.stop)
	<-p.done
	p.log.Close()

	// A version-0 record (no "v") of a later create still replays.
	l, err = wal.Open(seg, true, func([]byte) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	l.Append([]byte(strings.Replace(records[1], `{"v":1,`, `{`, 1)))
	l.Close()
	p2, err := Open(Config{ID: 1, Count: 1, DataDir: dir, NoSync: true, Defs: NewRegistry()})
	if err != nil {
		t.Fatalf("a log with unversioned records does not open: %v", err)
	}
	if n := len(p2.st.Instances); n != 2 {
		t.Fatalf("%d instances after replay, want 2", n)
	}
	p2.log.Close()

	// A record from a later engine: refused, nothing changed.
	l, err = wal.Open(seg, true, func([]byte) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	l.Append([]byte(strings.Replace(records[1], `{"v":1,`, `{"v":99,`, 1)))
	l.Close()
	before, _ := os.ReadFile(seg)
	_, err = Open(Config{ID: 1, Count: 1, DataDir: dir, NoSync: true, Defs: NewRegistry()})
	if err == nil || !strings.Contains(err.Error(), "log record version 99 is newer than this engine reads") {
		t.Fatalf("a newer record version was not refused: %v", err)
	}
	after, _ := os.ReadFile(seg)
	if !bytes.Equal(before, after) {
		t.Fatal("the refused log was changed")
	}
}
