// Package stress is a hang hunter: a hostile job-worker workload over raw
// gRPC clients, with a watchdog that proves the engine keeps answering.
//
// The workload is the one that once hung the engine: several push streams
// on one job type, some of which stop reading (tiny HTTP/2 windows, so the
// server's Send blocks), long pollers, streams and polls cancelled
// mid-flight, connections dropped with jobs in hand, CompleteJob / FailJob /
// UpdateJobTimeout racing 200 ms job time-outs, and 16
// CreateProcessInstanceWithResult calls in flight. The watchdog asks every
// 200 ms for Topology and sends each partition a command (CompleteJob of a
// key that cannot exist, answered NOT_FOUND by the partition goroutine);
// any answer slower than 2 s is a hang: the caller's Dump (goroutines of the
// engine) is logged and the run fails.
//
// Tests in internal/engine (in-process dev, -race), internal/cluster
// (in-process gateway + brokers, -race) and cmd/jobwire-engine (the real
// binary, dev and cluster, SIGQUIT dump, bounded shutdown) drive it.
package stress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// JobType is the one job type every worker shares.
const JobType = "stress"

// ProcessID is the deployed process: two service tasks of JobType.
const ProcessID = "stress"

// BPMN is the stress process.
const BPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="stress-defs" targetNamespace="jobwire">
  <bpmn:process id="stress" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="a"/>
    <bpmn:serviceTask id="a"><bpmn:extensionElements><zeebe:taskDefinition type="stress" retries="3"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="a" targetRef="b"/>
    <bpmn:serviceTask id="b"><bpmn:extensionElements><zeebe:taskDefinition type="stress" retries="3"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f3" sourceRef="b" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>`

// Config configures a run.
type Config struct {
	// Gateways are the client-facing addresses; workers spread over them.
	Gateways []string
	// Admin serves AdminService (dev: the gateway; cluster: the supervisor).
	Admin string
	// RegistryAdmins are asked for ListStreams / ListLongPolls at the end
	// (default: Admin); in-process clusters list each gateway.
	RegistryAdmins []string
	// Duration of the creation phase (default 10 s). The run then waits
	// for every instance to complete (bounded by Drain, default 60 s).
	Duration time.Duration
	Drain    time.Duration
	// InFlight CreateProcessInstanceWithResult calls (default 16).
	InFlight int
	// Logf logs progress (t.Logf).
	Logf func(format string, args ...any)
	// Dump returns the engine's goroutines; called once on a hang.
	Dump func() string
}

// Result are the numbers of a run.
type Result struct {
	Instances, WithResult, FireAndForget int64
	Pushed, Polled                       int64
	Completed, CompleteNotFound          int64
	Failed, TimeoutsUpdated              int64
	OtherRejections                      int64
	StreamsOpened, StreamsCancelled      int64
	ConnsDropped, PollsCancelled         int64
	Probes                               int64
	MaxProbe                             time.Duration
	Elapsed                              time.Duration
	// Latency of CreateProcessInstanceWithResult.
	P50, P99, Max time.Duration
}

func (r Result) String() string {
	return fmt.Sprintf("instances %d (with result %d, fire-and-forget %d) in %v; jobs pushed %d polled %d; "+
		"complete ok %d not-found %d; fail ok %d; timeout updates %d; other rejections %d; streams opened %d cancelled %d; "+
		"connections dropped %d; polls cancelled %d; watchdog probes %d, slowest %v; with-result latency p50 %v p99 %v max %v",
		r.Instances, r.WithResult, r.FireAndForget, r.Elapsed.Round(time.Millisecond), r.Pushed, r.Polled,
		r.Completed, r.CompleteNotFound, r.Failed, r.TimeoutsUpdated, r.OtherRejections, r.StreamsOpened,
		r.StreamsCancelled, r.ConnsDropped, r.PollsCancelled, r.Probes, r.MaxProbe.Round(time.Millisecond),
		r.P50.Round(time.Millisecond), r.P99.Round(time.Millisecond), r.Max.Round(time.Millisecond))
}

// DurationFromEnv returns JOBWIRE_STRESS_DURATION (e.g. "5m") or def.
func DurationFromEnv(def time.Duration) time.Duration {
	if s := os.Getenv("JOBWIRE_STRESS_DURATION"); s != "" {
		if d, err := time.ParseDuration(s); err == nil && d > 0 {
			return d
		}
	}
	return def
}

type counters struct {
	instances, withResult, fireForget atomic.Int64
	pushed, polled                    atomic.Int64
	completed, completeNotFound       atomic.Int64
	failed, timeouts, other           atomic.Int64
	streamsOpened, streamsCancelled   atomic.Int64
	connsDropped, pollsCancelled      atomic.Int64
	probes                            atomic.Int64
	maxProbe                          atomic.Int64
	latMu                             sync.Mutex
	lat                               []time.Duration
	otherMu                           sync.Mutex
	otherSeen                         map[string]int
}

type run struct {
	cfg      Config
	c        counters
	ctx      context.Context // workers' lifetime
	hang     chan string     // first hang description
	failOnce sync.Once
	failErr  error
	pad      string
}

// tinyConn dials with 64 KiB HTTP/2 windows (stream and connection), so a
// client that stops reading exhausts the server's send window quickly.
func tinyConn(addr string) (*grpc.ClientConn, error) {
	return grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<10))
}

func (r *run) fail(err error) {
	r.failOnce.Do(func() { r.failErr = err })
}

func (r *run) gateway(i int) string { return r.cfg.Gateways[i%len(r.cfg.Gateways)] }

// Run drives the workload and returns its numbers; an error means a hang,
// an instance that did not complete, or an unexpected status.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Duration <= 0 {
		cfg.Duration = 10 * time.Second
	}
	if cfg.Drain <= 0 {
		cfg.Drain = 60 * time.Second
	}
	if cfg.InFlight <= 0 {
		cfg.InFlight = 16
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.Admin == "" {
		cfg.Admin = cfg.Gateways[0]
	}
	r := &run{cfg: cfg, hang: make(chan string, 1), pad: strings.Repeat("x", 3000)}
	r.c.otherSeen = map[string]int{}
	began := time.Now()

	ctl, err := grpc.NewClient(cfg.Gateways[0], grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return Result{}, err
	}
	defer ctl.Close()
	gw := pb.NewGatewayClient(ctl)
	adminConn, err := grpc.NewClient(cfg.Admin, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return Result{}, err
	}
	defer adminConn.Close()
	admin := apb.NewAdminServiceClient(adminConn)
	regAdmins := []apb.AdminServiceClient{admin}
	if len(cfg.RegistryAdmins) > 0 {
		regAdmins = nil
		for _, a := range cfg.RegistryAdmins {
			c, err := grpc.NewClient(a, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				return Result{}, err
			}
			defer c.Close()
			regAdmins = append(regAdmins, apb.NewAdminServiceClient(c))
		}
	}

	dctx, dcancel := context.WithTimeout(ctx, 20*time.Second)
	_, err = gw.DeployResource(dctx, &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "stress.bpmn", Content: []byte(BPMN)}}})
	if err != nil {
		dcancel()
		return Result{}, fmt.Errorf("deploy: %w", err)
	}
	topo, err := gw.Topology(dctx, &pb.TopologyRequest{})
	dcancel()
	if err != nil {
		return Result{}, fmt.Errorf("topology: %w", err)
	}

	// Watchdog: its own connection, lives until the very end.
	wctx, wcancel := context.WithCancel(ctx)
	var wwg sync.WaitGroup
	wwg.Add(1)
	go func() { defer wwg.Done(); r.watchdog(wctx, topo.PartitionsCount) }()
	defer func() { wcancel(); wwg.Wait() }()

	// Workers live until the instances are done.
	workCtx, stopWorkers := context.WithCancel(ctx)
	defer stopWorkers()
	r.ctx = workCtx
	var workers sync.WaitGroup
	spawn := func(f func()) {
		workers.Add(1)
		go func() { defer workers.Done(); f() }()
	}
	for i := 0; i < 2; i++ {
		spawn(func() { r.streamer(r.gateway(i), "fast", 5000, 32, 0) })
	}
	// The SDK's slow worker: 2 jobs at a time, 300 ms handler, 250 ms
	// job timeout (completions race time-outs), stops reading while full.
	spawn(func() { r.streamer(r.gateway(1), "slow", 250, 2, 300*time.Millisecond) })
	for i := 0; i < 2; i++ {
		spawn(func() { r.deadReader(r.gateway(i)) })
	}
	for i := 0; i < 2; i++ {
		spawn(func() { r.poller(r.gateway(i), i) })
	}
	for i := 0; i < 2; i++ {
		spawn(func() { r.churner(r.gateway(i), i) })
	}
	spawn(func() { r.pollChurner(r.gateway(0)) })

	// Creators.
	createUntil := time.Now().Add(cfg.Duration)
	var creators sync.WaitGroup
	for i := 0; i < cfg.InFlight; i++ {
		creators.Add(1)
		go func() { defer creators.Done(); r.creator(r.gateway(i), createUntil) }()
	}
	creators.Add(1)
	go func() { defer creators.Done(); r.fireAndForget(r.gateway(1), createUntil) }()

	progress := time.NewTicker(5 * time.Second)
	defer progress.Stop()
	createdDone := make(chan struct{})
	go func() { creators.Wait(); close(createdDone) }()
	var hangErr error
wait:
	for {
		select {
		case <-createdDone:
			break wait
		case h := <-r.hang:
			hangErr = errors.New(h)
			break wait
		case <-progress.C:
			cfg.Logf("stress: %s", r.result(began))
		case <-ctx.Done():
			hangErr = ctx.Err()
			break wait
		}
	}
	if hangErr == nil && r.failErr == nil {
		// Every instance (also the fire-and-forget ones) must complete.
		deadline := time.Now().Add(cfg.Drain)
		for {
			qctx, qcancel := context.WithTimeout(ctx, 5*time.Second)
			res, err := admin.ListProcessInstances(qctx, &apb.ListProcessInstancesRequest{BpmnProcessId: ProcessID})
			qcancel()
			n := r.c.instances.Load()
			if err == nil && res.CountsByState["ACTIVE"] == 0 && res.CountsByState["COMPLETED"] == n {
				break
			}
			if time.Now().After(deadline) {
				r.fail(fmt.Errorf("instances not all completed %v after the drain: admin %v (err %v), created %d", cfg.Drain,
					res.GetCountsByState(), err, n))
				break
			}
			select {
			case h := <-r.hang:
				hangErr = errors.New(h)
			case <-time.After(100 * time.Millisecond):
			}
			if hangErr != nil {
				break
			}
		}
	}
	stopWorkers()
	workersDone := make(chan struct{})
	go func() { workers.Wait(); close(workersDone) }()
	select {
	case <-workersDone:
	case <-time.After(30 * time.Second):
		r.fail(errors.New("workers did not stop within 30 s after cancellation (a client call ignored its context)"))
	}
	if hangErr == nil && r.failErr == nil {
		// Once the clients are gone the registries must be empty.
		deadline := time.Now().Add(5 * time.Second)
		for {
			qctx, qcancel := context.WithTimeout(ctx, 5*time.Second)
			nStreams, nPolls := 0, 0
			var err1 error
			for _, ra := range regAdmins {
				ss, err := ra.ListStreams(qctx, &apb.ListStreamsRequest{})
				if err != nil {
					err1 = err
					break
				}
				ps, err := ra.ListLongPolls(qctx, &apb.ListLongPollsRequest{})
				if err != nil {
					err1 = err
					break
				}
				nStreams += len(ss.Streams)
				nPolls += len(ps.LongPolls)
			}
			js, err3 := admin.ListJobs(qctx, &apb.ListJobsRequest{Type: JobType})
			qcancel()
			if err1 == nil && err3 == nil && nStreams == 0 && nPolls == 0 &&
				js.CountsByState["ACTIVATED"] == 0 && js.CountsByState["ACTIVATABLE"] == 0 {
				break
			}
			if time.Now().After(deadline) {
				r.fail(fmt.Errorf("after every client left: %d streams, %d long polls, jobs %v (errors %v %v)",
					nStreams, nPolls, js.GetCountsByState(), err1, err3))
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	select {
	case h := <-r.hang:
		if hangErr == nil {
			hangErr = errors.New(h)
		}
	default:
	}
	res := r.result(began)
	if hangErr != nil {
		return res, hangErr
	}
	r.c.otherMu.Lock()
	other := fmt.Sprint(r.c.otherSeen)
	r.c.otherMu.Unlock()
	if r.failErr != nil {
		return res, fmt.Errorf("%w (unexpected statuses: %s)", r.failErr, other)
	}
	if r.c.other.Load() > 0 {
		return res, fmt.Errorf("unexpected statuses: %s", other)
	}
	return res, nil
}

func (r *run) result(began time.Time) Result {
	r.c.latMu.Lock()
	lat := append([]time.Duration(nil), r.c.lat...)
	r.c.latMu.Unlock()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	var p50, p99, mx time.Duration
	if n := len(lat); n > 0 {
		p50, p99, mx = lat[n/2], lat[n*99/100], lat[n-1]
	}
	return Result{P50: p50, P99: p99, Max: mx, Instances: r.c.instances.Load(), WithResult: r.c.withResult.Load(), FireAndForget: r.c.fireForget.Load(),
		Pushed: r.c.pushed.Load(), Polled: r.c.polled.Load(), Completed: r.c.completed.Load(),
		CompleteNotFound: r.c.completeNotFound.Load(), Failed: r.c.failed.Load(), TimeoutsUpdated: r.c.timeouts.Load(),
		OtherRejections: r.c.other.Load(), StreamsOpened: r.c.streamsOpened.Load(), StreamsCancelled: r.c.streamsCancelled.Load(),
		ConnsDropped: r.c.connsDropped.Load(), PollsCancelled: r.c.pollsCancelled.Load(), Probes: r.c.probes.Load(),
		MaxProbe: time.Duration(r.c.maxProbe.Load()), Elapsed: time.Since(began)}
}

// watchdog probes the gateway and every partition every 200 ms.
func (r *run) watchdog(ctx context.Context, partitions int32) {
	conn, err := grpc.NewClient(r.cfg.Gateways[0], grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		r.reportHang(fmt.Sprintf("watchdog cannot dial: %v", err))
		return
	}
	defer conn.Close()
	gw := pb.NewGatewayClient(conn)
	probe := func(what string, f func(context.Context) error) bool {
		c, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		t0 := time.Now()
		err := f(c)
		d := time.Since(t0)
		if ctx.Err() != nil {
			return false
		}
		r.c.probes.Add(1)
		for {
			m := r.c.maxProbe.Load()
			if int64(d) <= m || r.c.maxProbe.CompareAndSwap(m, int64(d)) {
				break
			}
		}
		if status.Code(err) == codes.DeadlineExceeded || d >= 2*time.Second {
			r.reportHang(fmt.Sprintf("HANG: %s did not answer within 2 s (%v after %v)", what, err, d))
			return false
		}
		if err != nil {
			r.reportHang(fmt.Sprintf("watchdog: %s failed: %v", what, err))
			return false
		}
		return true
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if !probe("Topology", func(c context.Context) error {
			_, err := gw.Topology(c, &pb.TopologyRequest{})
			return err
		}) {
			return
		}
		for pid := int32(1); pid <= partitions; pid++ {
			key := int64(pid)<<51 | 1<<50 // a key no partition hands out in a test's lifetime
			if !probe(fmt.Sprintf("partition %d (CompleteJob of an unknown key)", pid), func(c context.Context) error {
				_, err := gw.CompleteJob(c, &pb.CompleteJobRequest{JobKey: key})
				if status.Code(err) == codes.NotFound {
					return nil
				}
				if err == nil {
					return errors.New("completed a job that cannot exist")
				}
				return err
			}) {
				return
			}
		}
	}
}

func (r *run) reportHang(msg string) {
	if r.cfg.Dump != nil {
		msg += "\n===== engine goroutines =====\n" + r.cfg.Dump()
	}
	select {
	case r.hang <- msg:
	default:
	}
}

// unexpected records a status no worker should ever see.
func (r *run) unexpected(op string, err error) {
	if r.ctx.Err() != nil {
		return // shutting the workload down
	}
	r.c.other.Add(1)
	k := op + ":" + status.Code(err).String()
	r.c.otherMu.Lock()
	if r.c.otherSeen[k] < 3 {
		r.cfg.Logf("stress: unexpected %s: %v", op, err)
	}
	r.c.otherSeen[k]++
	r.c.otherMu.Unlock()
}

// callCtx bounds one unary call; a hang shows up in the watchdog first.
func (r *run) callCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Second)
}

func (r *run) complete(gw pb.GatewayClient, key int64) { r.completeOn(gw, key, false) }

// completeOn completes a job; dropping tolerates the caller closing the
// connection under the call (CANCELED / UNAVAILABLE).
func (r *run) completeOn(gw pb.GatewayClient, key int64, dropping bool) {
	c, cancel := r.callCtx()
	defer cancel()
	_, err := gw.CompleteJob(c, &pb.CompleteJobRequest{JobKey: key, Variables: `{"done":true}`})
	code := status.Code(err)
	if dropping && (code == codes.Canceled || code == codes.Unavailable) {
		return
	}
	switch code {
	case codes.OK:
		r.c.completed.Add(1)
	case codes.NotFound:
		r.c.completeNotFound.Add(1) // timed out and completed by another worker
	case codes.FailedPrecondition:
		// timed out, re-activated and failed by another worker
	default:
		r.unexpected("CompleteJob", err)
	}
}

func (r *run) failJob(gw pb.GatewayClient, j *pb.ActivatedJob, backoff int64) {
	c, cancel := r.callCtx()
	defer cancel()
	// Retries unchanged: the job comes back, never an incident.
	_, err := gw.FailJob(c, &pb.FailJobRequest{JobKey: j.Key, Retries: j.Retries, ErrorMessage: "stress", RetryBackOff: backoff})
	switch status.Code(err) {
	case codes.OK:
		r.c.failed.Add(1)
	case codes.NotFound, codes.FailedPrecondition:
		// timed out (not ACTIVATED) or done elsewhere
	default:
		r.unexpected("FailJob", err)
	}
}

// handle finishes a job in one of several racy ways.
func (r *run) handle(gw pb.GatewayClient, j *pb.ActivatedJob) {
	switch n := rand.IntN(20); {
	case n < 2:
		r.failJob(gw, j, 0)
	case n < 3:
		r.failJob(gw, j, 20)
	case n < 4:
		c, cancel := r.callCtx()
		_, err := gw.UpdateJobTimeout(c, &pb.UpdateJobTimeoutRequest{JobKey: j.Key, Timeout: 150})
		cancel()
		switch status.Code(err) {
		case codes.OK:
			r.c.timeouts.Add(1)
		case codes.NotFound, codes.FailedPrecondition:
		default:
			r.unexpected("UpdateJobTimeout", err)
		}
		r.complete(gw, j.Key)
	default:
		r.complete(gw, j.Key)
	}
}

// streamer is a push worker with at most maxActive jobs in its handler;
// while full it does not read its stream (flow control then blocks the
// server's Send). It reconnects until the workload ends.
func (r *run) streamer(addr, name string, timeout int64, maxActive int, work time.Duration) {
	conn, err := tinyConn(addr)
	if err != nil {
		r.fail(err)
		return
	}
	defer conn.Close()
	gw := pb.NewGatewayClient(conn)
	sem := make(chan struct{}, maxActive)
	var wg sync.WaitGroup
	defer wg.Wait()
	for r.ctx.Err() == nil {
		s, err := gw.StreamActivatedJobs(r.ctx, &pb.StreamActivatedJobsRequest{Type: JobType, Worker: name, Timeout: timeout})
		if err != nil {
			continue
		}
		r.c.streamsOpened.Add(1)
		for {
			select {
			case sem <- struct{}{}:
			case <-r.ctx.Done():
			}
			if r.ctx.Err() != nil {
				break
			}
			j, err := s.Recv()
			if err != nil {
				<-sem
				if r.ctx.Err() == nil {
					r.unexpected("StreamActivatedJobs", err)
					time.Sleep(50 * time.Millisecond)
				}
				break
			}
			r.c.pushed.Add(1)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				if work > 0 {
					time.Sleep(work)
				}
				r.handle(gw, j)
			}()
		}
	}
}

// deadReader opens a stream with a 200 ms job timeout, reads one job and
// then never reads again (while staying connected), like a frozen worker.
func (r *run) deadReader(addr string) {
	conn, err := tinyConn(addr)
	if err != nil {
		r.fail(err)
		return
	}
	defer conn.Close()
	g := pb.NewGatewayClient(conn)
	s, err := g.StreamActivatedJobs(r.ctx, &pb.StreamActivatedJobsRequest{Type: JobType, Worker: "dead", Timeout: 200})
	if err != nil {
		return
	}
	r.c.streamsOpened.Add(1)
	if _, err := s.Recv(); err == nil {
		r.c.pushed.Add(1)
	}
	<-r.ctx.Done()
}

// poller long-polls with a 200 ms job timeout and finishes each job after
// a random 0-300 ms (so completions and failures race the time-out).
func (r *run) poller(addr string, i int) {
	conn, err := tinyConn(addr)
	if err != nil {
		r.fail(err)
		return
	}
	defer conn.Close()
	gw := pb.NewGatewayClient(conn)
	var wg sync.WaitGroup
	defer wg.Wait()
	for r.ctx.Err() == nil {
		s, err := gw.ActivateJobs(r.ctx, &pb.ActivateJobsRequest{Type: JobType, Worker: fmt.Sprintf("poller-%d", i),
			Timeout: 200, MaxJobsToActivate: 8, RequestTimeout: 500})
		if err != nil {
			continue
		}
		for {
			resp, err := s.Recv()
			if err != nil {
				if r.ctx.Err() == nil && !errors.Is(err, io.EOF) {
					r.unexpected("ActivateJobs", err)
				}
				break
			}
			for _, j := range resp.Jobs {
				r.c.polled.Add(1)
				wg.Add(1)
				go func() {
					defer wg.Done()
					time.Sleep(time.Duration(rand.IntN(300)) * time.Millisecond)
					r.handle(gw, j)
				}()
			}
		}
	}
}

// churner opens streams on fresh connections, takes a few jobs, and then
// cancels the stream or drops the whole connection with jobs in hand.
func (r *run) churner(addr string, i int) {
	for r.ctx.Err() == nil {
		conn, err := tinyConn(addr)
		if err != nil {
			r.fail(err)
			return
		}
		gw := pb.NewGatewayClient(conn)
		sctx, cancel := context.WithCancel(r.ctx)
		s, err := gw.StreamActivatedJobs(sctx, &pb.StreamActivatedJobsRequest{Type: JobType, Worker: fmt.Sprintf("churn-%d", i), Timeout: 300})
		if err == nil {
			r.c.streamsOpened.Add(1)
			n := rand.IntN(4)
			got := make(chan *pb.ActivatedJob, 8)
			go func() {
				defer close(got)
				for k := 0; k < n; k++ {
					j, err := s.Recv()
					if err != nil {
						return
					}
					got <- j
				}
			}()
			t := time.NewTimer(time.Duration(20+rand.IntN(200)) * time.Millisecond)
		loop:
			for {
				select {
				case j, ok := <-got:
					if !ok {
						break loop
					}
					r.c.pushed.Add(1)
					if rand.IntN(2) == 0 {
						go r.completeOn(gw, j.Key, true) // may race the connection drop below
					}
				case <-t.C:
					break loop
				}
			}
			t.Stop()
		}
		if rand.IntN(2) == 0 {
			cancel()
			r.c.streamsCancelled.Add(1)
			time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
			conn.Close()
		} else {
			conn.Close() // abrupt: the server sees the transport vanish
			r.c.connsDropped.Add(1)
			cancel()
		}
	}
}

// pollChurner parks long polls and cancels them after a random moment,
// sometimes by dropping the connection.
func (r *run) pollChurner(addr string) {
	for r.ctx.Err() == nil {
		conn, err := tinyConn(addr)
		if err != nil {
			r.fail(err)
			return
		}
		gw := pb.NewGatewayClient(conn)
		for k := 0; k < 10 && r.ctx.Err() == nil; k++ {
			pctx, cancel := context.WithTimeout(r.ctx, time.Duration(rand.IntN(40))*time.Millisecond)
			s, err := gw.ActivateJobs(pctx, &pb.ActivateJobsRequest{Type: JobType, Worker: "poll-churn", Timeout: 200,
				MaxJobsToActivate: 2, RequestTimeout: 5000})
			if err == nil {
				for {
					if _, err := s.Recv(); err != nil {
						break // jobs received are simply abandoned (they time out)
					}
					r.c.polled.Add(1)
				}
			}
			cancel()
			r.c.pollsCancelled.Add(1)
		}
		conn.Close()
		r.c.connsDropped.Add(1)
	}
}

// creator runs CreateProcessInstanceWithResult in a loop; each must succeed.
func (r *run) creator(addr string, until time.Time) {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		r.fail(err)
		return
	}
	defer conn.Close()
	gw := pb.NewGatewayClient(conn)
	for time.Now().Before(until) && r.ctx.Err() == nil && r.failErr == nil {
		c, cancel := context.WithTimeout(r.ctx, r.cfg.Drain+10*time.Second)
		t0 := time.Now()
		resp, err := gw.CreateProcessInstanceWithResult(c, &pb.CreateProcessInstanceWithResultRequest{
			Request:        &pb.CreateProcessInstanceRequest{BpmnProcessId: ProcessID, Version: -1, Variables: `{"pad":"` + r.pad + `"}`},
			RequestTimeout: r.cfg.Drain.Milliseconds()})
		cancel()
		if err != nil {
			if r.ctx.Err() == nil {
				r.fail(fmt.Errorf("CreateProcessInstanceWithResult: %w", err))
			}
			return
		}
		if el := time.Since(t0); el > 3*time.Second && os.Getenv("JOBWIRE_STRESS_DEBUG") != "" {
			go r.debugSlow(addr, resp.ProcessInstanceKey, el)
		}
		r.c.latMu.Lock()
		r.c.lat = append(r.c.lat, time.Since(t0))
		r.c.latMu.Unlock()
		r.c.instances.Add(1)
		r.c.withResult.Add(1)
	}
}

// fireAndForget creates instances without waiting for them.
func (r *run) fireAndForget(addr string, until time.Time) {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		r.fail(err)
		return
	}
	defer conn.Close()
	gw := pb.NewGatewayClient(conn)
	for time.Now().Before(until) && r.ctx.Err() == nil && r.failErr == nil {
		c, cancel := r.callCtx()
		_, err := gw.CreateProcessInstance(c, &pb.CreateProcessInstanceRequest{BpmnProcessId: ProcessID, Version: -1,
			Variables: `{"pad":"` + r.pad + `"}`})
		cancel()
		if err != nil {
			r.fail(fmt.Errorf("CreateProcessInstance: %w", err))
			return
		}
		r.c.instances.Add(1)
		r.c.fireForget.Add(1)
		time.Sleep(10 * time.Millisecond)
	}
}

// debugSlow (JOBWIRE_STRESS_DEBUG=1) logs the job history of an instance
// that took more than 3 s: activations, yields, time-outs, fails.
func (r *run) debugSlow(addr string, key int64, el time.Duration) {
	conn, _ := grpc.NewClient(r.cfg.Admin, grpc.WithTransportCredentials(insecure.NewCredentials()))
	defer conn.Close()
	js, err := apb.NewAdminServiceClient(conn).ListJobs(context.Background(), &apb.ListJobsRequest{Type: JobType, IncludeJobs: true})
	if err != nil {
		return
	}
	for _, j := range js.Jobs {
		if j.ProcessInstanceKey == key {
			r.cfg.Logf("SLOW %v instance %d job %d: act %d yield %d timeout %d complete %d fail %d", el, key, j.Key,
				j.ActivationCount, j.YieldCount, j.TimeoutCount, j.CompleteCount, j.FailCount)
		}
	}
}
