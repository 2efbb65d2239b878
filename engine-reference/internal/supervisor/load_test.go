package supervisor

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// loadWorker is a raw gRPC worker: it polls or streams on one gateway and
// completes every job it gets (retrying while the job's partition is
// unavailable).
type loadWorker struct {
	gw        pb.GatewayClient
	typ, name string
	completed *atomic.Int64
	errs      *atomic.Int64
	sem       chan struct{}
}

func (w *loadWorker) complete(ctx context.Context, j *pb.ActivatedJob) {
	w.sem <- struct{}{}
	go func() {
		defer func() { <-w.sem }()
		for i := 0; i < 50 && ctx.Err() == nil; i++ {
			c, cancel := context.WithTimeout(ctx, 5*time.Second)
			_, err := w.gw.CompleteJob(c, &pb.CompleteJobRequest{JobKey: j.Key, Variables: `{"done":true}`})
			cancel()
			switch status.Code(err) {
			case codes.OK:
				w.completed.Add(1)
				return
			case codes.NotFound: // completed by another activation meanwhile
				return
			case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled:
				time.Sleep(100 * time.Millisecond) // broker or gateway restarting
				continue
			default:
				w.errs.Add(1)
				return
			}
		}
	}()
}

func (w *loadWorker) poll(ctx context.Context) {
	for ctx.Err() == nil {
		s, err := w.gw.ActivateJobs(ctx, &pb.ActivateJobsRequest{Type: w.typ, Worker: w.name, Timeout: 4000,
			MaxJobsToActivate: 32, RequestTimeout: 1000})
		if err != nil {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		for {
			r, err := s.Recv()
			if err != nil {
				break
			}
			for _, j := range r.Jobs {
				w.complete(ctx, j)
			}
		}
	}
}

func (w *loadWorker) stream(ctx context.Context) {
	for ctx.Err() == nil {
		s, err := w.gw.StreamActivatedJobs(ctx, &pb.StreamActivatedJobsRequest{Type: w.typ, Worker: w.name, Timeout: 4000})
		if err != nil {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		for {
			j, err := s.Recv()
			if err != nil {
				break
			}
			w.complete(ctx, j)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestClusterTenThousandWithFaults runs 10,000 single-task instances on a
// 2-gateway, 3-broker, 6-partition cluster through polling and streaming
// workers on both gateways, while broker 1 is SIGKILLed and restarted and
// gateway 1 is SIGKILLed and restarted, then checks through the admin API
// that every instance completed exactly once. Enabled by
// JOBWIRE_CLUSTER_LOAD=1 (scripts/test.sh sets it; it runs without -race).
func TestClusterTenThousandWithFaults(t *testing.T) {
	if os.Getenv("JOBWIRE_CLUSTER_LOAD") != "1" {
		t.Skip("set JOBWIRE_CLUSTER_LOAD=1 (scripts/test.sh does)")
	}
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("JOBWIRE_CLUSTER_LOAD_N")); err == nil && v > 0 {
		n = v
	}
	t0 := time.Now()
	// The check below lists every instance and job through the admin API,
	// so every partition keeps all of them (the default history is smaller).
	tc := startClusterHistory(t, 2, 3, 6, 2*n)
	startup := time.Since(t0)
	tc.deploy(0, "load", "load-work")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	var completed, errs atomic.Int64
	var wg sync.WaitGroup
	for i, gw := range tc.gws {
		for _, mode := range []string{"poll", "stream", "poll"} {
			w := &loadWorker{gw: gw, typ: "load-work", name: fmt.Sprintf("%s-%d", mode, i), completed: &completed, errs: &errs,
				sem: make(chan struct{}, 32)}
			wg.Add(1)
			go func(mode string) {
				defer wg.Done()
				if mode == "poll" {
					w.poll(ctx)
				} else {
					w.stream(ctx)
				}
			}(mode)
		}
	}
	// Creators: 32 in flight, alternating gateways, retrying on the other
	// gateway when one is down.
	var created, retried atomic.Int64
	keys := make([]int64, n)
	var next atomic.Int64
	var cw sync.WaitGroup
	for c := 0; c < 32; c++ {
		cw.Add(1)
		go func(c int) {
			defer cw.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				for attempt := 0; ; attempt++ {
					if ctx.Err() != nil {
						return
					}
					gw := tc.gws[(i+attempt)%2]
					c, cc := context.WithTimeout(ctx, 5*time.Second)
					r, err := gw.CreateProcessInstance(c, &pb.CreateProcessInstanceRequest{BpmnProcessId: "load", Version: -1,
						Variables: fmt.Sprintf(`{"i":%d}`, i)})
					cc()
					if err == nil {
						keys[i] = r.ProcessInstanceKey
						created.Add(1)
						break
					}
					retried.Add(1)
					time.Sleep(20 * time.Millisecond)
				}
			}
		}(c)
	}
	faults := make(chan string, 4)
	go func() {
		defer close(faults)
		waitFor := func(v int64) {
			for completed.Load() < v && ctx.Err() == nil {
				time.Sleep(10 * time.Millisecond)
			}
		}
		waitFor(int64(n) / 5)
		f0 := time.Now()
		if _, err := tc.admin.StopBroker(ctx, &apb.StopBrokerRequest{NodeId: 1}); err != nil {
			faults <- "stop broker: " + err.Error()
			return
		}
		time.Sleep(500 * time.Millisecond)
		if _, err := tc.admin.StartBroker(ctx, &apb.StartBrokerRequest{NodeId: 1}); err != nil {
			faults <- "start broker: " + err.Error()
			return
		}
		faults <- fmt.Sprintf("broker 1 killed at %d completed, back after %v", n/5, time.Since(f0).Round(time.Millisecond))
		waitFor(int64(n) / 2)
		f0 = time.Now()
		if _, err := tc.admin.RestartGateway(ctx, &apb.RestartGatewayRequest{Index: 1}); err != nil {
			faults <- "restart gateway: " + err.Error()
			return
		}
		faults <- fmt.Sprintf("gateway 1 killed at %d completed, back after %v", n/2, time.Since(f0).Round(time.Millisecond))
	}()
	cw.Wait()
	createdIn := time.Since(t0)
	var inst *apb.ListProcessInstancesResponse
	for ctx.Err() == nil {
		r, err := tc.admin.ListProcessInstances(ctx, &apb.ListProcessInstancesRequest{BpmnProcessId: "load"})
		if err == nil && r.CountsByState["ACTIVE"] == 0 && r.CountsByState["COMPLETED"] >= int64(n) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	elapsed := time.Since(t0)
	var pushed, yielded int64
	streams, _ := tc.admin.ListStreams(ctx, &apb.ListStreamsRequest{})
	for _, s := range streams.Streams {
		pushed += s.JobsPushed
		yielded += s.JobsYielded
	}
	t.Logf("open streams %d (pushed %d, yielded %d on the gateways' current streams)", len(streams.Streams), pushed, yielded)
	cancel()
	wg.Wait()
	for f := range faults {
		t.Log(f)
	}
	inst, err := tc.admin.ListProcessInstances(ctxT(t, 30*time.Second), &apb.ListProcessInstancesRequest{BpmnProcessId: "load", IncludeInstances: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("startup %v; %d instances created in %v (%d create retries); all done in %v; %d completions acknowledged to workers, %d worker errors; counts %v",
		startup, created.Load(), createdIn, retried.Load(), elapsed, completed.Load(), errs.Load(), inst.CountsByState)
	if created.Load() != int64(n) {
		t.Fatalf("created %d of %d", created.Load(), n)
	}
	byKey := map[int64]*apb.ProcessInstanceInfo{}
	for _, in := range inst.Instances {
		byKey[in.Key] = in
		if in.State != apb.ProcessInstanceState_PROCESS_INSTANCE_STATE_COMPLETED || in.CompletionCount != 1 {
			t.Fatalf("instance %d: %v completions %d", in.Key, in.State, in.CompletionCount)
		}
	}
	for i, k := range keys {
		if byKey[k] == nil {
			t.Fatalf("instance %d (key %d) unknown to the engine", i, k)
		}
	}
	// A create whose answer was lost in a restart may have been retried,
	// so the engine can hold a few more instances than the test saw; each
	// of those completed exactly once too.
	if len(inst.Instances) < n || len(inst.Instances) > n+int(retried.Load()) {
		t.Fatalf("%d instances, want %d (+ at most %d retried)", len(inst.Instances), n, retried.Load())
	}
	jobs, err := tc.admin.ListJobs(ctxT(t, 30*time.Second), &apb.ListJobsRequest{Type: "load-work", IncludeJobs: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs.Jobs {
		if j.CompleteCount != 1 {
			t.Fatalf("job %d completed %d times", j.Key, j.CompleteCount)
		}
	}
	if errs.Load() != 0 {
		t.Fatalf("%d unexpected worker errors", errs.Load())
	}
}
