package cluster

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/engine"
	"github.com/jobwire/jobwire/engine-reference/internal/gateway"
	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	cpb "github.com/jobwire/jobwire/engine-reference/internal/pb/clusterpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// BrokerConfig configures a broker process.
type BrokerConfig struct {
	NodeID         int32
	Host           string // default 127.0.0.1
	Port           int    // 0 = free port
	DataDir        string // required
	PartitionIDs   []int32
	PartitionCount int32
	NoSync         bool
	History        int // finished instances/jobs kept per partition for the admin API (0: default)
	Logger         *slog.Logger
	// TLS: mutual TLS on the broker port (gateways must present a
	// certificate signed by the cluster CA). nil: plaintext.
	TLS *LinkTLS
}

// Broker is a running broker process: its partitions behind BrokerService
// (commands, sessions) and the partition half of AdminService.
type Broker struct {
	cpb.UnimplementedBrokerServiceServer
	cfg   BrokerConfig
	local *gateway.Local
	sess  *sessions
	watch *watchers
	srv   *grpc.Server
	lis   net.Listener
}

// PartitionsOf returns the partitions broker node leads when partitions
// are spread over brokers: partition p on broker (p-1) % brokers.
func PartitionsOf(node, brokers, partitions int32) []int32 {
	var out []int32
	for p := int32(1); p <= partitions; p++ {
		if (p-1)%brokers == node {
			out = append(out, p)
		}
	}
	return out
}

// StartBroker replays the broker's partitions and serves on 127.0.0.1.
func StartBroker(cfg BrokerConfig) (*Broker, error) {
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	if cfg.DataDir == "" || len(cfg.PartitionIDs) == 0 || cfg.PartitionCount <= 0 {
		return nil, fmt.Errorf("broker needs a data dir, its partitions and the partition count")
	}
	for _, p := range cfg.PartitionIDs {
		if p < 1 || p > cfg.PartitionCount {
			return nil, fmt.Errorf("partition %d is outside 1..%d", p, cfg.PartitionCount)
		}
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, err
	}
	if err := engine.CheckPartitionCount(cfg.DataDir, int(cfg.PartitionCount)); err != nil {
		return nil, err
	}
	b := &Broker{cfg: cfg}
	b.sess = newSessions(func(pid int32, c *partition.Command) { b.local.Post(pid, c) })
	b.watch = newWatchers()
	parts, err := engine.OpenPartitionsObserved(cfg.DataDir, cfg.PartitionIDs, cfg.PartitionCount, cfg.NoSync, cfg.History, b.sess,
		cfg.Logger, b.watch)
	if err != nil {
		return nil, err
	}
	debug.FreeOSMemory() // recovery garbage back to the OS: RSS reflects live state
	b.local = gateway.NewLocal(parts)
	b.local.Count, b.local.NodeID, b.local.Host = cfg.PartitionCount, cfg.NodeID, cfg.Host
	b.sess.local.Store(b.local)
	lis, err := net.Listen("tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)))
	if err != nil {
		b.local.Close()
		return nil, err
	}
	b.lis = lis
	b.local.Port = int32(lis.Addr().(*net.TCPAddr).Port)
	sopts := []grpc.ServerOption{grpc.MaxRecvMsgSize(MaxMessageSize), grpc.MaxSendMsgSize(MaxMessageSize),
		grpc.ChainUnaryInterceptor(gateway.RecoverUnary), grpc.ChainStreamInterceptor(gateway.RecoverStream)}
	if cfg.TLS.Enabled() {
		creds, err := cfg.TLS.ServerCreds()
		if err != nil {
			lis.Close()
			b.local.Close()
			return nil, err
		}
		sopts = append(sopts, grpc.Creds(creds))
	}
	b.srv = grpc.NewServer(sopts...)
	cpb.RegisterBrokerServiceServer(b.srv, b)
	apb.RegisterAdminServiceServer(b.srv, &brokerAdmin{l: b.local})
	hs := health.NewServer()
	hs.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(b.srv, hs)
	go b.srv.Serve(lis)
	return b, nil
}

// Addr is the broker's host:port.
func (b *Broker) Addr() string { return b.lis.Addr().String() }

// Partitions lists the partitions this broker leads.
func (b *Broker) Partitions() []int32 { return b.local.IDs() }

// Close ends sessions and calls, then closes the logs.
func (b *Broker) Close() {
	done := make(chan struct{})
	go func() { b.srv.GracefulStop(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Second):
		b.srv.Stop()
	}
	b.local.Close()
}

// GetTopology reports this broker's partitions.
func (b *Broker) GetTopology(ctx context.Context, _ *cpb.GetTopologyRequest) (*cpb.GetTopologyResponse, error) {
	return &cpb.GetTopologyResponse{NodeId: b.cfg.NodeID, PartitionIds: b.local.IDs(), PartitionCount: b.cfg.PartitionCount,
		Host: b.cfg.Host, Port: b.local.Port, Version: gateway.Version}, nil
}

// Execute runs one command.
func (b *Broker) Execute(ctx context.Context, r *cpb.ExecuteRequest) (*cpb.ExecuteResponse, error) {
	c, err := decodeCommand(r.Command)
	if err != nil {
		return nil, err
	}
	c.MaxJobs, c.FetchVariables = r.MaxJobs, r.FetchVariables
	resp, err := b.local.Submit(ctx, r.PartitionId, c)
	if err != nil {
		return nil, err
	}
	a, err := encodeResult(resp)
	if err != nil {
		return nil, err
	}
	return &cpb.ExecuteResponse{Result: a}, nil
}

// ExecuteWithResult creates an instance and streams its creation and
// completion answers.
func (b *Broker) ExecuteWithResult(r *cpb.ExecuteWithResultRequest, stream grpc.ServerStreamingServer[cpb.ExecuteWithResultResponse]) error {
	c, err := decodeCommand(r.Command)
	if err != nil {
		return err
	}
	c.FetchVariables = r.FetchVariables
	resp, ch, err := b.local.SubmitWithResult(stream.Context(), r.PartitionId, c)
	if err != nil {
		return err
	}
	a, err := encodeResult(resp)
	if err != nil {
		return err
	}
	if err := stream.Send(&cpb.ExecuteWithResultResponse{Result: a}); err != nil {
		return err
	}
	select {
	case res := <-ch:
		if res.Err != nil {
			return res.Err
		}
		a, err := encodeResult(res.Resp)
		if err != nil {
			return err
		}
		return stream.Send(&cpb.ExecuteWithResultResponse{Result: a, Completed: true})
	case <-stream.Context().Done():
		return status.FromContextError(stream.Context().Err()).Err()
	}
}

// Connect is a gateway's session: stream registrations in, notifications
// and pushed jobs out.
func (b *Broker) Connect(stream grpc.BidiStreamingServer[cpb.ConnectRequest, cpb.ConnectResponse]) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	hello := first.GetHello()
	if hello == nil {
		return status.Error(codes.InvalidArgument, "a session starts with hello")
	}
	s := b.sess.open(hello.GatewayId)
	defer b.sess.close(s)
	ctx := stream.Context()
	errc := make(chan error, 2)
	go func() {
		for {
			m, err := stream.Recv()
			if err != nil {
				errc <- err
				return
			}
			switch k := m.Kind.(type) {
			case *cpb.ConnectRequest_AddStream:
				b.sess.add(s, k.AddStream)
			case *cpb.ConnectRequest_RemoveStream:
				b.sess.remove(s, k.RemoveStream.AggregateId)
			}
		}
	}()
	for {
		select {
		case err := <-errc:
			return err
		case <-ctx.Done():
			return status.FromContextError(ctx.Err()).Err()
		case <-s.sig:
			types := s.takeNotifications()
			if len(types) == 0 {
				continue
			}
			if err := stream.Send(&cpb.ConnectResponse{Kind: &cpb.ConnectResponse_JobsAvailable{JobsAvailable: &cpb.JobsAvailable{Types: types}}}); err != nil {
				return err
			}
		case j := <-s.jobs:
			if err := stream.Send(&cpb.ConnectResponse{Kind: &cpb.ConnectResponse_PushedJob{PushedJob: j}}); err != nil {
				b.sess.yield(j.Job)
				return err
			}
		case f := <-s.fwd:
			// A forward lost with a dying session is sent again when its
			// partition restarts (partition.resendAfterRestart); both
			// sides ignore duplicates.
			if err := stream.Send(&cpb.ConnectResponse{Kind: &cpb.ConnectResponse_ForwardCommand{ForwardCommand: f}}); err != nil {
				return err
			}
		}
	}
}

// brokerAdmin serves the partition half of AdminService for this broker's
// partitions; a gateway merges the answers of all brokers.
type brokerAdmin struct {
	apb.UnimplementedAdminServiceServer
	l *gateway.Local
}

func (a *brokerAdmin) GetPartitions(ctx context.Context, r *apb.GetPartitionsRequest) (*apb.GetPartitionsResponse, error) {
	return a.l.GetPartitions(ctx, r)
}

func (a *brokerAdmin) ListJobs(ctx context.Context, r *apb.ListJobsRequest) (*apb.ListJobsResponse, error) {
	return a.l.ListJobs(ctx, r)
}

func (a *brokerAdmin) ListProcessInstances(ctx context.Context, r *apb.ListProcessInstancesRequest) (*apb.ListProcessInstancesResponse, error) {
	return a.l.ListProcessInstances(ctx, r)
}

func (a *brokerAdmin) ListIncidents(ctx context.Context, r *apb.ListIncidentsRequest) (*apb.ListIncidentsResponse, error) {
	return a.l.ListIncidents(ctx, r)
}
