package worker

import (
	"math/rand/v2"
	"sync"
	"time"
)

// Backoff constants shared by every SDK (WORKER-SEMANTICS "Errors and backoff").
const (
	BackoffMin    = 50 * time.Millisecond
	BackoffMax    = 5 * time.Second
	BackoffFactor = 1.6
	BackoffJitter = 0.1
)

// Backoff is an exponential delay: 50 ms, 80 ms, 128 ms, ... capped at 5 s,
// each value spread by ±10 % jitter so that many workers do not retry in step.
// Reset returns to the minimum; callers reset after every success so that a
// long-running worker never accumulates an ever-growing delay.
type Backoff struct {
	mu   sync.Mutex
	next time.Duration
	rand func() float64 // in [0,1); replaced in tests
}

// NewBackoff returns a Backoff at its minimum.
func NewBackoff() *Backoff { return &Backoff{next: BackoffMin, rand: rand.Float64} }

// Next returns the delay to wait now and advances the sequence.
func (b *Backoff) Next() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	d := b.next
	grown := time.Duration(float64(b.next) * BackoffFactor)
	if grown > BackoffMax {
		grown = BackoffMax
	}
	b.next = grown
	jitter := (b.rand()*2 - 1) * BackoffJitter // [-0.1, 0.1)
	return time.Duration(float64(d) * (1 + jitter))
}

// Max returns a jittered maximum delay without advancing the sequence; used for
// errors that retrying soon cannot fix (INVALID_ARGUMENT, PERMISSION_DENIED, ...).
func (b *Backoff) Max() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.next = BackoffMax
	return time.Duration(float64(BackoffMax) * (1 + (b.rand()*2-1)*BackoffJitter))
}

// Reset returns the sequence to its minimum.
func (b *Backoff) Reset() {
	b.mu.Lock()
	b.next = BackoffMin
	b.mu.Unlock()
}
