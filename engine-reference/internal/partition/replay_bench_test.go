package partition

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
)

// fillLog runs n single-task instances to completion (create, activate,
// complete: the storage benchmark's workload) on one partition with no
// snapshot, and returns a copy of its data dir as a crash would leave it.
func fillLog(b *testing.B, n int) string {
	b.Helper()
	old, oldTail := SnapshotEvery, SnapshotTailBytes
	SnapshotEvery, SnapshotTailBytes = 1<<40, 1<<40
	defer func() { SnapshotEvery, SnapshotTailBytes = old, oldTail }()
	dir := b.TempDir()
	p, err := Open(Config{ID: 1, Count: 1, DataDir: dir, NoSync: true, Defs: NewRegistry(), History: 1000})
	if err != nil {
		b.Fatal(err)
	}
	go p.Run()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := p.Submit(ctx, &Command{Op: OpDeploy, Resources: []Resource{{Name: "p.bpmn", Content: []byte(waitBPMN)}}}); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i += 64 {
		for k := 0; k < 64; k++ {
			if _, err := p.Submit(ctx, &Command{Op: OpCreate, BpmnProcessID: "p", Version: -1}); err != nil {
				b.Fatal(err)
			}
		}
		r, err := p.Submit(ctx, &Command{Op: OpActivate, Type: "w", Worker: "t", MaxJobs: 64, Timeout: 60_000})
		if err != nil {
			b.Fatal(err)
		}
		for _, j := range r.([]*gatewaypb.ActivatedJob) {
			if _, err := p.Submit(ctx, &Command{Op: OpComplete, Key: j.Key, Variables: `{"done":true}`}); err != nil {
				b.Fatal(err)
			}
		}
	}
	// Copy the files as they are (a crash image: no closing snapshot).
	crash := b.TempDir()
	src := filepath.Join(dir, "partition-1")
	dst := filepath.Join(crash, "partition-1")
	os.MkdirAll(dst, 0o755)
	ents, _ := os.ReadDir(src)
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			b.Fatal(err)
		}
		os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644)
	}
	p.Close()
	return crash
}

// BenchmarkReplay measures crash recovery per logged record (go test
// -bench Replay -cpuprofile): the cost a snapshot interval bounds. It also
// reports the log bytes and the recovery time per finished instance
// (create, its share of an activation, complete). Run it with
// JOBWIRE_VERIFY_RESULTS=0 (Open builds VerifyResults' second state).
func BenchmarkReplay(b *testing.B) {
	const n = 5000
	dir := fillLog(b, n)
	b.ResetTimer()
	var recs, size int64
	for i := 0; i < b.N; i++ {
		p, err := Open(Config{ID: 1, Count: 1, DataDir: dir, NoSync: true, Defs: NewRegistry(), History: 1000})
		if err != nil {
			b.Fatal(err)
		}
		recs, size = p.log.Records(), p.log.Bytes()
		p.log.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*recs), "ns/record")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*n), "ns/instance")
	b.ReportMetric(float64(size)/n, "log-bytes/instance")
}

// BenchmarkSnapshotEncode measures a snapshot of a partition with a full
// history: "encode" is the partition goroutine's share (live state, frozen
// history), "assemble" the snapshot writer's (the history).
func BenchmarkSnapshotEncode(b *testing.B) {
	dir := fillLog(b, 5000)
	p, err := Open(Config{ID: 1, Count: 1, DataDir: dir, NoSync: true, Defs: NewRegistry(), History: 1000})
	if err != nil {
		b.Fatal(err)
	}
	defer p.log.Close()
	b.Run("encode", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := p.encodeSnapshot(2, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("assemble", func(b *testing.B) {
		es, err := p.encodeSnapshot(2, 0)
		if err != nil {
			b.Fatal(err)
		}
		var size int
		for i := 0; i < b.N; i++ {
			out, err := es.assemble()
			if err != nil {
				b.Fatal(err)
			}
			size = len(out)
		}
		b.ReportMetric(float64(size), "bytes")
	})
}
