package partition

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A reset is recovered from its log record: a copy of the data dir taken
// right after it (no snapshot since) opens without the old state, with
// what was created after the reset, and keys that keep growing.
func TestResetRecordReplays(t *testing.T) {
	defer func(old bool) { ResetSnapshot = old }(ResetSnapshot)
	ResetSnapshot = false
	dir := t.TempDir()
	reg := NewRegistry()
	p, err := Open(Config{ID: 1, Count: 1, DataDir: dir, NoSync: true, Defs: reg})
	if err != nil {
		t.Fatal(err)
	}
	go p.Run()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	submit := func(c *Command) any {
		t.Helper()
		r, err := p.Submit(ctx, c)
		if err != nil {
			t.Fatalf("%s: %v", c.Op, err)
		}
		return r
	}
	deploy := &Command{Op: OpDeploy, Resources: []Resource{{Name: "p.bpmn", Content: []byte(waitBPMN)}}}
	submit(deploy)
	submit(&Command{Op: OpDeploy, Resources: []Resource{{Name: "p2.bpmn", Content: []byte(waitBPMN)}}}) // version 2
	var last int64
	for i := 0; i < 5; i++ {
		last = submit(&Command{Op: OpCreate, BpmnProcessID: "p", Version: -1}).(interface{ GetProcessInstanceKey() int64 }).GetProcessInstanceKey()
	}
	if bound := submit(&Command{Op: OpReset}).(int64); bound < last {
		t.Fatalf("reset bound %d below the last key %d", bound, last)
	}
	if reg.Count() != 0 {
		t.Fatalf("registry after reset: %d definitions", reg.Count())
	}
	submit(deploy)
	kept := submit(&Command{Op: OpCreate, BpmnProcessID: "p", Version: -1}).(interface{ GetProcessInstanceKey() int64 }).GetProcessInstanceKey()
	if kept <= last {
		t.Fatalf("key %d after the reset, %d before", kept, last)
	}
	// The batches are durable once answered: copy the partition as a crash
	// would leave it (no snapshot was written).
	copyDir := t.TempDir()
	src := filepath.Join(dir, "partition-1")
	dst := filepath.Join(copyDir, "partition-1")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(src)
	for _, e := range ents {
		if e.Name() == "snapshot" {
			t.Fatal("a snapshot was written; the test needs the reset record")
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p.Close()
	for _, d := range []string{copyDir, dir} { // replayed log; snapshot of a clean close
		reg2 := NewRegistry()
		q, err := Open(Config{ID: 1, Count: 1, DataDir: d, NoSync: true, Defs: reg2})
		if err != nil {
			t.Fatal(err)
		}
		if len(q.st.Instances) != 1 || q.st.Instances[kept] == nil {
			t.Fatalf("%s: instances %v, want only %d", d, len(q.st.Instances), kept)
		}
		if d == copyDir && reg2.Count() != 3 {
			// replayed: the dropped definitions stay until every partition
			// sharing the registry has replayed (DropResetDefs)
			t.Fatalf("%s: %d definitions before DropResetDefs, want 3", d, reg2.Count())
		}
		q.DropResetDefs()
		if len(q.st.Jobs) != 1 || reg2.Count() != 1 || reg2.Version("p", -1).Version != 1 {
			t.Fatalf("%s: %d jobs, %d definitions", d, len(q.st.Jobs), reg2.Count())
		}
		if q.st.counter < kept&(1<<KeyBits-1) {
			t.Fatalf("%s: key counter %d went back", d, q.st.counter)
		}
		go q.Run()
		q.Close()
	}
}
