package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

func openStream(t *testing.T, gw pb.GatewayClient, typ, worker string) (pb.Gateway_StreamActivatedJobsClient, context.CancelFunc) {
	t.Helper()
	c, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s, err := gw.StreamActivatedJobs(c, &pb.StreamActivatedJobsRequest{Type: typ, Worker: worker, Timeout: 60000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Header(); err != nil { // registered once headers arrive
		t.Fatal(err)
	}
	return s, cancel
}

func (en *env) streams() []*apb.StreamInfo {
	r, err := en.admin.ListStreams(ctx(en.t), &apb.ListStreamsRequest{})
	if err != nil {
		en.t.Fatal(err)
	}
	return r.Streams
}

func TestPushStreamAndBacklogAndAggregation(t *testing.T) {
	en := start(t, Config{NoSync: true})
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	backlog := en.create("one-task", `{"b":1}`) // before any stream: never pushed
	s, _ := openStream(t, en.gw, "work", "pusher")
	s2, cancel2 := openStream(t, en.gw, "work", "pusher")
	_, cancel3 := openStream(t, en.gw, "work", "other")
	ss := en.streams()
	if len(ss) != 3 || ss[0].AggregateId != ss[1].AggregateId || ss[0].AggregateId == ss[2].AggregateId {
		t.Fatalf("aggregation %v", ss)
	}
	cancel3()
	cancel2()
	_, _ = s2.Recv()
	eventually(t, 2*time.Second, "streams closed", func() bool { return len(en.streams()) == 1 })
	k := en.create("one-task", `{"p":2}`)
	j, err := s.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if j.ProcessInstanceKey != k || j.Worker != "pusher" || j.Variables != `{"p":2}` || j.Deadline <= time.Now().UnixMilli() {
		t.Fatalf("pushed %v", j)
	}
	complete(t, en, j.Key, "")
	polled := en.activate("work", 10, -1)
	if len(polled) != 1 || polled[0].ProcessInstanceKey != backlog {
		t.Fatalf("backlog must be polled, got %v", polled)
	}
	if st := en.streams(); st[0].JobsPushed != 1 || !st[0].Ready {
		t.Fatalf("stream %v", st[0])
	}
}

func TestStalledStreamYieldsToPoller(t *testing.T) {
	en := start(t, Config{NoSync: true, Partitions: 1})
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	_, err := en.admin.InjectFault(ctx(t), &apb.InjectFaultRequest{Fault: &apb.InjectFaultRequest_StallStreams{
		StallStreams: &apb.StallStreamsFault{Type: "work", DurationMs: 60000}}})
	if err != nil {
		t.Fatal(err)
	}
	openStream(t, en.gw, "work", "stalled")
	en.create("one-task", "")
	jobs := en.activate("work", 5, 2000)
	if len(jobs) != 1 {
		t.Fatalf("poller got %d jobs", len(jobs))
	}
	info := jobInfo(t, en, jobs[0].Key)
	if info.YieldCount != 1 || info.ActivationCount != 2 {
		t.Fatalf("job %v", info)
	}
	if st := en.streams(); st[0].JobsYielded != 1 || st[0].JobsPushed != 0 || st[0].Ready {
		t.Fatalf("stream %v", st[0])
	}
}

// A client that opens a stream and never reads: HTTP/2 flow control fills
// up, the stream's sender blocks in Send, and later jobs are yielded to a
// poller instead of being buffered.
func TestNonReadingClientIsNotReady(t *testing.T) {
	en := start(t, Config{NoSync: true, Partitions: 1})
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	slow, err := grpc.NewClient(en.e.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<10))
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	openStream(t, pb.NewGatewayClient(slow), "work", "never-reads")
	big := fmt.Sprintf(`{"blob":"%s"}`, strings.Repeat("x", 16<<10))
	const n = 40
	for i := 0; i < n; i++ {
		en.create("one-task", big)
	}
	st := en.streams()[0]
	if st.JobsPushed == 0 || st.JobsPushed >= n || st.JobsYielded == 0 || st.Ready {
		t.Fatalf("want some pushed then yields, got %v", st)
	}
	polled := 0
	for {
		jobs := en.activate("work", 32, -1)
		if len(jobs) == 0 {
			break
		}
		polled += len(jobs)
	}
	if int64(polled)+st.JobsPushed != n {
		t.Fatalf("pushed %d + polled %d != %d", st.JobsPushed, polled, n)
	}
}

func TestResetStreams(t *testing.T) {
	en := start(t, Config{NoSync: true})
	s, _ := openStream(t, en.gw, "work", "w")
	r, err := en.admin.ResetStreams(ctx(t), &apb.ResetStreamsRequest{})
	if err != nil || r.StreamsClosed != 1 {
		t.Fatalf("reset %v %v", r, err)
	}
	if _, err := s.Recv(); status.Code(err) != codes.Unavailable {
		t.Fatalf("want UNAVAILABLE, got %v", err)
	}
	lp, err := en.gw.ActivateJobs(ctx(t), &pb.ActivateJobsRequest{Type: "work", Worker: "w", Timeout: 1000, MaxJobsToActivate: 1, RequestTimeout: 30000})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 3*time.Second, "parked poll", func() bool {
		r, _ := en.admin.ListLongPolls(ctx(t), &apb.ListLongPollsRequest{})
		return len(r.LongPolls) == 1
	})
	r, err = en.admin.ResetStreams(ctx(t), &apb.ResetStreamsRequest{Code: int32(codes.Aborted), IncludeLongPolls: true})
	if err != nil || r.LongPollsClosed != 1 {
		t.Fatalf("reset %v %v", r, err)
	}
	if _, err := lp.Recv(); status.Code(err) != codes.Aborted {
		t.Fatalf("want ABORTED, got %v", err)
	}
}
