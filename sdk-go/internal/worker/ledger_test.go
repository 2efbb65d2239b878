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
			if l.ReserveStream(ctx) != nil {
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
			n, below := l.PollWanted()
			if n <= 0 || !(below || i%7 == 0) {
				time.Sleep(50 * time.Microsecond)
				continue
			}
			got := l.ReservePoll(n, i%2 == 0)
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
	if got, below := l.PollWanted(); got != 7 || !below { // 3 ≤ 30 % of 10
		t.Fatalf("PollWanted at 3/10 = %d %v, want 7 true", got, below)
	}
	slots = append(slots, l.TakePoll())
	if got, below := l.PollWanted(); got != 6 || below { // 4 > 30 %: only a backfill or fairness poll asks
		t.Fatalf("PollWanted at 4/10 = %d %v, want 6 false", got, below)
	}
	// The streamer's reservation counts as held: a poll never asks for its slot.
	if err := l.ReserveStream(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, _ := l.PollWanted(); got != 5 {
		t.Fatalf("PollWanted with a reserved stream slot = %d, want 5", got)
	}
	l.DropStream()
	for _, s := range slots {
		s.Release()
	}
}

func TestStreamTakesFromParkedPoll(t *testing.T) {
	l := NewLedger(2, nil)
	if got := l.ReservePoll(2, true); got != 2 {
		t.Fatalf("ReservePoll = %d", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := l.ReserveStream(ctx); err != nil { // must not wait for the poll
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

func TestReservedStreamSlotIsNeverLent(t *testing.T) {
	l := NewLedger(1, nil)
	if err := l.ReserveStream(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, _ := l.PollWanted(); got != 0 {
		t.Fatalf("a poll asks %d with the only slot reserved by the stream, want 0", got)
	}
	if got := l.ReservePoll(1, true); got != 0 {
		t.Fatalf("ReservePoll took the stream's slot: %d", got)
	}
	l.ReturnPoll()
	if l.ClaimStream() == nil {
		t.Fatal("the pushed job found no slot")
	}
	if l.Held() != 1 {
		t.Fatalf("held = %d, want 1", l.Held())
	}
}

func TestPollDueHoldsTheStreamBack(t *testing.T) {
	l := NewLedger(2, nil)
	s := l.TakePoll()
	l.SetPollDue(true)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := l.ReserveStream(ctx); err == nil {
		t.Fatal("the streamer reserved while a poll was due")
	}
	if got := l.ReservePoll(1, false); got != 1 {
		t.Fatalf("the due poll got %d slots, want 1", got)
	}
	// A non-parking (fairness) poll's pool is not lent to the streamer.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	if err := l.ReserveStream(ctx2); err == nil {
		t.Fatal("the streamer took a slot of a fairness poll")
	}
	l.ReturnPoll()
	if err := l.ReserveStream(context.Background()); err != nil {
		t.Fatal(err)
	}
	l.DropStream()
	s.Release()
}

func TestReserveWaitsForRelease(t *testing.T) {
	l := NewLedger(1, nil)
	s := l.TakePoll()
	done := make(chan error, 1)
	go func() { done <- l.ReserveStream(context.Background()) }()
	select {
	case <-done:
		t.Fatal("ReserveStream returned while the ledger was full")
	case <-time.After(30 * time.Millisecond):
	}
	s.Release()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Second):
		t.Fatal("ReserveStream did not wake on release")
	}
}
