package partition

import (
	"errors"
	"sync/atomic"
	"time"
)

// Clock is the engine clock: wall time plus an offset that only an admin
// call moves (AdvanceClock, SetClock; ResetState sets it back to 0). Every
// partition of an engine process reads time from the same Clock, so timers,
// job deadlines, retry back-offs and message TTLs follow it. A nil *Clock
// is wall time.
type Clock struct {
	offset atomic.Int64 // ms
}

// NewClock returns a clock at wall time.
func NewClock() *Clock { return &Clock{} }

// Now is engine time, epoch ms.
func (c *Clock) Now() int64 {
	if c == nil {
		return time.Now().UnixMilli()
	}
	return time.Now().UnixMilli() + c.offset.Load()
}

// Offset is engine time minus wall time, ms.
func (c *Clock) Offset() int64 {
	if c == nil {
		return 0
	}
	return c.offset.Load()
}

// ErrClockBackwards refuses a move of engine time into its past.
var ErrClockBackwards = errors.New("engine time never runs backwards")

// Advance moves engine time forward by d ms (d >= 0).
func (c *Clock) Advance(d int64) error {
	if d < 0 {
		return ErrClockBackwards
	}
	c.offset.Add(d)
	return nil
}

// Set moves engine time to at (epoch ms), refusing an earlier time than
// the current one.
func (c *Clock) Set(at int64) error {
	for {
		old := c.offset.Load()
		wall := time.Now().UnixMilli()
		if at < wall+old {
			return ErrClockBackwards
		}
		if c.offset.CompareAndSwap(old, at-wall) {
			return nil
		}
	}
}

// AtLeast moves the offset forward so engine time is not earlier than at
// (a restart finding partitions whose last processing time is ahead of
// wall time: they were advanced before the restart).
func (c *Clock) AtLeast(at int64) {
	for {
		old := c.offset.Load()
		wall := time.Now().UnixMilli()
		if at <= wall+old || c.offset.CompareAndSwap(old, at-wall) {
			return
		}
	}
}

// Reset sets the offset back to 0 (ResetState).
func (c *Clock) Reset() { c.offset.Store(0) }
