package cluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/gateway"
	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	cpb "github.com/jobwire/jobwire/engine-reference/internal/pb/clusterpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// Remote is the gateway's Broker in cluster mode: broker processes reached
// over jobwire.cluster.v1. Each broker has a link that learns its
// partitions (GetTopology), holds a session (Connect) that carries stream
// registrations out and notifications and pushed jobs in, and reconnects
// when the broker comes back; every aggregated stream is re-registered on
// each new session.
type Remote struct {
	gw     *gateway.Gateway
	id     string
	links  []*link
	count  int32
	owners []atomic.Pointer[link] // by partition id
	ctx    context.Context
	cancel context.CancelFunc

	mu   sync.Mutex // guards aggs and every link's outbox
	aggs map[string]*cpb.AddStream
}

// outbox queues a session's outgoing messages for its one sender
// goroutine. Pushing never blocks: stream registrations happen under the
// gateway's stream registry lock, and a broker that stops reading its
// session (hung, stopped) must not freeze the gateway through it.
type outbox struct {
	mu     sync.Mutex
	msgs   []*cpb.ConnectRequest
	sig    chan struct{}
	closed bool
}

func newOutbox() *outbox { return &outbox{sig: make(chan struct{}, 1)} }

func (o *outbox) push(m *cpb.ConnectRequest) {
	o.mu.Lock()
	if !o.closed {
		o.msgs = append(o.msgs, m)
	}
	o.mu.Unlock()
	select {
	case o.sig <- struct{}{}:
	default:
	}
}

func (o *outbox) close() {
	o.mu.Lock()
	o.closed, o.msgs = true, nil
	o.mu.Unlock()
}

func (o *outbox) take() []*cpb.ConnectRequest {
	o.mu.Lock()
	defer o.mu.Unlock()
	m := o.msgs
	o.msgs = nil
	return m
}

// send is the session's only sender; it ends the session on a send error.
func (o *outbox) send(ctx context.Context, s grpc.BidiStreamingClient[cpb.ConnectRequest, cpb.ConnectResponse], fail context.CancelFunc) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-o.sig:
		}
		for _, m := range o.take() {
			if err := s.Send(m); err != nil {
				fail()
				return
			}
		}
	}
}

type link struct {
	addr   string
	conn   *grpc.ClientConn
	client cpb.BrokerServiceClient
	admin  apb.AdminServiceClient
	alive  atomic.Bool
	topo   atomic.Pointer[cpb.GetTopologyResponse]
	out    *outbox // the live session's outbox; guarded by Remote.mu
}

// NewRemote connects to the brokers and waits (up to wait) until one of
// them reported the cluster's partition count.
//
// With link TLS the gateway speaks mutual TLS to every broker; nil means
// plaintext.
func NewRemote(gw *gateway.Gateway, id string, addrs []string, wait time.Duration, linkTLS *LinkTLS) (*Remote, error) {
	if len(addrs) == 0 {
		return nil, fmt.Errorf("no brokers given")
	}
	creds := insecure.NewCredentials()
	if linkTLS.Enabled() {
		var err error
		if creds, err = linkTLS.ClientCreds(); err != nil {
			return nil, err
		}
	}
	r := &Remote{gw: gw, id: id, aggs: map[string]*cpb.AddStream{}}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	for _, a := range addrs {
		conn, err := grpc.NewClient(a, grpc.WithTransportCredentials(creds),
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageSize), grpc.MaxCallSendMsgSize(MaxMessageSize)))
		if err != nil {
			r.Close()
			return nil, err
		}
		r.links = append(r.links, &link{addr: a, conn: conn, client: cpb.NewBrokerServiceClient(conn), admin: apb.NewAdminServiceClient(conn)})
	}
	deadline := time.Now().Add(wait)
	for r.count == 0 {
		for _, l := range r.links {
			c, cancel := context.WithTimeout(r.ctx, time.Second)
			t, err := l.client.GetTopology(c, &cpb.GetTopologyRequest{})
			cancel()
			if err == nil && t.PartitionCount > 0 {
				r.count = t.PartitionCount
				break
			}
		}
		if r.count == 0 {
			if time.Now().After(deadline) {
				r.Close()
				return nil, fmt.Errorf("no broker of %v answered within %v", addrs, wait)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	r.owners = make([]atomic.Pointer[link], r.count+1)
	for _, l := range r.links {
		go r.run(l)
	}
	return r, nil
}

// Close ends every session (brokers then forget this gateway's streams).
func (r *Remote) Close() error {
	r.cancel()
	for _, l := range r.links {
		l.conn.Close()
	}
	return nil
}

// run keeps a session with one broker, reconnecting with back-off.
func (r *Remote) run(l *link) {
	delay := 50 * time.Millisecond
	for r.ctx.Err() == nil {
		if r.session(l) {
			delay = 50 * time.Millisecond
		}
		select {
		case <-r.ctx.Done():
			return
		case <-time.After(delay):
		}
		if delay < 250*time.Millisecond {
			delay = delay * 8 / 5
		}
	}
}

// session runs one session; it reports whether it got connected.
func (r *Remote) session(l *link) bool {
	c, cancel := context.WithTimeout(r.ctx, 2*time.Second)
	t, err := l.client.GetTopology(c, &cpb.GetTopologyRequest{})
	cancel()
	if err != nil {
		return false
	}
	if t.PartitionCount != r.count {
		fmt.Fprintf(os.Stderr, "jobwire-engine gateway: "+"broker %s reports %d partitions, gateway routes %d: ignored\n", l.addr, t.PartitionCount, r.count)
		return false
	}
	l.topo.Store(t)
	ctx, stop := context.WithCancel(r.ctx)
	defer stop()
	s, err := l.client.Connect(ctx)
	if err != nil {
		return false
	}
	if err := s.Send(&cpb.ConnectRequest{Kind: &cpb.ConnectRequest_Hello{Hello: &cpb.Hello{GatewayId: r.id}}}); err != nil {
		return false
	}
	ob := newOutbox()
	go ob.send(ctx, s, stop)
	fwd := make(chan *cpb.ForwardCommand, 4096)
	defer close(fwd)
	go r.forwardLoop(fwd)
	r.mu.Lock()
	for _, a := range r.aggs {
		ob.push(&cpb.ConnectRequest{Kind: &cpb.ConnectRequest_AddStream{AddStream: a}})
	}
	l.out = ob
	for _, pid := range t.PartitionIds {
		if pid >= 1 && pid <= r.count {
			r.owners[pid].Store(l)
		}
	}
	l.alive.Store(true)
	r.mu.Unlock()
	// The broker may hold activatable jobs nobody was told about (it just
	// recovered): wake every parked long poll.
	r.gw.NotifyAll()
	for {
		m, err := s.Recv()
		if err != nil {
			break
		}
		switch k := m.Kind.(type) {
		case *cpb.ConnectResponse_JobsAvailable:
			for _, t := range k.JobsAvailable.Types {
				r.gw.NotifyJobsAvailable(t)
			}
		case *cpb.ConnectResponse_PushedJob:
			r.gw.PushedJob(k.PushedJob.AggregateId, k.PushedJob.Job)
		case *cpb.ConnectResponse_ForwardCommand:
			select {
			case fwd <- k.ForwardCommand:
			default:
				fmt.Fprintf(os.Stderr, "jobwire-engine gateway: forward queue of broker %s is full; command for partition %d dropped (sent again when its partition restarts)\n", l.addr, k.ForwardCommand.PartitionId)
			}
		}
	}
	r.mu.Lock()
	l.alive.Store(false)
	l.out = nil
	ob.close()
	r.mu.Unlock()
	return true
}

// AggregateAdded registers a new aggregated stream with every broker.
func (r *Remote) AggregateAdded(a gateway.Aggregate) {
	m := &cpb.AddStream{AggregateId: a.ID, Type: a.Type, Worker: a.Worker, Timeout: a.Timeout,
		FetchVariables: a.FetchVariables, TenantIds: a.TenantIDs}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.aggs[a.ID] = m
	for _, l := range r.links {
		if l.out != nil {
			l.out.push(&cpb.ConnectRequest{Kind: &cpb.ConnectRequest_AddStream{AddStream: m}})
		}
	}
}

// AggregateRemoved removes an aggregated stream from every broker.
func (r *Remote) AggregateRemoved(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.aggs, id)
	for _, l := range r.links {
		if l.out != nil {
			l.out.push(&cpb.ConnectRequest{Kind: &cpb.ConnectRequest_RemoveStream{RemoveStream: &cpb.RemoveStream{AggregateId: id}}})
		}
	}
}

// PartitionCount is the cluster's partition count.
func (r *Remote) PartitionCount() int32 { return r.count }

func (r *Remote) leader(pid int32) (*link, error) {
	if pid < 1 || pid > r.count {
		return nil, status.Errorf(codes.NotFound, "partition %d does not exist", pid)
	}
	l := r.owners[pid].Load()
	if l == nil || !l.alive.Load() {
		return nil, status.Errorf(codes.Unavailable, "partition %d is unavailable: its broker is not reachable", pid)
	}
	return l, nil
}

// Healthy reports whether the partition's broker has a live session.
func (r *Remote) Healthy(pid int32) bool {
	_, err := r.leader(pid)
	return err == nil
}

// Submit runs a command on the partition's broker.
func (r *Remote) Submit(ctx context.Context, pid int32, c *partition.Command) (any, error) {
	l, err := r.leader(pid)
	if err != nil {
		return nil, err
	}
	b, err := encodeCommand(c)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "encoding command: %v", err)
	}
	resp, err := l.client.Execute(ctx, &cpb.ExecuteRequest{PartitionId: pid, Command: b, MaxJobs: c.MaxJobs, FetchVariables: c.FetchVariables})
	if err != nil {
		return nil, err
	}
	return decodeResult(resp.Result)
}

// SubmitWithResult creates an instance; the channel yields its completion.
func (r *Remote) SubmitWithResult(ctx context.Context, pid int32, c *partition.Command) (any, <-chan partition.Result, error) {
	l, err := r.leader(pid)
	if err != nil {
		return nil, nil, err
	}
	b, err := encodeCommand(c)
	if err != nil {
		return nil, nil, status.Errorf(codes.Internal, "encoding command: %v", err)
	}
	s, err := l.client.ExecuteWithResult(ctx, &cpb.ExecuteWithResultRequest{PartitionId: pid, Command: b, FetchVariables: c.FetchVariables})
	if err != nil {
		return nil, nil, err
	}
	first, err := s.Recv()
	if err != nil {
		return nil, nil, err
	}
	created, err := decodeResult(first.Result)
	if err != nil {
		return nil, nil, err
	}
	ch := make(chan partition.Result, 1)
	go func() {
		m, err := s.Recv()
		if err != nil {
			ch <- partition.Result{Err: err}
			return
		}
		res, err := decodeResult(m.Result)
		ch <- partition.Result{Resp: res, Err: err}
	}()
	return created, ch, nil
}

// Post sends a command without waiting for the answer.
func (r *Remote) Post(pid int32, c *partition.Command) {
	go func() {
		ctx, cancel := context.WithTimeout(r.ctx, 10*time.Second)
		defer cancel()
		_, _ = r.Submit(ctx, pid, c)
	}()
}

// Topology lists every configured broker; a broker without a session has
// its partitions DEAD.
func (r *Remote) Topology() []*pb.BrokerInfo {
	var out []*pb.BrokerInfo
	for i, l := range r.links {
		b := &pb.BrokerInfo{NodeId: int32(i), Version: gateway.Version}
		host, port, _ := net.SplitHostPort(l.addr)
		p, _ := strconv.Atoi(port)
		b.Host, b.Port = host, int32(p)
		if t := l.topo.Load(); t != nil {
			b.NodeId = t.NodeId
			h := pb.Partition_HEALTHY
			if !l.alive.Load() {
				h = pb.Partition_DEAD
			}
			for _, pid := range t.PartitionIds {
				b.Partitions = append(b.Partitions, &pb.Partition{PartitionId: pid, Role: pb.Partition_LEADER, Health: h})
			}
		}
		out = append(out, b)
	}
	return out
}

// forwardLoop executes the commands one broker's partitions send to
// partitions of other brokers (message subscriptions), in arrival order.
// A target that is down is retried for up to 30 s; a rejection (the
// subscription was closed meanwhile, a duplicate) ends the command.
func (r *Remote) forwardLoop(in <-chan *cpb.ForwardCommand) {
	for f := range in {
		c, err := decodeCommand(f.Command)
		if err != nil {
			fmt.Fprintf(os.Stderr, "jobwire-engine gateway: bad forwarded command: %v\n", err)
			continue
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			ctx, cancel := context.WithTimeout(r.ctx, 5*time.Second)
			_, err := r.Submit(ctx, f.PartitionId, c)
			cancel()
			if err == nil || r.ctx.Err() != nil || time.Now().After(deadline) {
				break
			}
			if code := status.Code(err); code != codes.Unavailable && code != codes.DeadlineExceeded {
				break
			}
			select {
			case <-r.ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
}
