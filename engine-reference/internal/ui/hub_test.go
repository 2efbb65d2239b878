package ui

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/partition"
)

func batch(key int64, state string) *partition.CommittedBatch {
	return &partition.CommittedBatch{Partition: 1, At: time.Now().UnixNano(),
		Counts:    partition.BatchCounts{Created: 1},
		Instances: []partition.InstanceView{{Key: key, Process: "p", State: state}}}
}

// The observer side never blocks the partition: while the hub is stuck
// (here: its lock held), batches beyond the queue are dropped and counted,
// and once it runs again the hub reloads its model from the partitions.
func TestCommittedNeverBlocksAndReseedsAfterOverflow(t *testing.T) {
	var seeds atomic.Int32
	h := NewHub(func(ctx context.Context, limit int) ([]partition.InstanceView, []partition.JobView, error) {
		seeds.Add(1)
		return []partition.InstanceView{{Key: 1 << 40, Process: "seeded", State: "ACTIVE"}}, nil, nil
	}, nil)
	h.Start()
	defer h.Close()
	if seeds.Load() != 1 {
		t.Fatalf("seeds = %d after Start, want 1", seeds.Load())
	}
	h.mu.Lock() // the hub goroutine blocks on its next batch
	start := time.Now()
	n := 2*InputQueue + 1000 // more than the queue plus what the hub drains before it blocks
	for i := 0; i < n; i++ {
		h.Committed(batch(int64(i+1), "ACTIVE"))
	}
	d := time.Since(start)
	h.mu.Unlock()
	if d > 2*time.Second {
		t.Fatalf("Committed took %v for %d batches while the hub was stuck", d, n)
	}
	if h.dropped.Load() == 0 {
		t.Fatal("no batch was dropped although the queue overflowed")
	}
	deadline := time.Now().Add(10 * time.Second)
	for seeds.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if seeds.Load() < 2 {
		t.Fatal("the hub did not reload its model after the overflow")
	}
	for time.Now().Before(deadline) && h.Snapshot().Totals.Created+h.dropped.Load() < int64(n) {
		time.Sleep(10 * time.Millisecond)
	}
	s := h.Snapshot()
	if s.Totals.Created+s.Totals.Dropped != int64(n) {
		t.Fatalf("created %d + dropped %d != %d committed", s.Totals.Created, s.Totals.Dropped, n)
	}
}

// A viewer that stops reading loses messages (never blocking the hub or the
// other viewers) and gets a fresh snapshot when it reads again.
func TestSlowViewerIsResynchronised(t *testing.T) {
	h := NewHub(nil, nil)
	slow, _ := h.subscribe()
	fast, _ := h.subscribe()
	for i := 0; i < ViewerQueue*3; i++ {
		h.mu.Lock()
		h.broadcast(sse("delta", []byte(`{"i":1}`)))
		h.mu.Unlock()
		select {
		case <-fast.ch:
		case <-time.After(5 * time.Second):
			t.Fatalf("the reading viewer did not get message %d", i)
		}
	}
	if !slow.resync.Load() || len(slow.ch) != ViewerQueue {
		t.Fatalf("the stalled viewer: resync=%v queued=%d", slow.resync.Load(), len(slow.ch))
	}
	if fast.resync.Load() {
		t.Fatal("the reading viewer was marked for a snapshot")
	}
	snap := h.resnapshot(slow)
	if !strings.HasPrefix(string(snap), "event: snapshot\ndata: {") {
		t.Fatalf("resnapshot = %.60q", snap)
	}
	if slow.resync.Load() || len(slow.ch) != 0 {
		t.Fatal("resnapshot must drain the queue and clear the flag")
	}
}

// The model keeps every active instance but only KeepFinished finished ones,
// and incidents follow their instance's view.
func TestModelBoundsAndIncidents(t *testing.T) {
	h := NewHub(nil, nil)
	h.mu.Lock()
	for i := 1; i <= KeepFinished+50; i++ {
		h.applyBatch(batch(int64(i), "COMPLETED"))
	}
	h.applyBatch(&partition.CommittedBatch{Instances: []partition.InstanceView{{Key: 5000, State: "INCIDENT",
		Incidents: []partition.IncidentView{{Key: 5001, Instance: 5000, Type: "JOB_NO_RETRIES", Message: "boom"}}}}})
	h.mu.Unlock()
	s := h.Snapshot()
	if len(s.Incidents) != 1 || s.Incidents[0].Message != "boom" {
		t.Fatalf("incidents = %+v", s.Incidents)
	}
	if s.Counts["COMPLETED"] != KeepFinished {
		t.Fatalf("finished instances kept = %d, want %d", s.Counts["COMPLETED"], KeepFinished)
	}
	h.mu.Lock()
	h.applyBatch(&partition.CommittedBatch{Resolved: []int64{5001},
		Instances: []partition.InstanceView{{Key: 5000, State: "COMPLETED"}}})
	h.mu.Unlock()
	s = h.Snapshot()
	if len(s.Incidents) != 0 {
		t.Fatalf("incident still open after resolve: %+v", s.Incidents)
	}
}
