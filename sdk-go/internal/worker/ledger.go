package worker

import (
	"context"
	"fmt"
	"sync"
)

// Ledger is the capacity ledger: the only place that counts the jobs a worker
// holds, polled and pushed alike. Invariant: 0 ≤ held ≤ max, always, where held
// counts jobs received and not yet released, the slots reserved for the poll in
// flight, and the slot the streamer reserved before calling Recv.
//
// Two reservations are soft so that neither activation path starves the other:
//   - the streamer may take a slot from a parked poll's pool (a long poll never
//     stops the stream);
//   - a poll may borrow the slot the streamer holds while waiting in Recv (so a
//     backlog is fetched even with maxJobsActive 1). If the stream then receives
//     a job, it takes a slot back from the pool or a free one; when none is left
//     the job is handed back to the engine, and held never exceeds max.
//
// A Slot is released exactly once (Release is idempotent).
type Ledger struct {
	mu             sync.Mutex
	max            int
	held           int // every reserved slot
	pollRes        int // part of held reserved for the poll in flight
	streamIdle     bool
	streamBorrowed bool // the poll pool took the streamer's idle slot
	changed        chan struct{}
	onJobs         func(jobs int)
}

// NewLedger returns an empty ledger of the given capacity (at least 1).
// onJobs, if not nil, observes the number of bound jobs after each change
// (called outside the lock; used for the capacity gauge).
func NewLedger(max int, onJobs func(int)) *Ledger {
	if max < 1 {
		max = 1
	}
	if onJobs == nil {
		onJobs = func(int) {}
	}
	return &Ledger{max: max, changed: make(chan struct{}), onJobs: onJobs}
}

// Slot is the capacity taken by one received job.
type Slot struct {
	l        *Ledger
	released bool
}

// Max returns the capacity.
func (l *Ledger) Max() int { return l.max }

// Held returns the number of slots currently taken.
func (l *Ledger) Held() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held
}

// Jobs returns the number of received jobs held (bound or about to be).
func (l *Ledger) Jobs() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held - l.pollRes - l.idleLocked()
}

func (l *Ledger) idleLocked() int {
	if l.streamIdle {
		return 1
	}
	return 0
}

// Changed returns a channel that is closed at the next change: a release of
// capacity, or a received job taking its slot.
// Take it before checking the condition you wait for, so no release is missed.
func (l *Ledger) Changed() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.changed
}

// PollWanted reports how many jobs a poll should ask for now: max − held when
// held ≤ 30 % of capacity or a backfill is due, else 0. The streamer's idle
// reservation does not count as held here, since a poll may borrow it.
func (l *Ledger) PollWanted(backfill bool) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	held := l.held - l.idleLocked()
	free := l.max - held
	if free <= 0 || l.pollRes > 0 {
		return 0
	}
	if backfill || held*10 <= l.max*3 {
		return free
	}
	return 0
}

// ReservePoll reserves up to n slots for a poll and returns how many it got.
func (l *Ledger) ReservePoll(n int) int {
	l.mu.Lock()
	got := 0
	for got < n && l.held < l.max {
		l.held++
		got++
	}
	if got < n && l.streamIdle {
		l.streamIdle, l.streamBorrowed = false, true
		got++
	}
	l.pollRes += got
	l.mu.Unlock()
	return got
}

// TakePoll turns one slot of the poll pool (or else a free slot) into the slot
// of a received job. It returns nil when no capacity is left.
func (l *Ledger) TakePoll() *Slot {
	l.mu.Lock()
	var s *Slot
	if l.pollRes > 0 {
		l.pollRes--
		s = &Slot{l: l}
	} else if l.held < l.max {
		l.held++
		s = &Slot{l: l}
	}
	return l.claimedLocked(s)
}

// claimedLocked signals a job taking a slot and reports the job count; it
// unlocks l.mu.
func (l *Ledger) claimedLocked(s *Slot) *Slot {
	if s == nil {
		l.mu.Unlock()
		return nil
	}
	jobs := l.held - l.pollRes - l.idleLocked()
	l.signalLocked()
	l.mu.Unlock()
	l.onJobs(jobs)
	return s
}

// ReturnPoll gives back what is left of the poll pool once the poll has ended.
func (l *Ledger) ReturnPoll() {
	l.mu.Lock()
	n := l.pollRes
	l.pollRes = 0
	if n > 0 && l.streamBorrowed {
		// Hand the borrowed slot back to the streamer, still parked in Recv.
		l.streamBorrowed, l.streamIdle = false, true
		n--
	}
	l.held -= n
	l.signalLocked()
	l.mu.Unlock()
}

// Reserve blocks until a slot is free (taking one from a parked poll's pool if
// need be) or ctx is done, and marks it as the streamer's idle reservation. Call
// it before Recv, then ClaimStream or DropStream.
func (l *Ledger) Reserve(ctx context.Context) error {
	for {
		l.mu.Lock()
		switch {
		case l.streamIdle:
			l.mu.Unlock()
			return nil
		case l.held < l.max:
			l.held++
			l.streamIdle = true
			l.mu.Unlock()
			return nil
		case l.pollRes > 0:
			l.pollRes--
			l.streamIdle = true
			l.mu.Unlock()
			return nil
		}
		ch := l.changed
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// ClaimStream converts the streamer's reservation into the slot of the job it
// just received. It returns nil when a poll used that slot and no other is
// free: the caller hands the job back to the engine at once.
func (l *Ledger) ClaimStream() *Slot {
	l.mu.Lock()
	switch {
	case l.streamIdle:
		l.streamIdle = false
		return l.claimedLocked(&Slot{l: l})
	case l.streamBorrowed:
		l.streamBorrowed = false
		if l.pollRes > 0 {
			l.pollRes--
			return l.claimedLocked(&Slot{l: l})
		}
	}
	if l.held < l.max {
		l.held++
		return l.claimedLocked(&Slot{l: l})
	}
	return l.claimedLocked(nil)
}

// DropStream gives back the streamer's reservation after Recv failed.
func (l *Ledger) DropStream() {
	l.mu.Lock()
	if l.streamBorrowed {
		l.streamBorrowed = false // the poll pool owns it now
		l.mu.Unlock()
		return
	}
	if !l.streamIdle {
		l.mu.Unlock()
		return
	}
	l.streamIdle = false
	l.held--
	l.signalLocked()
	l.mu.Unlock()
}

// Release gives the slot back. Calling it again is a no-op.
func (s *Slot) Release() {
	l := s.l
	l.mu.Lock()
	if s.released {
		l.mu.Unlock()
		return
	}
	s.released = true
	l.held--
	if l.held < 0 {
		l.mu.Unlock()
		panic(fmt.Sprintf("jobwire: capacity ledger underflow (held=%d)", l.held))
	}
	jobs := l.held - l.pollRes - l.idleLocked()
	l.signalLocked()
	l.mu.Unlock()
	l.onJobs(jobs)
}

func (l *Ledger) signalLocked() {
	close(l.changed)
	l.changed = make(chan struct{})
}
