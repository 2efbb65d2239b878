package gateway

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/gateway/faults"
	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	spb "github.com/jobwire/jobwire/engine-reference/internal/pb/streampb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Streams is the registry of push streams (StreamActivatedJobs).
//
// Readiness comes from the transport: each stream has one sender (the RPC
// goroutine) and a small handoff queue. grpc-go's Send blocks while the
// HTTP/2 window is exhausted; then the sender stops draining the queue, the
// queue fills, and the stream stops being ready. A stream is ready while its
// queue holds less than StreamBufferBytes (jobs reserved for it but not yet
// delivered count at the stream's average job size) and fewer than
// StreamSlots jobs. A job is only reserved for a ready stream, so the queue
// never blocks its partition.
//
// Zeebe's gateway (grpc-java isReady()) stays ready until 32 KiB are queued.
// We keep the queue deliberately smaller: jobs queued behind a slow consumer
// can be taken by no one else, while a yielded job goes at once to a poller
// or another stream (the SDKs keep a long poll parked for exactly this). A
// burst for one fast stream therefore yields a little sooner; a slow stream
// holds at most StreamBufferBytes beyond the transport's windows.
type Streams struct {
	g       *Gateway
	mu      sync.Mutex
	byType  map[string][]*clientStream
	byID    map[string]*clientStream // open streams and those ended less than EndedStreamKeep ago (ReleaseUnread)
	aggs    map[string]*aggregate
	stalled map[string]time.Time
	nextID  uint64
	obs     StreamObserver
}

func (s *Streams) setObserver(o StreamObserver) {
	s.mu.Lock()
	s.obs = o
	s.mu.Unlock()
}

// StreamSlots bounds the jobs reserved or queued per stream (the handoff
// channel's capacity); StreamBufferBytes bounds their size.
const (
	StreamSlots       = 32
	StreamBufferBytes = 16 << 10
)

// StreamIDHeader is the StreamActivatedJobs response header naming the
// stream for jobwire.stream.v1.StreamControlService/ReleaseUnread.
const StreamIDHeader = "jobwire-stream-id"

// SentLogMax bounds how many of its most recently sent jobs a stream
// remembers for ReleaseUnread (far more than any transport window holds:
// 8192 jobs are at least 1 MiB on the wire); EndedStreamKeep is how long an
// ended stream can still be released.
const (
	SentLogMax      = 8192
	EndedStreamKeep = 60 * time.Second
)

// sentJob is a job a stream sent: enough to hand it back (the deadline makes
// a stale hand-back a no-op in the partition).
type sentJob struct {
	key, deadline int64
}

// queuedJob is a job in a stream's handoff queue.
type queuedJob struct {
	job  *pb.ActivatedJob
	size int
}

type aggregate struct {
	id   string
	refs int
}

type clientStream struct {
	id, aggID, aggKey string
	typ, worker, peer string
	timeout           int64
	fetch             []string
	tenants           []string
	ch                chan queuedJob // StreamSlots slots
	reset             chan codes.Code
	pending           int // reserved, queued or being sent
	reserved          int // reserved by a partition, not yet delivered
	queuedBytes       int // size of the jobs in ch
	avgSize           int // running average job size (reservation estimate)
	closed            bool
	pushed, yielded   int64

	// ReleaseUnread bookkeeping (under Streams.mu): sent[i] is the job sent
	// at position sentBase+i; nsent counts every job sent.
	sid        string
	sent       []sentJob
	sentBase   int64
	nsent      int64
	releasedAt int64         // -1; else messages_read of the ReleaseUnread call
	release    chan struct{} // closed by ReleaseUnread: the sender stops
	endedAt    time.Time     // zero while the RPC runs
}

// record notes a job the sender has sent (under Streams.mu) and reports
// whether it must be handed back at once (the stream was released with fewer
// messages read than this job's position).
func (c *clientStream) record(job *pb.ActivatedJob) bool {
	pos := c.nsent
	c.nsent++
	c.sent = append(c.sent, sentJob{job.Key, job.Deadline})
	if len(c.sent) >= 2*SentLogMax {
		drop := len(c.sent) - SentLogMax
		c.sent = append(c.sent[:0:0], c.sent[drop:]...)
		c.sentBase += int64(drop)
	}
	return c.releasedAt >= 0 && pos >= c.releasedAt
}

// ready reports whether the stream can take another job (under Streams.mu).
func (c *clientStream) ready() bool {
	return !c.closed && c.pending < StreamSlots && c.queuedBytes+c.reserved*c.avgSize < StreamBufferBytes
}

// queued records a job entering the handoff queue (under Streams.mu).
func (c *clientStream) queued(size int) {
	c.queuedBytes += size
	c.avgSize = (c.avgSize*3 + size) / 4
	if c.avgSize < 1 {
		c.avgSize = 1
	}
}

func newStreams(g *Gateway) *Streams {
	return &Streams{g: g, byType: map[string][]*clientStream{}, byID: map[string]*clientStream{}, aggs: map[string]*aggregate{},
		stalled: map[string]time.Time{}}
}

// target is a reservation handed to the partition.
type target struct {
	s *Streams
	c *clientStream
}

func (t target) Worker() string           { return t.c.worker }
func (t target) Timeout() int64           { return t.c.timeout }
func (t target) FetchVariables() []string { return t.c.fetch }

// Deliver hands the job to the stream's sender; if the stream closed since
// the reservation, the job is yielded back.
func (t target) Deliver(job *pb.ActivatedJob) {
	size := proto.Size(job)
	t.s.mu.Lock()
	ok := false
	if !t.c.closed {
		t.c.reserved--
		// Never blocks: a reservation holds one of the channel's slots
		// (pending ≤ StreamSlots = cap). Deliver runs on the partition
		// goroutine, which must never wait for a client.
		select {
		case t.c.ch <- queuedJob{job, size}:
			ok = true
			t.c.queued(size)
		default:
			t.c.pending--
		}
	}
	t.s.mu.Unlock()
	if !ok {
		// Deliver runs on the partition goroutine: never block it on its
		// own queue.
		go t.s.yield(job)
	}
}

func (s *Streams) yield(job *pb.ActivatedJob) {
	s.g.broker.Post(partition.PartitionOf(job.Key), &partition.Command{Op: partition.OpYield, Key: job.Key, Deadline: job.Deadline})
}

// handBack makes a job a stream sent but its worker never read activatable
// again: retries unchanged, pushed again if a stream is ready (the same
// internal command as activated jobs a poller could not be given). A job
// that has an outcome or was activated again since is left alone (the
// deadline no longer matches).
func (s *Streams) handBack(key, deadline int64) {
	s.g.broker.Post(partition.PartitionOf(key), &partition.Command{Op: partition.OpReturn, Key: key, Deadline: deadline})
}

func tenantMatch(ts []string, tenant string) bool {
	if len(ts) == 0 {
		return tenant == partition.DefaultTenant || tenant == ""
	}
	for _, t := range ts {
		if t == tenant || (t == "" && tenant == partition.DefaultTenant) {
			return true
		}
	}
	return false
}

func (s *Streams) reserve(jobType, tenant string) (partition.PushTarget, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	all := s.byType[jobType]
	if len(all) == 0 {
		return nil, false
	}
	cands := make([]*clientStream, 0, len(all))
	for _, c := range all {
		if !c.closed && tenantMatch(c.tenants, tenant) {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return nil, false
	}
	stalled := time.Now().Before(s.stalled[jobType])
	start := rand.IntN(len(cands))
	if !stalled {
		for i := range cands {
			c := cands[(start+i)%len(cands)]
			if c.ready() {
				c.pending++
				c.reserved++
				c.pushed++
				return target{s, c}, true
			}
		}
	}
	cands[start].yielded++
	return nil, true
}

func aggKey(r *pb.StreamActivatedJobsRequest) string {
	return fmt.Sprintf("%s\x00%s\x00%d\x00%s\x00%s", r.Type, r.Worker, r.Timeout, strings.Join(r.FetchVariable, "\x01"), strings.Join(r.TenantIds, "\x01"))
}

func (s *Streams) add(r *pb.StreamActivatedJobsRequest, peer string) *clientStream {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	key := aggKey(r)
	a := s.aggs[key]
	if a == nil {
		a = &aggregate{id: fmt.Sprintf("agg-%d-%08x", s.nextID, rand.Uint32())}
		s.aggs[key] = a
		if s.obs != nil {
			s.obs.AggregateAdded(Aggregate{ID: a.id, Type: r.Type, Worker: r.Worker, Timeout: r.Timeout,
				FetchVariables: r.FetchVariable, TenantIDs: r.TenantIds})
		}
	}
	a.refs++
	c := &clientStream{id: fmt.Sprintf("stream-%d", s.nextID), aggID: a.id, aggKey: key, typ: r.Type, worker: r.Worker,
		peer: peer, timeout: r.Timeout, fetch: r.FetchVariable, tenants: r.TenantIds,
		ch: make(chan queuedJob, StreamSlots), reset: make(chan codes.Code, 1), avgSize: 512,
		sid: newStreamID(), releasedAt: -1, release: make(chan struct{})}
	s.byType[r.Type] = append(s.byType[r.Type], c)
	now := time.Now()
	for id, x := range s.byID {
		if !x.endedAt.IsZero() && now.Sub(x.endedAt) > EndedStreamKeep {
			delete(s.byID, id)
		}
	}
	s.byID[c.sid] = c
	return c
}

// newStreamID is an unguessable stream id: only the worker that opened the
// stream (it got the id in the response headers) can release its jobs.
func newStreamID() string {
	var b [16]byte
	_, _ = crand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// remove closes a stream; jobs still in its slots are yielded. It returns
// how many.
func (s *Streams) remove(c *clientStream) int {
	s.mu.Lock()
	pending := s.closeLocked(c)
	s.mu.Unlock()
	for _, j := range pending {
		s.yield(j)
	}
	return len(pending)
}

// closeLocked takes a stream out of the registry (under s.mu) and returns the
// jobs still in its handoff queue, which the caller yields.
func (s *Streams) closeLocked(c *clientStream) []*pb.ActivatedJob {
	var pending []*pb.ActivatedJob
	if !c.closed {
		c.closed = true
		list := s.byType[c.typ]
		for i, x := range list {
			if x == c {
				s.byType[c.typ] = append(list[:i:i], list[i+1:]...)
				break
			}
		}
		if len(s.byType[c.typ]) == 0 {
			delete(s.byType, c.typ)
		}
		if a := s.aggs[c.aggKey]; a != nil {
			a.refs--
			if a.refs == 0 {
				delete(s.aggs, c.aggKey)
				if s.obs != nil {
					s.obs.AggregateRemoved(a.id)
				}
			}
		}
	drain:
		for {
			select {
			case j := <-c.ch:
				pending = append(pending, j.job)
			default:
				break drain
			}
		}
	}
	return pending
}

// ended marks a stream's RPC as over; the stream stays releasable for
// EndedStreamKeep.
func (s *Streams) ended(c *clientStream) {
	s.mu.Lock()
	c.endedAt = time.Now()
	s.mu.Unlock()
}

// ReleaseUnread implements jobwire.stream.v1.StreamControlService: it ends
// the stream if it still runs, and hands back every job the stream sent at a
// position >= messages_read (the worker never read it), plus the jobs still
// queued for it. A job sent later by a sender still finishing its Send is
// handed back by the sender itself (record). Never a job the worker read.
func (s *Streams) ReleaseUnread(ctx context.Context, r *spb.ReleaseUnreadRequest) (*spb.ReleaseUnreadResponse, error) {
	if r.MessagesRead < 0 {
		return nil, status.Errorf(codes.InvalidArgument, "Expected messages_read to be at least 0, but it was %d", r.MessagesRead)
	}
	s.mu.Lock()
	c := s.byID[r.StreamId]
	if c == nil {
		s.mu.Unlock()
		return nil, status.Errorf(codes.NotFound, "job stream %q is not known to this gateway (it ended more than %s ago, or the gateway restarted)", r.StreamId, EndedStreamKeep)
	}
	if c.releasedAt >= 0 { // idempotent
		sent := c.nsent
		s.mu.Unlock()
		return &spb.ReleaseUnreadResponse{MessagesSent: sent}, nil
	}
	// messages_read may exceed nsent by the job whose Send has not returned
	// yet (the worker read it already): it is then recorded below releasedAt
	// and kept, as it must be.
	c.releasedAt = r.MessagesRead
	close(c.release)
	var back []sentJob
	from := max(r.MessagesRead-c.sentBase, 0)
	if from < int64(len(c.sent)) {
		back = append(back, c.sent[from:]...)
	}
	forgotten := max(c.sentBase-r.MessagesRead, 0) // older than the sent log
	sent := c.nsent
	pending := s.closeLocked(c)
	s.mu.Unlock()
	for _, j := range back {
		s.handBack(j.key, j.deadline)
	}
	for _, j := range pending {
		s.handBack(j.Key, j.Deadline)
	}
	if forgotten > 0 {
		return nil, status.Errorf(codes.OutOfRange, "released %d jobs; %d unread jobs of stream %q are older than its sent log (%d) and return after their activation timeout",
			len(back)+len(pending), forgotten, r.StreamId, SentLogMax)
	}
	return &spb.ReleaseUnreadResponse{MessagesSent: sent, Released: int64(len(back) + len(pending))}, nil
}

// StreamControl serves jobwire.stream.v1.StreamControlService.
type StreamControl struct {
	spb.UnimplementedStreamControlServiceServer
	S *Streams
}

// ReleaseUnread: see Streams.ReleaseUnread.
func (sc StreamControl) ReleaseUnread(ctx context.Context, r *spb.ReleaseUnreadRequest) (*spb.ReleaseUnreadResponse, error) {
	return sc.S.ReleaseUnread(ctx, r)
}

// StreamControlService is the full name of the StreamControl service (same
// authentication as the Gateway service).
const StreamControlService = "jobwire.stream.v1.StreamControlService"

// DeliverPushed hands a job that a broker pushed to an aggregated stream
// to one of the aggregate's ready client streams (random start). If none is
// ready (all slots taken, stalled, or gone) it returns false and the caller
// yields the job back to its partition (Zeebe §3.6).
func (s *Streams) DeliverPushed(aggID string, job *pb.ActivatedJob) bool {
	size := proto.Size(job)
	s.mu.Lock()
	defer s.mu.Unlock()
	all := s.byType[job.Type]
	var cands []*clientStream
	for _, c := range all {
		if c.aggID == aggID && !c.closed {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return false
	}
	start := rand.IntN(len(cands))
	if !time.Now().Before(s.stalled[job.Type]) {
		for i := range cands {
			c := cands[(start+i)%len(cands)]
			if c.ready() {
				select {
				case c.ch <- queuedJob{job, size}:
					c.pending++
					c.pushed++
					c.queued(size)
					return true
				default:
				}
			}
		}
	}
	cands[start].yielded++
	return false
}

// Stall makes streams of a type not ready until the given time.
func (s *Streams) Stall(jobType string, until time.Time) {
	s.mu.Lock()
	s.stalled[jobType] = until
	s.mu.Unlock()
}

// ClearStalls removes every stall.
func (s *Streams) ClearStalls() {
	s.mu.Lock()
	s.stalled = map[string]time.Time{}
	s.mu.Unlock()
}

// StreamSnapshot is the admin view of one stream.
type StreamSnapshot struct {
	ID, AggregateID, Type, Worker, Peer string
	Pushed, Yielded                     int64
	Ready                               bool
}

// Snapshot lists open streams.
func (s *Streams) Snapshot() []StreamSnapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []StreamSnapshot
	now := time.Now()
	for t, list := range s.byType {
		stalled := now.Before(s.stalled[t])
		for _, c := range list {
			out = append(out, StreamSnapshot{ID: c.id, AggregateID: c.aggID, Type: c.typ, Worker: c.worker, Peer: c.peer,
				Pushed: c.pushed, Yielded: c.yielded, Ready: c.ready() && !stalled})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// ResetAll ends every open stream with code.
func (s *Streams) ResetAll(code codes.Code) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, list := range s.byType {
		for _, c := range list {
			select {
			case c.reset <- code:
				n++
			default:
			}
		}
	}
	return n
}

// StreamActivatedJobs registers a push stream and sends the jobs reserved
// for it. The RPC goroutine is the stream's only sender.
func (g *Gateway) StreamActivatedJobs(r *pb.StreamActivatedJobsRequest, stream grpc.ServerStreamingServer[pb.ActivatedJob]) error {
	if strings.TrimSpace(r.Type) == "" {
		return status.Error(codes.InvalidArgument, "Expected to stream activated jobs with type to be present, but it was blank")
	}
	if r.Timeout < 1 {
		return status.Errorf(codes.InvalidArgument, "Expected to stream activated jobs with timeout to be greater than zero, but it was '%d'", r.Timeout)
	}
	if err := checkTenants(r.TenantIds); err != nil {
		return err
	}
	ctx := stream.Context()
	c := g.Streams.add(r, faults.PeerOf(ctx))
	defer g.Streams.ended(c)
	defer g.Streams.remove(c)
	// Headers now, so clients see the stream as open once it is registered;
	// the stream id lets the worker hand back what it did not read.
	if err := stream.SendHeader(metadata.Pairs(StreamIDHeader, c.sid)); err != nil {
		return err
	}
	for {
		select {
		case q := <-c.ch:
			g.Streams.mu.Lock()
			c.queuedBytes -= q.size // now the transport's (Send blocks while its window is full)
			released := c.releasedAt >= 0
			g.Streams.mu.Unlock()
			if released { // ReleaseUnread ran: never send another job
				g.Streams.handBack(q.job.Key, q.job.Deadline)
				continue
			}
			if err := stream.Send(q.job); err != nil {
				g.Streams.yield(q.job)
				return err
			}
			g.Streams.mu.Lock()
			c.pending--
			back := c.record(q.job)
			g.Streams.mu.Unlock()
			if back {
				g.Streams.handBack(q.job.Key, q.job.Deadline)
			}
		case <-c.release:
			return status.Error(codes.Canceled, "job stream released by its worker (ReleaseUnread)")
		case code := <-c.reset:
			return status.Error(code, "job stream ended by the gateway (admin reset)")
		case <-g.closing:
			return errShuttingDown
		case <-ctx.Done():
			return status.FromContextError(ctx.Err()).Err()
		}
	}
}
