package worker

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

func TestLedgerInvariantUnderConcurrency(t *testing.T) {
	const max = 5
	var mu sync.Mutex
	worst := 0
	l := NewLedger(max, func(h int) {
		mu.Lock()
		if h > worst {
			worst = h
		}
		if h < 0 || h > max {
			t.Errorf("held out of bounds: %d", h)
		}
		mu.Unlock()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	// a "streamer"
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 300; i++ {
			if l.Reserve(ctx) != nil {
				return
			}
			if rand.IntN(4) == 0 {
				l.DropStream()
				continue
			}
			s := l.ClaimStream()
			if s == nil {
				continue
			}
			go func() { time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond); s.Release() }()
		}
	}()
	// a "poller"
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 300; i++ {
			n := l.PollWanted(i%7 == 0)
			if n == 0 {
				time.Sleep(50 * time.Microsecond)
				continue
			}
			got := l.ReservePoll(n)
			for k := 0; k < got+1; k++ { // one more than reserved: must be refused or fit
				s := l.TakePoll()
				if s == nil {
					break
				}
				go func() { time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond); s.Release() }()
			}
			l.ReturnPoll()
		}
	}()
	wg.Wait()
	deadline := time.Now().Add(time.Second)
	for l.Held() != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if h := l.Held(); h != 0 {
		// The streamer may still hold its idle reservation.
		l.DropStream()
		if h = l.Held(); h != 0 {
			t.Fatalf("held = %d after everything was released", h)
		}
	}
	if worst > max {
		t.Fatalf("worst held %d > max %d", worst, max)
	}
}

func TestSlotReleaseExactlyOnce(t *testing.T) {
	l := NewLedger(2, nil)
	s := l.TakePoll()
	s.Release()
	s.Release()
	if l.Held() != 0 {
		t.Fatalf("held = %d, want 0", l.Held())
	}
}

func TestPollWantedThreshold(t *testing.T) {
	l := NewLedger(10, nil)
	var slots []*Slot
	for i := 0; i < 3; i++ {
		slots = append(slots, l.TakePoll())
	}
	if got := l.PollWanted(false); got != 7 { // 3 ≤ 30 % of 10
		t.Fatalf("PollWanted at 3/10 = %d, want 7", got)
	}
	slots = append(slots, l.TakePoll())
	if got := l.PollWanted(false); got != 0 { // 4 > 30 %
		t.Fatalf("PollWanted at 4/10 = %d, want 0", got)
	}
	if got := l.PollWanted(true); got != 6 { // a backfill asks anyway
		t.Fatalf("backfill PollWanted at 4/10 = %d, want 6", got)
	}
	for _, s := range slots {
		s.Release()
	}
}

func TestStreamTakesFromParkedPoll(t *testing.T) {
	l := NewLedger(2, nil)
	if got := l.ReservePoll(2); got != 2 {
		t.Fatalf("ReservePoll = %d", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := l.Reserve(ctx); err != nil { // must not wait for the poll
		t.Fatalf("stream could not reserve while a poll was parked: %v", err)
	}
	s := l.ClaimStream()
	if s == nil || l.Held() != 2 {
		t.Fatalf("claim = %v held = %d", s, l.Held())
	}
	p := l.TakePoll()
	if p == nil {
		t.Fatal("poll lost its remaining slot")
	}
	if l.TakePoll() != nil {
		t.Fatal("a third job was accepted with capacity 2")
	}
	l.ReturnPoll()
	s.Release()
	p.Release()
	if l.Held() != 0 {
		t.Fatalf("held = %d", l.Held())
	}
}

func TestPollBorrowsIdleStreamSlotWithCapacityOne(t *testing.T) {
	l := NewLedger(1, nil)
	if err := l.Reserve(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := l.PollWanted(true); got != 1 {
		t.Fatalf("backfill with an idle stream slot asks %d, want 1", got)
	}
	if got := l.ReservePoll(1); got != 1 {
		t.Fatalf("ReservePoll = %d", got)
	}
	// The stream receives first: it takes the slot back from the pool.
	if l.ClaimStream() == nil {
		t.Fatal("stream job refused")
	}
	if l.TakePoll() != nil {
		t.Fatal("poll job accepted beyond capacity 1")
	}
	l.ReturnPoll()
	if l.Held() != 1 {
		t.Fatalf("held = %d, want 1", l.Held())
	}
}

func TestReserveWaitsForRelease(t *testing.T) {
	l := NewLedger(1, nil)
	s := l.TakePoll()
	done := make(chan error, 1)
	go func() { done <- l.Reserve(context.Background()) }()
	select {
	case <-done:
		t.Fatal("Reserve returned while the ledger was full")
	case <-time.After(30 * time.Millisecond):
	}
	s.Release()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Second):
		t.Fatal("Reserve did not wake on release")
	}
}
