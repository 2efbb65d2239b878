package faults

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// call runs the unary interceptor for a full method name from peer addr and
// reports the status it ended with and whether the handler ran.
func call(f *Faults, ctx context.Context, full, addr string) (codes.Code, string, bool) {
	if addr != "" {
		ctx = peer.NewContext(ctx, &peer.Peer{Addr: mustAddr(addr)})
	}
	ran := false
	_, err := f.Unary(ctx, nil, &grpc.UnaryServerInfo{FullMethod: full}, func(context.Context, any) (any, error) {
		ran = true
		return "ok", nil
	})
	st, _ := status.FromError(err)
	return st.Code(), st.Message(), ran
}

func mustAddr(s string) net.Addr {
	a, err := net.ResolveTCPAddr("tcp", s)
	if err != nil {
		panic(err)
	}
	return a
}

func countOf(f *Faults, method, peer string) *Count {
	for _, c := range f.Counts(method) {
		if c.Peer == peer {
			return &c
		}
	}
	return nil
}

func TestRejectAnswersCountTimesThenPasses(t *testing.T) {
	f := NewFaults()
	f.AddReject("CompleteJob", 0, codes.ResourceExhausted, 2, "busy")
	for i := 0; i < 2; i++ {
		code, msg, ran := call(f, context.Background(), "/gateway_protocol.Gateway/CompleteJob", "127.0.0.1:4000")
		if code != codes.ResourceExhausted || msg != "busy" || ran {
			t.Fatalf("call %d: %v %q (handler ran: %v), want RESOURCE_EXHAUSTED \"busy\" without the handler", i, code, msg, ran)
		}
	}
	if code, _, ran := call(f, context.Background(), "/gateway_protocol.Gateway/CompleteJob", "127.0.0.1:4000"); code != codes.OK || !ran {
		t.Fatalf("third call: %v (handler ran: %v), want OK: the fault was for two calls", code, ran)
	}
	// Another method was never affected.
	if code, _, ran := call(f, context.Background(), "/gateway_protocol.Gateway/ActivateJobs", "127.0.0.1:4000"); code != codes.OK || !ran {
		t.Fatalf("other method: %v (handler ran: %v), want OK", code, ran)
	}
	c := countOf(f, "CompleteJob", "127.0.0.1:4000")
	if c == nil || c.Total != 3 || c.ByCode["RESOURCE_EXHAUSTED"] != 2 || c.ByCode["OK"] != 1 || len(c.Timestamps) != 3 {
		t.Fatalf("CompleteJob count: %+v, want 3 requests: 2 RESOURCE_EXHAUSTED, 1 OK, 3 timestamps", c)
	}
}

func TestRejectWithoutMethodAppliesToEveryGatewayMethod(t *testing.T) {
	f := NewFaults()
	f.AddReject("", 0, codes.Unavailable, 1, "")
	code, msg, _ := call(f, context.Background(), "/gateway_protocol.Gateway/Topology", "")
	if code != codes.Unavailable || msg != "rejected by injected fault" {
		t.Fatalf("got %v %q, want UNAVAILABLE with the default message", code, msg)
	}
}

// Faults and counts apply to the Gateway service only: admin and health
// stay usable while the gateway is broken on purpose.
func TestOtherServicesAreNeitherFaultedNorCounted(t *testing.T) {
	f := NewFaults()
	f.AddReject("", 0, codes.Unavailable, 10, "")
	f.SetLatency("", time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second) // a delayed call fails, not hangs
	defer cancel()
	for _, m := range []string{"/jobwire.admin.v1.AdminService/ClearFaults", "/grpc.health.v1.Health/Check"} {
		if code, _, ran := call(f, ctx, m, "127.0.0.1:1"); code != codes.OK || !ran {
			t.Fatalf("%s: %v (handler ran: %v), want OK", m, code, ran)
		}
	}
	if n := len(f.Counts("")); n != 0 {
		t.Fatalf("%d counts for non-Gateway calls, want none", n)
	}
}

func TestPartitionRejectIsOnlyForItsPartition(t *testing.T) {
	f := NewFaults()
	f.AddReject("ActivateJobs", 2, codes.ResourceExhausted, 1, "")
	if _, _, ok := f.TakeReject("ActivateJobs", 0); ok {
		t.Fatal("a partition's reject was taken at the gateway")
	}
	if _, _, ok := f.PartitionReject("ActivateJobs", 1); ok {
		t.Fatal("partition 2's reject was taken by partition 1")
	}
	code, msg, ok := f.PartitionReject("ActivateJobs", 2)
	if !ok || code != codes.ResourceExhausted || msg != "rejected by injected fault" {
		t.Fatalf("partition 2: %v %q %v, want RESOURCE_EXHAUSTED with the default message", code, msg, ok)
	}
	if _, _, ok := f.PartitionReject("ActivateJobs", 2); ok {
		t.Fatal("a reject for one call was taken twice")
	}
	// A gateway call is not rejected by a partition fault.
	f.AddReject("ActivateJobs", 2, codes.ResourceExhausted, 1, "")
	if code, _, ran := call(f, context.Background(), "/gateway_protocol.Gateway/ActivateJobs", ""); code != codes.OK || !ran {
		t.Fatalf("gateway call with a partition fault set: %v, want OK", code)
	}
}

func TestLatencyDelaysAndRespectsTheDeadline(t *testing.T) {
	f := NewFaults()
	f.SetLatency("Topology", 80*time.Millisecond)
	start := time.Now()
	if code, _, ran := call(f, context.Background(), "/gateway_protocol.Gateway/Topology", ""); code != codes.OK || !ran {
		t.Fatalf("delayed call: %v, want OK", code)
	}
	if d := time.Since(start); d < 80*time.Millisecond {
		t.Fatalf("delayed call took %v, want at least 80ms", d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if code, _, ran := call(f, ctx, "/gateway_protocol.Gateway/Topology", ""); code != codes.DeadlineExceeded || ran {
		t.Fatalf("call with a 10ms deadline: %v (handler ran: %v), want DEADLINE_EXCEEDED without the handler", code, ran)
	}
	// Another method is not delayed.
	start = time.Now()
	call(f, context.Background(), "/gateway_protocol.Gateway/CompleteJob", "")
	if d := time.Since(start); d > 50*time.Millisecond {
		t.Fatalf("undelayed method took %v", d)
	}
	f.Clear()
	start = time.Now()
	call(f, context.Background(), "/gateway_protocol.Gateway/Topology", "")
	if d := time.Since(start); d > 50*time.Millisecond {
		t.Fatalf("after Clear the call took %v, want no delay", d)
	}
}

func TestClearRemovesRejectsAndLongPollFaults(t *testing.T) {
	f := NewFaults()
	f.AddReject("", 0, codes.Internal, 5, "")
	f.AddLongPollFault(codes.Unavailable, 5, time.Second)
	f.Clear()
	if code, _, ran := call(f, context.Background(), "/gateway_protocol.Gateway/Topology", ""); code != codes.OK || !ran {
		t.Fatalf("after Clear: %v, want OK", code)
	}
	if _, _, ok := f.TakeLongPollFault(); ok {
		t.Fatal("a long-poll fault survived Clear")
	}
}

func TestLongPollFaultsInOrder(t *testing.T) {
	f := NewFaults()
	f.AddLongPollFault(codes.Unavailable, 2, 100*time.Millisecond)
	f.AddLongPollFault(codes.Internal, 1, time.Second)
	want := []struct {
		code  codes.Code
		after time.Duration
	}{{codes.Unavailable, 100 * time.Millisecond}, {codes.Unavailable, 100 * time.Millisecond}, {codes.Internal, time.Second}}
	for i, w := range want {
		code, after, ok := f.TakeLongPollFault()
		if !ok || code != w.code || after != w.after {
			t.Fatalf("poll %d: %v after %v (%v), want %v after %v", i, code, after, ok, w.code, w.after)
		}
	}
	if _, _, ok := f.TakeLongPollFault(); ok {
		t.Fatal("more long-poll faults than were set")
	}
}

type fakeStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s fakeStream) Context() context.Context { return s.ctx }

func TestStreamInterceptorRejectsAndCounts(t *testing.T) {
	f := NewFaults()
	f.AddReject("StreamActivatedJobs", 0, codes.Unavailable, 1, "down")
	ctx := peer.NewContext(context.Background(), &peer.Peer{Addr: mustAddr("127.0.0.1:7")})
	info := &grpc.StreamServerInfo{FullMethod: "/gateway_protocol.Gateway/StreamActivatedJobs"}
	ran := 0
	h := func(any, grpc.ServerStream) error { ran++; return errors.New("plain error") }
	err := f.Stream(nil, fakeStream{ctx: ctx}, info, h)
	if status.Code(err) != codes.Unavailable || ran != 0 {
		t.Fatalf("first stream: %v (handler ran %d times), want UNAVAILABLE without the handler", err, ran)
	}
	err = f.Stream(nil, fakeStream{ctx: ctx}, info, h)
	if err == nil || ran != 1 {
		t.Fatalf("second stream: %v (handler ran %d times), want the handler's error", err, ran)
	}
	c := countOf(f, "StreamActivatedJobs", "127.0.0.1:7")
	if c == nil || c.Total != 2 || c.ByCode["UNAVAILABLE"] != 1 || c.ByCode["UNKNOWN"] != 1 {
		t.Fatalf("stream count: %+v, want 2 (UNAVAILABLE 1, UNKNOWN 1) under the peer's address", c)
	}
}

func TestRecordCountsTokenRequests(t *testing.T) {
	f := NewFaults()
	at := time.UnixMilli(5_000)
	f.Record("oauth/token", "10.0.0.1:1", codes.OK, at)
	f.Record("oauth/token", "10.0.0.1:1", codes.Unauthenticated, at.Add(time.Millisecond))
	c := countOf(f, "oauth/token", "10.0.0.1:1")
	if c == nil || c.Total != 2 || c.ByCode["OK"] != 1 || c.ByCode["UNAUTHENTICATED"] != 1 ||
		len(c.Timestamps) != 2 || c.Timestamps[0] != 5_000 || c.Timestamps[1] != 5_001 {
		t.Fatalf("token counts: %+v", c)
	}
	// Counts returns copies.
	c.ByCode["OK"] = 99
	if countOf(f, "oauth/token", "10.0.0.1:1").ByCode["OK"] != 1 {
		t.Fatal("Counts handed out the live map")
	}
}

func TestExpireTokensOnlyMovesForward(t *testing.T) {
	var none *Faults
	if none.TokensExpiredUpTo() != 0 {
		t.Fatal("a nil fault set expires tokens")
	}
	f := NewFaults()
	if f.TokensExpiredUpTo() != 0 {
		t.Fatal("a new fault set expires tokens")
	}
	if got := f.ExpireTokens(100); got != 100 {
		t.Fatalf("ExpireTokens(100) = %d", got)
	}
	if got := f.ExpireTokens(50); got != 100 || f.TokensExpiredUpTo() != 100 {
		t.Fatalf("an earlier cutoff replaced a later one: %d", got)
	}
	before := time.Now().Unix()
	if got := f.ExpireTokens(0); got < before || got > time.Now().Unix() {
		t.Fatalf("ExpireTokens(0) = %d, want now (%d)", got, before)
	}
	f.Clear()
	if f.TokensExpiredUpTo() < before {
		t.Fatal("Clear lifted the token cutoff (it stays in force)")
	}
}

func TestNamesAndPeers(t *testing.T) {
	if got := CodeName(codes.ResourceExhausted); got != "RESOURCE_EXHAUSTED" {
		t.Fatalf("CodeName(ResourceExhausted) = %q", got)
	}
	if got := CodeName(codes.Unauthenticated); got != "UNAUTHENTICATED" {
		t.Fatalf("CodeName(Unauthenticated) = %q", got)
	}
	if got := CodeName(codes.Code(99)); got != codes.Code(99).String() {
		t.Fatalf("CodeName(99) = %q", got)
	}
	if svc, m := ShortMethod("/gateway_protocol.Gateway/ActivateJobs"); svc != GatewayService || m != "ActivateJobs" {
		t.Fatalf("ShortMethod = %q, %q", svc, m)
	}
	if svc, m := ShortMethod("noslash"); svc != "" || m != "noslash" {
		t.Fatalf("ShortMethod without a slash = %q, %q", svc, m)
	}
	if p := PeerOf(context.Background()); p != "" {
		t.Fatalf("PeerOf without a peer = %q", p)
	}
	ctx := peer.NewContext(context.Background(), &peer.Peer{Addr: mustAddr("127.0.0.1:9")})
	if p := PeerOf(ctx); !strings.HasPrefix(p, "127.0.0.1:9") {
		t.Fatalf("PeerOf = %q", p)
	}
}

// An after-apply reject lets the handler run and replaces its answer; only
// handled (OK) requests use it up, and a plain reject of the same method is
// not taken by it (nor the reverse).
func TestRejectAfterApplyRunsTheHandlerThenAnswersTheCode(t *testing.T) {
	f := NewFaults()
	f.AddRejectAfterApply("DeleteResource", codes.Unavailable, 1, "lost")
	refused := func(context.Context, any) (any, error) { return nil, status.Error(codes.NotFound, "no such key") }
	_, err := f.Unary(context.Background(), nil, &grpc.UnaryServerInfo{FullMethod: "/gateway_protocol.Gateway/DeleteResource"}, refused)
	if status.Code(err) != codes.NotFound {
		t.Fatalf("a refused request: %v, want its own NOT_FOUND (the fault is for applied requests)", err)
	}
	code, msg, ran := call(f, context.Background(), "/gateway_protocol.Gateway/DeleteResource", "127.0.0.1:4000")
	if code != codes.Unavailable || msg != "lost" || !ran {
		t.Fatalf("applied request: %v %q (handler ran: %v), want UNAVAILABLE \"lost\" after the handler ran", code, msg, ran)
	}
	if code, _, ran := call(f, context.Background(), "/gateway_protocol.Gateway/DeleteResource", "127.0.0.1:4000"); code != codes.OK || !ran {
		t.Fatalf("next request: %v (handler ran: %v), want OK: the fault was for one request", code, ran)
	}
	c := countOf(f, "DeleteResource", "127.0.0.1:4000")
	if c == nil || c.ByCode["UNAVAILABLE"] != 1 || c.ByCode["OK"] != 1 {
		t.Fatalf("counts %+v, want the replaced answer counted as UNAVAILABLE", c)
	}

	f.AddReject("Topology", 0, codes.ResourceExhausted, 1, "before")
	f.AddRejectAfterApply("Topology", codes.Unavailable, 1, "after")
	if code, msg, ran := call(f, context.Background(), "/gateway_protocol.Gateway/Topology", ""); code != codes.ResourceExhausted || msg != "before" || ran {
		t.Fatalf("first: %v %q (ran %v), want the plain reject before the handler", code, msg, ran)
	}
	if code, msg, ran := call(f, context.Background(), "/gateway_protocol.Gateway/Topology", ""); code != codes.Unavailable || msg != "after" || !ran {
		t.Fatalf("second: %v %q (ran %v), want the after-apply reject", code, msg, ran)
	}
	f.AddRejectAfterApply("", codes.Unavailable, 1, "")
	f.Clear()
	if code, _, _ := call(f, context.Background(), "/gateway_protocol.Gateway/Topology", ""); code != codes.OK {
		t.Fatalf("after Clear: %v, want OK", code)
	}
}
