package gateway

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/gateway/faults"
	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// LongPolls tracks parked ActivateJobs requests per job type (facts §2.4).
type LongPolls struct {
	mu     sync.Mutex
	types  map[string]*pollType
	nextID uint64
}

type pollType struct {
	gen     uint64 // bumped by every jobs-available notification
	rr      uint32 // round-robin start partition
	waiters map[uint64]*pollWaiter
}

type pollWaiter struct {
	id       uint64
	typ      string
	worker   string
	peer     string
	max      int32
	parkedAt int64
	wake     chan struct{}
	reset    chan codes.Code
}

func newLongPolls() *LongPolls { return &LongPolls{types: map[string]*pollType{}} }

func (l *LongPolls) typeState(t string) *pollType {
	ts := l.types[t]
	if ts == nil {
		ts = &pollType{waiters: map[uint64]*pollWaiter{}}
		l.types[t] = ts
	}
	return ts
}

func (l *LongPolls) notifyAll() {
	l.mu.Lock()
	var ts []string
	for t := range l.types {
		ts = append(ts, t)
	}
	l.mu.Unlock()
	for _, t := range ts {
		l.notify(t)
	}
}

// notify wakes every request parked on the type. Waking all (Zeebe ≤ 8.7)
// costs an empty pass for the losers but can never strand a request while
// jobs wait.
func (l *LongPolls) notify(t string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ts := l.types[t]
	if ts == nil {
		return
	}
	ts.gen++
	for id, w := range ts.waiters {
		select {
		case w.wake <- struct{}{}:
		default:
		}
		delete(ts.waiters, id)
	}
}

func (l *LongPolls) generation(t string) (uint64, uint32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ts := l.typeState(t)
	ts.rr++
	return ts.gen, ts.rr
}

// park registers w unless a notification arrived since gen was read.
func (l *LongPolls) park(w *pollWaiter, gen uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	ts := l.typeState(w.typ)
	if ts.gen != gen {
		return false
	}
	l.nextID++
	w.id = l.nextID
	w.parkedAt = time.Now().UnixMilli()
	ts.waiters[w.id] = w
	return true
}

func (l *LongPolls) unpark(w *pollWaiter) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ts := l.types[w.typ]; ts != nil {
		delete(ts.waiters, w.id)
	}
}

// Snapshot lists parked requests.
func (l *LongPolls) Snapshot() []pollWaiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []pollWaiter
	for _, ts := range l.types {
		for _, w := range ts.waiters {
			out = append(out, *w)
		}
	}
	return out
}

// ResetAll ends every parked request with code.
func (l *LongPolls) ResetAll(code codes.Code) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, ts := range l.types {
		for id, w := range ts.waiters {
			select {
			case w.reset <- code:
				n++
			default:
			}
			delete(ts.waiters, id)
		}
	}
	return n
}

// ActivateJobs implements long polling: one pass over the partitions
// (round-robin start per type), one response message per partition that
// yielded jobs; a pass with jobs ends the call; otherwise the request parks
// until a jobs-available notification, its requestTimeout, or a cancel.
func (g *Gateway) ActivateJobs(r *pb.ActivateJobsRequest, stream grpc.ServerStreamingServer[pb.ActivateJobsResponse]) error {
	if strings.TrimSpace(r.Type) == "" {
		return status.Error(codes.InvalidArgument, "Expected to activate jobs with type to be present, but it was blank")
	}
	if r.MaxJobsToActivate < 1 {
		return status.Errorf(codes.InvalidArgument, "Expected to activate jobs with maxJobsToActivate greater than zero, but it was '%d'", r.MaxJobsToActivate)
	}
	if r.Timeout < 1 {
		return status.Errorf(codes.InvalidArgument, "Expected to activate jobs with timeout greater than zero, but it was '%d'", r.Timeout)
	}
	if err := checkTenants(r.TenantIds); err != nil {
		return err
	}
	ctx := stream.Context()
	w := &pollWaiter{typ: r.Type, worker: r.Worker, peer: faults.PeerOf(ctx), max: r.MaxJobsToActivate,
		wake: make(chan struct{}, 1), reset: make(chan codes.Code, 1)}
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		gen, rr := g.Polls.generation(r.Type)
		n, exhausted, err := g.activationPass(ctx, r, rr, stream)
		if err != nil {
			return err
		}
		if n > 0 || r.RequestTimeout < 0 || g.NoLongPolling {
			return nil
		}
		if exhausted {
			return status.Errorf(codes.ResourceExhausted, "Expected to activate jobs of type '%s', but no jobs available and at least one broker returned 'RESOURCE_EXHAUSTED'. Please try again later.", r.Type)
		}
		if timer == nil {
			d := g.DefaultLongPoll
			if r.RequestTimeout > 0 {
				d = time.Duration(r.RequestTimeout) * time.Millisecond
			}
			timer = time.NewTimer(d) // counted from the first park, as in Zeebe
		}
		if !g.Polls.park(w, gen) {
			continue // a notification raced with the pass: go again
		}
		var failC <-chan time.Time
		failCode := codes.OK
		if code, after, ok := g.Faults.TakeLongPollFault(); ok {
			ft := time.NewTimer(after)
			defer ft.Stop()
			failC, failCode = ft.C, code
		}
		select {
		case <-failC:
			g.Polls.unpark(w)
			return status.Error(failCode, "long poll ended by an injected fault (like a proxy's 504)")
		case <-w.wake:
		case <-timer.C:
			g.Polls.unpark(w)
			return nil
		case code := <-w.reset:
			return status.Error(code, "long poll ended by the gateway (admin reset)")
		case <-g.closing:
			g.Polls.unpark(w)
			return errShuttingDown
		case <-ctx.Done():
			g.Polls.unpark(w)
			return status.FromContextError(ctx.Err()).Err()
		}
	}
}

func (g *Gateway) activationPass(ctx context.Context, r *pb.ActivateJobsRequest, rr uint32, stream grpc.ServerStreamingServer[pb.ActivateJobsResponse]) (int, bool, error) {
	n := g.broker.PartitionCount()
	remaining := r.MaxJobsToActivate
	total := 0
	exhausted := false
	for i := int32(0); i < n && remaining > 0; i++ {
		pid := (int32(rr)+i)%n + 1
		if !g.broker.Healthy(pid) {
			continue // no reachable leader: skipped, as Zeebe skips it
		}
		if code, msg, ok := g.Faults.PartitionReject("ActivateJobs", pid); ok {
			if code == codes.ResourceExhausted {
				exhausted = true
				continue
			}
			return total, false, status.Error(code, msg)
		}
		res, err := g.broker.Submit(ctx, pid, &partition.Command{Op: partition.OpActivate, Type: r.Type, Worker: r.Worker,
			Timeout: r.Timeout, MaxJobs: remaining, FetchVariables: r.FetchVariable})
		if err != nil {
			if status.Code(err) == codes.ResourceExhausted {
				exhausted = true
				continue
			}
			if ctx.Err() != nil {
				return total, false, status.FromContextError(ctx.Err()).Err()
			}
			continue // like Zeebe: other broker errors skip the partition
		}
		jobs, _ := res.([]*pb.ActivatedJob)
		if len(jobs) == 0 {
			continue
		}
		if ctx.Err() != nil || stream.Send(&pb.ActivateJobsResponse{Jobs: jobs}) != nil {
			// The client is gone: fail the jobs back with retries unchanged.
			g.returnJobs(jobs)
			return total, false, status.Error(codes.Canceled, "the client cancelled the request; activated jobs were returned")
		}
		total += len(jobs)
		remaining -= int32(len(jobs))
	}
	return total, exhausted, nil
}

func (g *Gateway) returnJobs(jobs []*pb.ActivatedJob) {
	for _, j := range jobs {
		g.broker.Post(partition.PartitionOf(j.Key), &partition.Command{Op: partition.OpReturn, Key: j.Key, Deadline: j.Deadline})
	}
}
