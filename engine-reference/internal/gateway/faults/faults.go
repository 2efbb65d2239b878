// Package faults is the gateway's fault injection and request counting:
// rejects, latency and long-poll faults set through the admin API, the
// per-method, per-peer request counts, and the gRPC interceptors that apply
// both to every Gateway RPC.
package faults

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// Faults holds injected faults and the per-method, per-peer request counts.
// Both are applied by gRPC interceptors so every RPC goes through them.
type Faults struct {
	mu      sync.Mutex
	rejects []*rejectFault
	latency map[string]time.Duration
	counts  map[countKey]*Count
	polls   []*pollFault
	// tokensUpTo: bearer tokens issued at or before this Unix second are
	// expired (ExpireTokens); 0 = none.
	tokensUpTo int64
	// armed: some reject or latency fault is set (under mu; read without it
	// by every RPC, which then skips the fault lookups).
	armed atomic.Bool
}

// rearm recomputes armed (under f.mu).
func (f *Faults) rearm() {
	f.armed.Store(len(f.rejects) > 0 || len(f.latency) > 0)
}

// MaxCountKeys bounds the per-method, per-peer request counts. Every new
// connection is a new peer, so without a bound a long-running engine
// (conformance runs, soaks) keeps a counter, and up to 1,000 timestamps,
// for every connection it ever served. Beyond the bound, the least
// recently active peer's counts are folded into its method's EvictedPeer
// entry: totals per method and code stay exact.
const MaxCountKeys = 1024

// EvictedPeer is the peer name under which evicted peers' counts are kept.
const EvictedPeer = "(evicted peers)"

type pollFault struct {
	code  codes.Code
	left  int32
	after time.Duration
}

// AddLongPollFault ends the next count parked long polls with code after
// they were parked for `after`.
func (f *Faults) AddLongPollFault(code codes.Code, count int32, after time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.polls = append(f.polls, &pollFault{code: code, left: count, after: after})
}

// TakeLongPollFault takes one parked long poll's fault, if any is set: the
// code to end the poll with after it was parked for the duration.
func (f *Faults) TakeLongPollFault() (codes.Code, time.Duration, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.polls) > 0 {
		p := f.polls[0]
		if p.left <= 0 {
			f.polls = f.polls[1:]
			continue
		}
		p.left--
		return p.code, p.after, true
	}
	return 0, 0, false
}

type rejectFault struct {
	method    string
	partition int32 // 0: reject at the gateway; >0: that partition rejects
	code      codes.Code
	left      int32
	msg       string
	// afterApply: the request is handled first and then answered code
	// instead of its real answer (only successful unary requests use it).
	afterApply bool
}

type countKey struct{ method, peer string }

// Count is the request count of one method from one peer.
type Count struct {
	Method, Peer string
	Total        int64
	ByCode       map[string]int64
	Timestamps   []int64
	last         int64 // last arrival (Unix ms), for eviction
}

// NewFaults returns an empty fault set.
func NewFaults() *Faults {
	return &Faults{latency: map[string]time.Duration{}, counts: map[countKey]*Count{}}
}

// AddReject rejects the next count requests of method (all methods if
// empty) with code. With partition > 0 only that partition's part of an
// ActivateJobs pass is rejected (a broker under backpressure).
func (f *Faults) AddReject(method string, partition int32, code codes.Code, count int32, msg string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if msg == "" {
		msg = "rejected by injected fault"
	}
	f.rejects = append(f.rejects, &rejectFault{method: method, partition: partition, code: code, left: count, msg: msg})
	f.rearm()
}

// AddRejectAfterApply answers the next count successful unary requests of
// method (all methods if empty) with code after the engine handled them:
// the command is applied, the client sees the error (a lost answer).
func (f *Faults) AddRejectAfterApply(method string, code codes.Code, count int32, msg string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if msg == "" {
		msg = "answer replaced by injected fault after the command was applied"
	}
	f.rejects = append(f.rejects, &rejectFault{method: method, code: code, left: count, msg: msg, afterApply: true})
	f.rearm()
}

// SetLatency delays every request of method.
func (f *Faults) SetLatency(method string, d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.latency[method] = d
	f.rearm()
}

// Clear removes every fault.
func (f *Faults) Clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rejects = nil
	f.polls = nil
	f.latency = map[string]time.Duration{}
	f.rearm()
}

// TakeReject takes one reject of method (at the gateway: partition 0), if
// any is set: the code and message to answer with.
func (f *Faults) TakeReject(method string, partition int32) (codes.Code, string, bool) {
	return f.take(method, partition, false)
}

// TakeRejectAfterApply takes one after-apply reject of method, if any is
// set: the code and message to answer a handled request with.
func (f *Faults) TakeRejectAfterApply(method string) (codes.Code, string, bool) {
	return f.take(method, 0, true)
}

func (f *Faults) take(method string, partition int32, afterApply bool) (codes.Code, string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, r := range f.rejects {
		if (r.method == "" || r.method == method) && r.partition == partition && r.afterApply == afterApply && r.left > 0 {
			r.left--
			if r.left == 0 {
				f.rejects = append(f.rejects[:i:i], f.rejects[i+1:]...)
				f.rearm()
			}
			return r.code, r.msg, true
		}
	}
	return 0, "", false
}

// PartitionReject takes one reject of method by partition (partition > 0),
// if any is set.
func (f *Faults) PartitionReject(method string, partition int32) (codes.Code, string, bool) {
	return f.TakeReject(method, partition)
}

func (f *Faults) count(method, peer string) *Count {
	k := countKey{method, peer}
	c := f.counts[k]
	if c == nil {
		for len(f.counts) >= MaxCountKeys && f.evictCount() {
		}
		c = &Count{Method: method, Peer: peer, ByCode: map[string]int64{}}
		f.counts[k] = c
	}
	return c
}

// evictCount folds the least recently active peer's counts into its
// method's EvictedPeer entry and reports whether there was one (under
// f.mu; called at MaxCountKeys, so the scan is amortized over new
// connections, not requests).
func (f *Faults) evictCount() bool {
	var old *Count
	for _, c := range f.counts {
		if c.Peer != EvictedPeer && (old == nil || c.last < old.last) {
			old = c
		}
	}
	if old == nil {
		return false
	}
	delete(f.counts, countKey{old.Method, old.Peer})
	k := countKey{old.Method, EvictedPeer}
	agg := f.counts[k]
	if agg == nil {
		agg = &Count{Method: old.Method, Peer: EvictedPeer, ByCode: map[string]int64{}}
		f.counts[k] = agg
	}
	agg.Total += old.Total
	for code, n := range old.ByCode {
		agg.ByCode[code] += n
	}
	agg.Timestamps = append(agg.Timestamps, old.Timestamps...)
	slices.Sort(agg.Timestamps)
	if len(agg.Timestamps) > 1000 {
		agg.Timestamps = slices.Clone(agg.Timestamps[len(agg.Timestamps)-1000:])
	}
	agg.last = max(agg.last, old.last)
	return true
}

// arrive counts an arrival (under f.mu).
func (f *Faults) arrive(method, peer string, at time.Time) {
	c := f.count(method, peer)
	c.Total++
	c.last = at.UnixMilli()
	c.Timestamps = append(c.Timestamps, c.last)
	if len(c.Timestamps) > 1000 {
		c.Timestamps = c.Timestamps[len(c.Timestamps)-1000:]
	}
}

// Arrive counts a request when it arrives (so parked long polls and open
// streams are visible at once).
func (f *Faults) Arrive(method, peer string, at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.arrive(method, peer, at)
}

// Finish records the status a request ended with.
func (f *Faults) Finish(method, peer string, code codes.Code) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.count(method, peer).ByCode[CodeName(code)]++
}

// Record counts a complete request (arrival and outcome), e.g. token
// requests to the mock OAuth endpoint.
func (f *Faults) Record(method, peer string, code codes.Code, at time.Time) {
	f.Arrive(method, peer, at)
	f.Finish(method, peer, code)
}

// Counts returns a copy of the request counts, optionally for one method.
func (f *Faults) Counts(method string) []Count {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Count
	for _, c := range f.counts {
		if method != "" && c.Method != method {
			continue
		}
		cp := *c
		cp.ByCode = map[string]int64{}
		for k, v := range c.ByCode {
			cp.ByCode[k] = v
		}
		cp.Timestamps = append([]int64(nil), c.Timestamps...)
		out = append(out, cp)
	}
	return out
}

// ShortMethod splits a full gRPC method name ("/pkg.Service/Method") into
// its service and method.
func ShortMethod(full string) (service, method string) {
	i := strings.LastIndexByte(full, '/')
	if i < 0 {
		return "", full
	}
	return strings.TrimPrefix(full[:i], "/"), full[i+1:]
}

// GatewayService is the only service faults and counts apply to; admin and
// health stay usable while the gateway is being broken on purpose.
const GatewayService = "gateway_protocol.Gateway"

// before counts a Gateway request and applies the faults set for it. One
// lock per request, and none for the fault lookups while no fault is set.
func (f *Faults) before(ctx context.Context, m, peer string, at time.Time) error {
	f.mu.Lock()
	f.arrive(m, peer, at)
	var d time.Duration
	if f.armed.Load() {
		d = f.latency[m]
		if d == 0 {
			d = f.latency[""]
		}
	}
	f.mu.Unlock()
	if d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return status.FromContextError(ctx.Err()).Err()
		}
	}
	if f.armed.Load() {
		if code, msg, ok := f.TakeReject(m, 0); ok {
			return status.Error(code, msg)
		}
	}
	return nil
}

// Unary is the fault/count interceptor for unary RPCs.
func (f *Faults) Unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	svc, m := ShortMethod(info.FullMethod)
	if svc != GatewayService {
		return h(ctx, req)
	}
	peer := PeerOf(ctx)
	err := f.before(ctx, m, peer, time.Now())
	var resp any
	if err == nil {
		resp, err = h(ctx, req)
		if err == nil && f.armed.Load() {
			// applied: the answer is lost, the client gets the injected code
			if code, msg, ok := f.TakeRejectAfterApply(m); ok {
				resp, err = nil, status.Error(code, msg)
			}
		}
	}
	f.Finish(m, peer, status.Code(err))
	return resp, err
}

// Stream is the fault/count interceptor for streaming RPCs.
func (f *Faults) Stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	svc, m := ShortMethod(info.FullMethod)
	if svc != GatewayService {
		return h(srv, ss)
	}
	ctx := ss.Context()
	peer := PeerOf(ctx)
	err := f.before(ctx, m, peer, time.Now())
	if err == nil {
		err = h(srv, ss)
	}
	f.Finish(m, peer, status.Code(err))
	return err
}

var codeNames = [...]string{"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
	"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
	"UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"}

// CodeName is the canonical gRPC name of a code (e.g. RESOURCE_EXHAUSTED).
func CodeName(c codes.Code) string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return c.String()
}

// ExpireTokens makes every bearer token issued up to the Unix second upTo
// (0: now; iat at or before it, or no iat) count as expired, and returns
// that second. ClearFaults leaves it in force; a later cutoff replaces an
// earlier one, never the reverse.
func (f *Faults) ExpireTokens(upTo int64) int64 {
	if upTo <= 0 {
		upTo = time.Now().Unix()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tokensUpTo = max(f.tokensUpTo, upTo)
	return f.tokensUpTo
}

// TokensExpiredUpTo is the iat second up to which tokens count as expired
// (0: none).
func (f *Faults) TokensExpiredUpTo() int64 {
	if f == nil {
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tokensUpTo
}

// PeerOf is the peer name a request is counted under: the client's address.
func PeerOf(ctx context.Context) string {
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		return p.Addr.String()
	}
	return ""
}
