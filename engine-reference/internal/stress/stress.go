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
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
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
