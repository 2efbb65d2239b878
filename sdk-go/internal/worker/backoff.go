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
	cfg  BackoffConfig
	next time.Duration
	rand func() float64 // in [0,1); replaced in tests
}

// BackoffConfig are the bounds of a Backoff; the zero value means the
// defaults (BackoffMin, BackoffMax, BackoffFactor).
type BackoffConfig struct {
	Initial    time.Duration
	Max        time.Duration
	Multiplier float64
}

// resolved fills zero fields with the defaults.
func (c BackoffConfig) resolved() BackoffConfig {
	if c.Initial <= 0 {
		c.Initial = BackoffMin
	}
	if c.Max <= 0 {
		c.Max = BackoffMax
	}
	if c.Max < c.Initial {
		c.Max = c.Initial
	}
	if c.Multiplier < 1 {
		c.Multiplier = BackoffFactor
	}
	return c
}

// NewBackoff returns a Backoff with the default bounds, at its minimum.
func NewBackoff() *Backoff { return NewBackoffWith(BackoffConfig{}) }

// NewBackoffWith returns a Backoff with bounds cfg, at its minimum.
func NewBackoffWith(cfg BackoffConfig) *Backoff {
	cfg = cfg.resolved()
	return &Backoff{cfg: cfg, next: cfg.Initial, rand: rand.Float64}
}

// Next returns the delay to wait now and advances the sequence.
func (b *Backoff) Next() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	d := b.next
	grown := time.Duration(float64(b.next) * b.cfg.Multiplier)
	if grown > b.cfg.Max || grown < 0 {
		grown = b.cfg.Max
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
	b.next = b.cfg.Max
	return time.Duration(float64(b.cfg.Max) * (1 + (b.rand()*2-1)*BackoffJitter))
}

// Reset returns the sequence to its minimum.
func (b *Backoff) Reset() {
	b.mu.Lock()
	b.next = b.cfg.Initial
	b.mu.Unlock()
}
