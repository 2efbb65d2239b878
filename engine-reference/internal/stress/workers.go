package stress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// The workload: the job workers (push streams, some that stop reading, long
// pollers, churners that cancel and drop), the instance creators, and the
// unary calls they make.

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
