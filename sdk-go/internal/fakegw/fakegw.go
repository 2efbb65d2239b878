// Package fakegw is an in-process gateway for unit tests: a gRPC server on
// 127.0.0.1:0 implementing pb.GatewayServer with a tiny job queue, push to
// open streams, long polling, and hooks to inject errors.
package fakegw

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/jobwire/jobwire/sdk-go/internal/pb"
)

// Outcome is a job result received by the fake.
type Outcome struct {
	Kind      string // complete, fail, error
	Key       int64
	Variables string
	Retries   int32
	Message   string
	Code      string
	BackOff   int64
	At        time.Time
}

// Server is the fake gateway.
type Server struct {
	pb.UnimplementedGatewayServer
	Addr string
	srv  *grpc.Server

	mu        sync.Mutex
	nextKey   int64
	queue     []*pb.ActivatedJob // activatable
	active    map[int64]*pb.ActivatedJob
	streams   []*stream
	rr        int
	wake      chan struct{}
	outcomes  []Outcome
	polls     []*pb.ActivateJobsRequest
	pollTimes []time.Time
	timeouts  []*pb.UpdateJobTimeoutRequest

	// Hooks (set before use; read under mu).
	ActivateErr func(n int) error // n = number of the call, from 1
	OutcomeErr  func(kind string, key int64, attempt int) error
	// OutcomeLost, when it returns an error, applies the outcome and then
	// answers with that error (the answer was lost: e.g. ABORTED when the
	// gateway's broker connection closed after the command was written).
	OutcomeLost func(kind string, key int64, attempt int) error
	StreamErr   func() error // returned when a stream opens (e.g. Unimplemented)
	// StreamLife > 0 ends every stream cleanly (status OK) after that long;
	// < 0 ends it at once.
	StreamLife time.Duration
	// StallStreams keeps streams open but pushes nothing into them: new jobs
	// wait for polls (an open but silent stream).
	StallStreams bool
	// NoLongPoll answers every ActivateJobs at once (a gateway with long
	// polling disabled).
	NoLongPoll bool
	// DropTags answers CreateProcessInstance without the request's tags, as a
	// gateway before Zeebe 8.8 does (it does not know the field).
	DropTags      bool
	attempts      map[string]int
	StreamsOpened int

	// Commands are the hooks of the client commands (below).
	Commands CommandHooks
	commands map[string][]proto.Message
	applied  map[string]int
}

type stream struct {
	typ string
	ch  chan *pb.ActivatedJob
}

// Start serves on 127.0.0.1:0 until the test ends.
func Start(t interface {
	Helper()
	Cleanup(func())
	Fatalf(string, ...any)
}, opts ...grpc.ServerOption) *Server {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	s := &Server{Addr: lis.Addr().String(), srv: grpc.NewServer(opts...), nextKey: 2251799813685248,
		active: map[int64]*pb.ActivatedJob{}, wake: make(chan struct{}), attempts: map[string]int{}}
	pb.RegisterGatewayServer(s.srv, s)
	go func() { _ = s.srv.Serve(lis) }()
	t.Cleanup(s.srv.Stop)
	return s
}

// Stop stops the server at once.
func (s *Server) Stop() { s.srv.Stop() }

func (s *Server) signal() {
	close(s.wake)
	s.wake = make(chan struct{})
}

// AddJobs creates n activatable jobs of typ with these variables ("" = {}).
func (s *Server) AddJobs(typ string, n int, variables string, retries int32) []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []int64
	for i := 0; i < n; i++ {
		s.nextKey++
		j := &pb.ActivatedJob{Key: s.nextKey, Type: typ, ProcessInstanceKey: s.nextKey + 1_000_000, BpmnProcessId: "proc",
			ElementId: "task", Retries: retries, Variables: variables, CustomHeaders: "{}"}
		keys = append(keys, j.Key)
		s.enqueueLocked(j)
	}
	return keys
}

// AddJob enqueues a prepared job as activatable (e.g. a second delivery).
func (s *Server) AddJob(j *pb.ActivatedJob) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.enqueueLocked(j)
}

func (s *Server) enqueueLocked(j *pb.ActivatedJob) {
	for i := range s.streams {
		if s.StallStreams {
			break
		}
		st := s.streams[(s.rr+i)%len(s.streams)]
		if st.typ == j.Type {
			s.rr++
			select {
			case st.ch <- j:
				return
			default:
			}
		}
	}
	s.queue = append(s.queue, j)
	s.signal()
}

func (s *Server) activate(j *pb.ActivatedJob, worker string, timeout int64) *pb.ActivatedJob {
	c := proto.Clone(j).(*pb.ActivatedJob)
	c.Worker = worker
	c.Deadline = time.Now().Add(time.Duration(timeout) * time.Millisecond).UnixMilli()
	s.active[c.Key] = c
	return c
}

// ActivateJobs implements long polling over the queue.
func (s *Server) ActivateJobs(req *pb.ActivateJobsRequest, srv grpc.ServerStreamingServer[pb.ActivateJobsResponse]) error {
	s.mu.Lock()
	s.polls = append(s.polls, req)
	s.pollTimes = append(s.pollTimes, time.Now())
	n := len(s.polls)
	hook := s.ActivateErr
	s.mu.Unlock()
	if hook != nil {
		if err := hook(n); err != nil {
			return err
		}
	}
	wait := time.Duration(req.GetRequestTimeout()) * time.Millisecond
	if req.GetRequestTimeout() == 0 {
		wait = 10 * time.Second
	}
	end := time.Now().Add(wait)
	for {
		s.mu.Lock()
		var out []*pb.ActivatedJob
		rest := s.queue[:0:0]
		for _, j := range s.queue {
			if j.Type == req.GetType() && len(out) < int(req.GetMaxJobsToActivate()) {
				out = append(out, s.activate(j, req.GetWorker(), req.GetTimeout()))
			} else {
				rest = append(rest, j)
			}
		}
		s.queue = rest
		wake := s.wake
		s.mu.Unlock()
		if len(out) > 0 {
			return srv.Send(&pb.ActivateJobsResponse{Jobs: out})
		}
		s.mu.Lock()
		noLong := s.NoLongPoll
		s.mu.Unlock()
		if req.GetRequestTimeout() < 0 || noLong || !time.Now().Before(end) {
			return nil
		}
		select {
		case <-wake:
		case <-time.After(time.Until(end)):
		case <-srv.Context().Done():
			return srv.Context().Err()
		}
	}
}

// StreamActivatedJobs pushes jobs created while the stream is open.
func (s *Server) StreamActivatedJobs(req *pb.StreamActivatedJobsRequest, srv grpc.ServerStreamingServer[pb.ActivatedJob]) error {
	s.mu.Lock()
	hook := s.StreamErr
	s.StreamsOpened++
	life := s.StreamLife
	s.mu.Unlock()
	var ended <-chan time.Time
	switch {
	case life < 0:
		return nil
	case life > 0:
		ended = time.After(life)
	}
	if hook != nil {
		if err := hook(); err != nil {
			return err
		}
	}
	st := &stream{typ: req.GetType(), ch: make(chan *pb.ActivatedJob, 16)}
	s.mu.Lock()
	s.streams = append(s.streams, st)
	// Jobs already waiting go to pollers, as in Zeebe; a stream gets new ones.
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		for i, x := range s.streams {
			if x == st {
				s.streams = append(s.streams[:i], s.streams[i+1:]...)
				break
			}
		}
		// Jobs handed to this stream but not sent yet go back (as the engine yields them).
		for {
			select {
			case j := <-st.ch:
				s.enqueueLocked(j)
				continue
			default:
			}
			break
		}
		s.mu.Unlock()
	}()
	_ = srv.SendHeader(nil)
	for {
		select {
		case j := <-st.ch:
			s.mu.Lock()
			a := s.activate(j, req.GetWorker(), req.GetTimeout())
			s.mu.Unlock()
			if err := srv.Send(a); err != nil {
				return err
			}
		case <-ended:
			return nil // a clean end: status OK
		case <-srv.Context().Done():
			return nil
		}
	}
}

func (s *Server) outcome(kind string, key int64, o Outcome) error {
	s.mu.Lock()
	hook, lost := s.OutcomeErr, s.OutcomeLost
	id := fmt.Sprintf("%s/%d", kind, key)
	s.attempts[id]++
	attempt := s.attempts[id]
	s.mu.Unlock()
	if hook != nil {
		if err := hook(kind, key, attempt); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.active[key]
	if !ok {
		return status.Errorf(codes.NotFound, "job %d not activated", key)
	}
	delete(s.active, key)
	o.Kind, o.Key, o.At = kind, key, time.Now()
	s.outcomes = append(s.outcomes, o)
	if kind == "fail" && o.Retries > 0 {
		j.Retries = o.Retries
		s.enqueueLocked(j)
	}
	if lost != nil {
		return lost(kind, key, attempt)
	}
	return nil
}

// CreateProcessInstance answers with a new key, echoing the tags unless DropTags.
func (s *Server) CreateProcessInstance(_ context.Context, r *pb.CreateProcessInstanceRequest) (*pb.CreateProcessInstanceResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextKey++
	resp := &pb.CreateProcessInstanceResponse{ProcessInstanceKey: s.nextKey, BpmnProcessId: r.GetBpmnProcessId(), Version: 1, TenantId: "<default>"}
	if !s.DropTags {
		resp.Tags = r.GetTags()
	}
	return resp, nil
}

func (s *Server) CompleteJob(_ context.Context, r *pb.CompleteJobRequest) (*pb.CompleteJobResponse, error) {
	return &pb.CompleteJobResponse{}, s.outcome("complete", r.GetJobKey(), Outcome{Variables: r.GetVariables()})
}

func (s *Server) FailJob(_ context.Context, r *pb.FailJobRequest) (*pb.FailJobResponse, error) {
	return &pb.FailJobResponse{}, s.outcome("fail", r.GetJobKey(), Outcome{Retries: r.GetRetries(), Message: r.GetErrorMessage(), BackOff: r.GetRetryBackOff(), Variables: r.GetVariables()})
}

func (s *Server) ThrowError(_ context.Context, r *pb.ThrowErrorRequest) (*pb.ThrowErrorResponse, error) {
	return &pb.ThrowErrorResponse{}, s.outcome("error", r.GetJobKey(), Outcome{Code: r.GetErrorCode(), Message: r.GetErrorMessage(), Variables: r.GetVariables()})
}

func (s *Server) UpdateJobTimeout(_ context.Context, r *pb.UpdateJobTimeoutRequest) (*pb.UpdateJobTimeoutResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.timeouts = append(s.timeouts, r)
	j, ok := s.active[r.GetJobKey()]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "job %d not activated", r.GetJobKey())
	}
	j.Deadline = time.Now().Add(time.Duration(r.GetTimeout()) * time.Millisecond).UnixMilli()
	return &pb.UpdateJobTimeoutResponse{}, nil
}

func (s *Server) Topology(context.Context, *pb.TopologyRequest) (*pb.TopologyResponse, error) {
	return &pb.TopologyResponse{ClusterSize: 1, PartitionsCount: 1, ReplicationFactor: 1, GatewayVersion: "fake"}, nil
}

// Outcomes returns the outcomes received so far.
func (s *Server) Outcomes() []Outcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Outcome(nil), s.outcomes...)
}

// Polls returns the ActivateJobs requests and their arrival times.
func (s *Server) Polls() ([]*pb.ActivateJobsRequest, []time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*pb.ActivateJobsRequest(nil), s.polls...), append([]time.Time(nil), s.pollTimes...)
}

// Timeouts returns the UpdateJobTimeout requests.
func (s *Server) Timeouts() []*pb.UpdateJobTimeoutRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*pb.UpdateJobTimeoutRequest(nil), s.timeouts...)
}

// Attempts returns how often an outcome kind was tried for key.
func (s *Server) Attempts(kind string, key int64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attempts[fmt.Sprintf("%s/%d", kind, key)]
}

// OpenStreams returns the number of streams currently open.
func (s *Server) OpenStreams() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.streams)
}

// Set runs f under the server's lock (to change hooks safely).
func (s *Server) Set(f func(s *Server)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

// The client commands EvaluateDecision, ModifyProcessInstance,
// MigrateProcessInstance, DeleteResource and BroadcastSignal: every request is
// recorded (Requests), CommandErr refuses an attempt before it is applied and
// CommandLost applies it and then answers with an error (the answer was lost).
// An applied command counts in Applied.

// CommandHooks are the hooks of the client commands (set with Set).
type CommandHooks struct {
	// CommandErr, when it returns an error, refuses attempt n (from 1) of
	// method without applying it.
	CommandErr func(method string, attempt int) error
	// CommandLost, when it returns an error, applies attempt n and then
	// answers with that error.
	CommandLost func(method string, attempt int) error
	// Decision is the EvaluateDecision answer (nil or without a decision
	// key: NOT_FOUND, after the hooks).
	Decision *pb.EvaluateDecisionResponse
}

func (s *Server) command(method string, req proto.Message, resp proto.Message) (proto.Message, error) {
	s.mu.Lock()
	if s.commands == nil {
		s.commands = map[string][]proto.Message{}
		s.applied = map[string]int{}
	}
	s.commands[method] = append(s.commands[method], proto.Clone(req))
	attempt := len(s.commands[method])
	refuse, lost := s.Commands.CommandErr, s.Commands.CommandLost
	s.mu.Unlock()
	if refuse != nil {
		if err := refuse(method, attempt); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	s.applied[method]++
	s.mu.Unlock()
	if lost != nil {
		if err := lost(method, attempt); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

// Requests returns the requests received for method (every attempt).
func (s *Server) Requests(method string) []proto.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]proto.Message(nil), s.commands[method]...)
}

// Applied returns how often a command of method was applied.
func (s *Server) Applied(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.applied[method]
}

func (s *Server) EvaluateDecision(_ context.Context, r *pb.EvaluateDecisionRequest) (*pb.EvaluateDecisionResponse, error) {
	s.mu.Lock()
	d := s.Commands.Decision
	s.mu.Unlock()
	if d == nil {
		d = &pb.EvaluateDecisionResponse{}
	}
	m, err := s.command("EvaluateDecision", r, proto.Clone(d))
	if err != nil {
		return nil, err
	}
	if d.GetDecisionKey() == 0 {
		return nil, status.Errorf(codes.NotFound, "no decision %q", r.GetDecisionId())
	}
	return m.(*pb.EvaluateDecisionResponse), nil
}

func (s *Server) ModifyProcessInstance(_ context.Context, r *pb.ModifyProcessInstanceRequest) (*pb.ModifyProcessInstanceResponse, error) {
	if _, err := s.command("ModifyProcessInstance", r, nil); err != nil {
		return nil, err
	}
	return &pb.ModifyProcessInstanceResponse{}, nil
}

func (s *Server) MigrateProcessInstance(_ context.Context, r *pb.MigrateProcessInstanceRequest) (*pb.MigrateProcessInstanceResponse, error) {
	if _, err := s.command("MigrateProcessInstance", r, nil); err != nil {
		return nil, err
	}
	return &pb.MigrateProcessInstanceResponse{}, nil
}

func (s *Server) DeleteResource(_ context.Context, r *pb.DeleteResourceRequest) (*pb.DeleteResourceResponse, error) {
	if _, err := s.command("DeleteResource", r, nil); err != nil {
		return nil, err
	}
	return &pb.DeleteResourceResponse{}, nil
}

func (s *Server) BroadcastSignal(_ context.Context, r *pb.BroadcastSignalRequest) (*pb.BroadcastSignalResponse, error) {
	s.mu.Lock()
	s.nextKey++
	key := s.nextKey
	s.mu.Unlock()
	if _, err := s.command("BroadcastSignal", r, nil); err != nil {
		return nil, err
	}
	return &pb.BroadcastSignalResponse{Key: key, TenantId: "<default>"}, nil
}
