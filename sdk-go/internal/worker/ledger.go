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
// A stream read always has a slot (docs/worker-semantics.md, "A stream read
// always has a slot"): the streamer's reservation counts as held when a poll
// computes how many jobs to ask for, so a poll never takes the slot a pushed
// job will land in. The streamer may still take a slot from the pool of a
// parked long poll (a long poll never stops the stream); a polled job that then
// finds no slot is handed back (overflow). While a poll is due (backfill or
// fairness) and none is in flight, the streamer does not reserve: the poll
// gets the next free slot. A poller that sleeps (pollInterval after an empty
// answer, back-off after an error) has no poll due (RestPoll), so the reader
// goes on reading through the pause. A due poll never takes the reservation
// the reader already holds: that read has started and its job lands there.
//
// A Slot is released exactly once (Release is idempotent).
type Ledger struct {
	mu         sync.Mutex
	max        int
	held       int  // every reserved slot
	pollRes    int  // part of held reserved for the poll in flight
	pollIn     bool // a poll is in flight (from ReservePoll to ReturnPoll, whatever its pool holds)
	pollParked bool // the poll in flight parks (the streamer may take from its pool)
	streamRes  bool // the streamer holds its reservation
	pollDue    bool // a poll waits for a free slot: the streamer does not reserve
	pollRests  bool // the poller sleeps (pollInterval, back-off): no poll is due
	changed    chan struct{}
	waited     bool // changed was handed out (Changed, ReserveStream): the next change closes it
	// the poller's own wake-up (PollState): closed only by a change after which
	// its decision can differ, not by every claim and release (in push mode
	// that woke it twice per job for nothing)
	pollCh    chan struct{}
	pollWaits bool // pollCh was handed out and is not closed yet
	pollFree  bool // what PollState reported: a free slot
	pollBelow bool // and jobs at or below the poll threshold
	onJobs    func(jobs int)
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

// Held returns the number of slots currently taken (jobs and reservations).
func (l *Ledger) Held() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held
}

// Jobs returns the number of received jobs held (bound or about to be).
func (l *Ledger) Jobs() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.jobsLocked()
}

func (l *Ledger) jobsLocked() int {
	n := l.held - l.pollRes
	if l.streamRes {
		n--
	}
	return n
}

// Changed returns a channel that is closed at the next change: a release of
// capacity, or a received job taking its slot.
// Take it before checking the condition you wait for, so no release is missed.
func (l *Ledger) Changed() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.waited = true
	return l.changed
}

// PollWanted reports how many jobs a poll may ask for now: max − held −
// reserved (the streamer's reservation counts), and whether the jobs held are
// at or below the poll threshold (30 % of capacity). With no poll in flight
// only; else (0, false).
func (l *Ledger) PollWanted() (free int, belowThreshold bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pollWantedLocked()
}

func (l *Ledger) pollWantedLocked() (free int, belowThreshold bool) {
	if l.pollIn {
		return 0, false
	}
	return l.max - l.held, l.jobsLocked()*10 <= l.max*3
}

// PollState is PollWanted plus the poller's wake-up: a channel closed at the
// first change after which PollWanted says otherwise — a free slot appears or
// goes, jobs held cross the poll threshold — or the poll's own state changes
// (reserved, returned, due, resting), or Poke is called.
func (l *Ledger) PollState() (free int, belowThreshold bool, changed <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	free, belowThreshold = l.pollWantedLocked()
	if !l.pollWaits {
		l.pollCh = make(chan struct{})
		l.pollWaits = true
	}
	l.pollFree, l.pollBelow = free > 0, belowThreshold
	return free, belowThreshold, l.pollCh
}

// Poke wakes the poller (its other inputs changed: the stream opened or closed).
func (l *Ledger) Poke() {
	l.mu.Lock()
	l.wakePollerLocked()
	l.mu.Unlock()
}

func (l *Ledger) wakePollerLocked() {
	if l.pollWaits {
		close(l.pollCh)
		l.pollWaits = false
	}
}

// SetPollDue marks (or clears) a poll waiting for a free slot; while it is set
// the streamer does not reserve. While the poller rests (RestPoll) no poll is
// due and marking one does nothing.
func (l *Ledger) SetPollDue(due bool) {
	l.mu.Lock()
	if l.pollRests {
		due = false
	}
	if l.pollDue != due {
		l.pollDue = due
		l.wakePollerLocked()
		if !due {
			l.signalLocked()
		}
	}
	l.mu.Unlock()
}

// RestPoll tells the ledger that the poller sleeps (resting true: pollInterval
// after an empty answer, back-off after an error) or woke up (false). A
// sleeping poller has no poll due: the mark is cleared and SetPollDue(true)
// does nothing until it wakes, so the stream reader is never held back
// through a pause (a stream that reopens during a long back-off is read at
// once). Once awake the poller plans again and marks its poll due anew if it
// still finds no free slot.
func (l *Ledger) RestPoll(resting bool) {
	l.mu.Lock()
	if l.pollRests != resting {
		l.wakePollerLocked()
	}
	l.pollRests = resting
	if resting && l.pollDue {
		l.pollDue = false
		l.signalLocked()
	}
	l.mu.Unlock()
}

// PollDue reports whether a poll waits for a slot.
func (l *Ledger) PollDue() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pollDue
}

// ReservePoll reserves up to n free slots for a poll and returns how many it
// got; it clears the poll-due mark. parks says whether the poll may park (the
// streamer may then take slots from its pool).
func (l *Ledger) ReservePoll(n int, parks bool) int {
	l.mu.Lock()
	got := 0
	for got < n && l.held < l.max {
		l.held++
		got++
	}
	l.pollRes += got
	l.pollIn = got > 0
	l.pollParked = parks
	l.pollDue = false
	l.wakePollerLocked()
	l.signalLocked()
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
	jobs := l.jobsLocked()
	l.signalLocked()
	l.mu.Unlock()
	l.onJobs(jobs)
	return s
}

// ReturnPoll gives back what is left of the poll pool once the poll has ended.
func (l *Ledger) ReturnPoll() {
	l.mu.Lock()
	l.held -= l.pollRes
	l.pollRes = 0
	l.pollIn = false
	l.pollParked = false
	l.wakePollerLocked()
	l.signalLocked()
	l.mu.Unlock()
}

// ReserveStream blocks until a slot is free (or one of a parked poll's pool can be
// taken) and no poll is due, or ctx is done, and marks it as the streamer's
// reservation. Call it before Recv, then ClaimStream or DropStream.
func (l *Ledger) ReserveStream(ctx context.Context) error {
	for {
		l.mu.Lock()
		switch {
		case l.streamRes:
			l.mu.Unlock()
			return nil
		case l.pollDue && !l.pollIn:
			// A poll waits for the next free slot (with a poll in flight the
			// due one cannot be sent before it ends anyway).
		case l.held < l.max:
			l.held++
			l.streamRes = true
			l.mu.Unlock()
			return nil
		case l.pollRes > 0 && l.pollParked:
			l.pollRes--
			l.streamRes = true
			l.mu.Unlock()
			return nil
		}
		ch := l.changed
		l.waited = true
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// ClaimStream converts the streamer's reservation into the slot of the job it
// just received. It returns nil only if the streamer held no reservation and no
// slot is free (the caller then hands the job back to the engine at once).
func (l *Ledger) ClaimStream() *Slot {
	l.mu.Lock()
	if l.streamRes {
		l.streamRes = false
		return l.claimedLocked(&Slot{l: l})
	}
	if l.held < l.max {
		l.held++
		return l.claimedLocked(&Slot{l: l})
	}
	return l.claimedLocked(nil)
}

// DropStream gives back the streamer's reservation (Recv failed, or the stream
// is being drained).
func (l *Ledger) DropStream() {
	l.mu.Lock()
	if !l.streamRes {
		l.mu.Unlock()
		return
	}
	l.streamRes = false
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
	jobs := l.jobsLocked()
	l.signalLocked()
	l.mu.Unlock()
	l.onJobs(jobs)
}

func (l *Ledger) signalLocked() {
	// the poller: only a change after which PollWanted says otherwise
	if l.pollWaits {
		if free, below := l.pollWantedLocked(); (free > 0) != l.pollFree || below != l.pollBelow {
			l.wakePollerLocked()
		}
	}
	// nobody holds the channel: no one to wake, and the next taker gets it
	// open (taking it before checking what it waits for, it misses nothing)
	if !l.waited {
		return
	}
	close(l.changed)
	l.changed = make(chan struct{})
	l.waited = false
}
