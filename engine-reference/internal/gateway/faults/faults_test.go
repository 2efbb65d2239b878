package faults

import (
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
)

// Per-peer request counts are bounded: every new connection is a new
// peer, and a long-running engine must not keep counters for all of them.
// The least recently active peers are folded into one entry per method, so
// totals per method and code stay exact and active peers keep their own.
func TestRequestCountsBoundedWithExactTotals(t *testing.T) {
	f := NewFaults()
	t0 := time.UnixMilli(1_000_000)
	const peers = 3 * MaxCountKeys
	for i := 0; i < peers; i++ {
		at := t0.Add(time.Duration(i) * time.Millisecond)
		peer := fmt.Sprintf("127.0.0.1:%d", 10000+i)
		f.Record("CompleteJob", peer, codes.OK, at)
		f.Record("CompleteJob", peer, codes.NotFound, at)
	}
	// The newest peer stays active all along.
	for i := 0; i < 10; i++ {
		f.Record("ActivateJobs", "127.0.0.1:9", codes.OK, t0.Add(time.Duration(peers+i)*time.Millisecond))
	}
	counts := f.Counts("")
	if len(counts) > MaxCountKeys {
		t.Fatalf("%d count entries kept, bound %d", len(counts), MaxCountKeys)
	}
	var total, ok, notFound int64
	var active *Count
	for i := range counts {
		c := &counts[i]
		if c.Method == "CompleteJob" {
			total += c.Total
			ok += c.ByCode["OK"]
			notFound += c.ByCode["NOT_FOUND"]
		}
		if c.Peer == "127.0.0.1:9" {
			active = c
		}
	}
	if total != 2*peers || ok != peers || notFound != peers {
		t.Fatalf("CompleteJob totals after eviction: %d (OK %d, NOT_FOUND %d), want %d (%d, %d)", total, ok, notFound, 2*peers, peers, peers)
	}
	if active == nil || active.Total != 10 {
		t.Fatalf("the active peer lost its own counts: %+v", active)
	}
}
