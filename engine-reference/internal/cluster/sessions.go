package cluster

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"

	"github.com/jobwire/jobwire/engine-reference/internal/gateway"

	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	cpb "github.com/jobwire/jobwire/engine-reference/internal/pb/clusterpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
)

// sessions is the broker's registry of connected gateways and the push
// streams they registered (Zeebe's RemoteStreamRegistry, in memory only).
// It is the partitions' Hooks: push targets and jobs-available broadcasts.
type sessions struct {
	mu    sync.Mutex
	conns map[*session]bool
	post  func(pid int32, c *partition.Command)
	seq   int64
	// local: the broker's partitions, once open (Forward).
	local atomic.Pointer[gateway.Local]
}

// Forward delivers a partition's command (message subscriptions) to a
// partition: one of this broker's directly, another broker's through a
// connected gateway (ForwardCommand on the session; the gateway executes
// it in order). false (retried by the partition) while the broker is still
// opening or no gateway session can take it.
func (ss *sessions) Forward(pid int32, c *partition.Command) bool {
	l := ss.local.Load()
	if l == nil {
		return false
	}
	if l.Parts[pid] != nil {
		l.Post(pid, c)
		return true
	}
	b, err := json.Marshal(c)
	if err != nil {
		fmt.Fprintf(os.Stderr, "jobwire-engine broker: cannot encode %s command: %v\n", c.Op, err)
		return true
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	// One session carries every forward while it lives (the oldest), so
	// they reach the gateway in order.
	var best *session
	for s := range ss.conns {
		if !s.closed && (best == nil || s.opened < best.opened) {
			best = s
		}
	}
	if best == nil {
		return false
	}
	select {
	case best.fwd <- &cpb.ForwardCommand{PartitionId: pid, Command: b}:
		return true
	default:
		return false
	}
}

// sessionQueue bounds jobs queued for one gateway; when it is full the
// gateway is not ready and jobs are yielded.
const sessionQueue = 256

type session struct {
	gateway string
	regs    map[string]*cpb.AddStream // by aggregate id; guarded by sessions.mu
	closed  bool                      // guarded by sessions.mu
	jobs    chan *cpb.PushedJob
	nmu     sync.Mutex
	notify  map[string]bool
	sig     chan struct{}
	fwd     chan *cpb.ForwardCommand // commands for partitions of other brokers
	opened  int64                    // session order (sessions.seq)
}

func newSessions(post func(int32, *partition.Command)) *sessions {
	return &sessions{conns: map[*session]bool{}, post: post}
}

func (ss *sessions) open(gateway string) *session {
	s := &session{gateway: gateway, regs: map[string]*cpb.AddStream{}, jobs: make(chan *cpb.PushedJob, sessionQueue),
		notify: map[string]bool{}, sig: make(chan struct{}, 1), fwd: make(chan *cpb.ForwardCommand, 1024)}
	ss.mu.Lock()
	ss.seq++
	s.opened = ss.seq
	ss.conns[s] = true
	ss.mu.Unlock()
	return s
}

// close forgets the gateway's streams and yields jobs it never received.
func (ss *sessions) close(s *session) {
	ss.mu.Lock()
	s.closed = true
	delete(ss.conns, s)
	ss.mu.Unlock()
	for {
		select {
		case j := <-s.jobs:
			ss.yield(j.Job)
		default:
			return
		}
	}
}

func (ss *sessions) yield(job *pb.ActivatedJob) {
	ss.post(partition.PartitionOf(job.Key), &partition.Command{Op: partition.OpYield, Key: job.Key, Deadline: job.Deadline})
}

func (ss *sessions) add(s *session, a *cpb.AddStream) {
	ss.mu.Lock()
	s.regs[a.AggregateId] = a
	ss.mu.Unlock()
}

func (ss *sessions) remove(s *session, id string) {
	ss.mu.Lock()
	delete(s.regs, id)
	ss.mu.Unlock()
}

// Count returns the number of registered streams (for tests and logs).
func (ss *sessions) count() int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	n := 0
	for s := range ss.conns {
		n += len(s.regs)
	}
	return n
}

type pushTarget struct {
	ss  *sessions
	s   *session
	reg *cpb.AddStream
}

func (t pushTarget) Worker() string           { return t.reg.Worker }
func (t pushTarget) Timeout() int64           { return t.reg.Timeout }
func (t pushTarget) FetchVariables() []string { return t.reg.FetchVariables }

// Deliver queues the job for the gateway (after commit); a gone or full
// session yields it back. Runs on the partition goroutine: never blocks.
func (t pushTarget) Deliver(job *pb.ActivatedJob) {
	t.ss.mu.Lock()
	ok := false
	if !t.s.closed {
		select {
		case t.s.jobs <- &cpb.PushedJob{AggregateId: t.reg.AggregateId, Job: job}:
			ok = true
		default:
		}
	}
	t.ss.mu.Unlock()
	if !ok {
		go t.ss.yield(job)
	}
}

// ReservePush picks a random registered stream of the type on any gateway
// whose session can take a job (Zeebe: random aggregated stream).
func (ss *sessions) ReservePush(jobType, tenant string) (partition.PushTarget, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	var cands []pushTarget
	for s := range ss.conns {
		for _, r := range s.regs {
			if r.Type == jobType && tenantMatch(r.TenantIds, tenant) {
				cands = append(cands, pushTarget{ss, s, r})
			}
		}
	}
	if len(cands) == 0 {
		return nil, false
	}
	start := rand.IntN(len(cands))
	for i := range cands {
		c := cands[(start+i)%len(cands)]
		if len(c.s.jobs) < cap(c.s.jobs) {
			return c, true
		}
	}
	return nil, true
}

// JobsAvailable is broadcast to every gateway (coalesced per type).
func (ss *sessions) JobsAvailable(jobType string) {
	ss.mu.Lock()
	list := make([]*session, 0, len(ss.conns))
	for s := range ss.conns {
		list = append(list, s)
	}
	ss.mu.Unlock()
	for _, s := range list {
		s.nmu.Lock()
		s.notify[jobType] = true
		s.nmu.Unlock()
		select {
		case s.sig <- struct{}{}:
		default:
		}
	}
}

func (s *session) takeNotifications() []string {
	s.nmu.Lock()
	defer s.nmu.Unlock()
	out := make([]string, 0, len(s.notify))
	for t := range s.notify {
		out = append(out, t)
	}
	s.notify = map[string]bool{}
	return out
}
