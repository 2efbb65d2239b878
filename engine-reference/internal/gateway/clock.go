package gateway

import (
	"context"
	"sync"

	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TimeControl is a broker whose engine clock and state the admin API can
// move and reset (GetClock, AdvanceClock, SetClock, ResetState): Local
// when it holds every partition (`jobwire-engine dev`).
type TimeControl interface {
	// EngineClock is the clock every partition reads, or an error saying
	// why this broker cannot control it.
	EngineClock() (*partition.Clock, error)
	// Settle processes everything due at the clock's current time on every
	// partition, with what it sets off between partitions.
	Settle(ctx context.Context) (int, error)
	// Fired counts the due commands (timer events, job time-outs, retry
	// back-offs) every partition produced so far.
	Fired() int64
	// ResetState drops every partition's state (the clock offset too).
	ResetState(ctx context.Context) (int, error)
}

const noTimeControl = "the engine clock and ResetState are served by `jobwire-engine dev` (one process holding every partition); this server does not support them"

func (a *Admin) timeControl() (TimeControl, *partition.Clock, error) {
	tc, ok := a.g.broker.(TimeControl)
	if !ok {
		return nil, nil, status.Error(codes.Unimplemented, noTimeControl)
	}
	c, err := tc.EngineClock()
	if err != nil {
		return nil, nil, err
	}
	return tc, c, nil
}

// GetClock returns engine time and the clock offset.
func (a *Admin) GetClock(ctx context.Context, _ *apb.GetClockRequest) (*apb.GetClockResponse, error) {
	_, c, err := a.timeControl()
	if err != nil {
		return nil, err
	}
	off := c.Offset()
	return &apb.GetClockResponse{NowMs: c.Now(), OffsetMs: off}, nil
}

// AdvanceClock moves engine time forward and processes what became due.
func (a *Admin) AdvanceClock(ctx context.Context, r *apb.AdvanceClockRequest) (*apb.AdvanceClockResponse, error) {
	tc, c, err := a.timeControl()
	if err != nil {
		return nil, err
	}
	if r.DurationMs < 0 {
		return nil, status.Errorf(codes.InvalidArgument, "duration_ms must not be negative (engine time never runs backwards), got %d", r.DurationMs)
	}
	base := tc.Fired()
	if err := c.Advance(r.DurationMs); err != nil {
		return nil, status.Error(codes.FailedPrecondition, err.Error())
	}
	if _, err := tc.Settle(ctx); err != nil {
		return nil, err
	}
	n := tc.Fired() - base // a partition's own timer may beat the ticks to it
	return &apb.AdvanceClockResponse{NowMs: c.Now(), OffsetMs: c.Offset(), Fired: int32(n)}, nil
}

// SetClock sets engine time (forward only) and processes what became due.
func (a *Admin) SetClock(ctx context.Context, r *apb.SetClockRequest) (*apb.SetClockResponse, error) {
	tc, c, err := a.timeControl()
	if err != nil {
		return nil, err
	}
	base := tc.Fired()
	if err := c.Set(r.EpochMs); err != nil {
		return nil, status.Errorf(codes.FailedPrecondition, "SetClock to %d refused: engine time is %d and never runs backwards (ResetState sets the clock back to wall time)", r.EpochMs, c.Now())
	}
	if _, err := tc.Settle(ctx); err != nil {
		return nil, err
	}
	n := tc.Fired() - base
	return &apb.SetClockResponse{NowMs: c.Now(), OffsetMs: c.Offset(), Fired: int32(n)}, nil
}

// ResetState drops everything clients created and resets the clock offset.
func (a *Admin) ResetState(ctx context.Context, _ *apb.ResetStateRequest) (*apb.ResetStateResponse, error) {
	tc, _, err := a.timeControl()
	if err != nil {
		return nil, err
	}
	n, err := tc.ResetState(ctx)
	if err != nil {
		return nil, err
	}
	return &apb.ResetStateResponse{PartitionsReset: int32(n)}, nil
}

// EngineClock is the partitions' shared clock; every partition must run in
// this process.
func (l *Local) EngineClock() (*partition.Clock, error) {
	if int32(len(l.Parts)) != l.Count {
		return nil, status.Errorf(codes.Unimplemented, "this broker leads %d of %d partitions; %s", len(l.Parts), l.Count, noTimeControl)
	}
	var c *partition.Clock
	for _, p := range l.Parts {
		if p.Clock() == nil || (c != nil && p.Clock() != c) {
			return nil, status.Error(codes.Unimplemented, "the partitions do not share one engine clock; "+noTimeControl)
		}
		c = p.Clock()
	}
	if c == nil {
		return nil, status.Error(codes.Unimplemented, noTimeControl)
	}
	return c, nil
}

// Fired sums the partitions' counts of due commands.
func (l *Local) Fired() int64 {
	var n int64
	for _, p := range l.Parts {
		n += p.Fired()
	}
	return n
}

// tickAll sends OpTick to every partition at once.
func (l *Local) tickAll(ctx context.Context, ids []int32) ([]partition.TickResult, error) {
	res := make([]partition.TickResult, len(ids))
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := l.Parts[id].Submit(ctx, &partition.Command{Op: partition.OpTick})
			if err != nil {
				errs[i] = err
				return
			}
			res[i], _ = r.(partition.TickResult)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return res, nil
}

// Settle ticks every partition (in rounds) until everything due at the
// clock's time is processed, with what it set off between partitions: a
// timer that fires may start work on another partition (a message
// subscription) or make a cycle's next firing due at once. The partitions
// are settled after two rounds in which no partition fired or processed
// anything and no command between partitions waited in an outbox: a
// command forwarded during a round is in its target's queue ahead of the
// next round's tick, so the next round would see it processed.
func (l *Local) Settle(ctx context.Context) (int, error) {
	ids := l.ids()
	total := 0
	var prev []partition.TickResult
	prevIdle := false
	for {
		res, err := l.tickAll(ctx, ids)
		if err != nil {
			return total, err
		}
		idle := true
		for i, r := range res {
			total += r.Fired
			if r.Fired > 0 || r.Pending > 0 || r.More || prev == nil || prev[i].Processed != r.Processed {
				idle = false
			}
		}
		if idle && prevIdle {
			return total, nil
		}
		prev, prevIdle = res, idle
		if ctx.Err() != nil {
			return total, status.FromContextError(ctx.Err()).Err()
		}
	}
}

// ResetState drops the state of every partition. Commands between
// partitions still in flight are delivered first (Settle), so none about
// the old state arrives after the reset (a deployment's copies included).
// Every partition then resets at once, dropping the definitions up to the
// highest key in the registry they share (partition 1, which creates them,
// also drops up to its own key counter): replaying the partitions' logs in
// any order never brings a dropped definition back. Each reset is durable
// once answered (its log record); snapshots of the empty states follow.
func (l *Local) ResetState(ctx context.Context) (int, error) {
	c, err := l.EngineClock()
	if err != nil {
		return 0, err
	}
	if _, err := l.Settle(ctx); err != nil {
		return 0, err
	}
	c.Reset()
	var bound int64
	for _, p := range l.Parts {
		bound = max(bound, p.DefsUpTo())
	}
	ids := l.ids()
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = l.Parts[id].Submit(ctx, &partition.Command{Op: partition.OpReset, Key: bound})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	if partition.ResetSnapshot {
		// The resets are durable (their log records); snapshots of the
		// empty states compact the logs, after the answer.
		for _, id := range ids {
			l.Parts[id].Post(&partition.Command{Op: partition.OpSnapshot})
		}
	}
	return len(ids), nil
}
