package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// The sdk-go back-pressure scenario with raw clients and 5-minute job
// timeouts, so a job the engine loses cannot be rescued by a time-out: a
// slow stream (2 jobs at a time, 300 ms each, does not read while full) and
// a fast stream on one type, 60 CreateProcessInstanceWithResult, 16 at a
// time. Both workers also long-poll for free capacity, as Zeebe workers
// do (yielded jobs are only ever polled). Every instance must complete.
func TestSlowAndFastStreamsLoseNoJob(t *testing.T) {
	for round := 0; round < 3; round++ {
		t.Run(fmt.Sprint(round), func(t *testing.T) { slowAndFast(t) })
	}
}

func slowAndFast(t *testing.T) {
	en := start(t, Config{})
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	worker := func(name string, maxActive int, work time.Duration, done *atomic.Int32) {
		conn, err := grpc.NewClient(en.e.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<10))
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		gw := pb.NewGatewayClient(conn)
		s, err := gw.StreamActivatedJobs(ctx, &pb.StreamActivatedJobsRequest{Type: "work", Worker: name, Timeout: 300000})
		if err != nil {
			t.Error(err)
			return
		}
		sem := make(chan struct{}, maxActive)
		var wg sync.WaitGroup
		defer wg.Wait()
		handle := func(j *pb.ActivatedJob) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				time.Sleep(work)
				c, cc := context.WithTimeout(context.Background(), 10*time.Second)
				defer cc()
				if _, err := gw.CompleteJob(c, &pb.CompleteJobRequest{JobKey: j.Key, Variables: `{"by":"` + name + `"}`}); err != nil {
					t.Errorf("%s complete: %v", name, err)
				}
				done.Add(1)
			}()
		}
		// Like every Zeebe worker with streaming on, it also long-polls
		// for its free capacity: yielded jobs are never pushed again.
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				free := maxActive - len(sem)
				if free < 1 {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				p, err := gw.ActivateJobs(ctx, &pb.ActivateJobsRequest{Type: "work", Worker: name, Timeout: 300000,
					MaxJobsToActivate: int32(free), RequestTimeout: 10000})
				if err != nil {
					continue
				}
				for {
					r, err := p.Recv()
					if err != nil {
						break
					}
					for _, j := range r.Jobs {
						sem <- struct{}{}
						handle(j)
					}
				}
			}
		}()
		for {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			j, err := s.Recv()
			if err != nil {
				<-sem
				return
			}
			handle(j)
		}
	}
	var slowDone, fastDone atomic.Int32
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); worker("slow", 2, 300*time.Millisecond, &slowDone) }()
	go func() { defer wg.Done(); worker("fast", 32, 0, &fastDone) }()
	defer wg.Wait()
	defer cancel()
	eventually(t, 2*time.Second, "two streams", func() bool { return len(en.streams()) == 2 })
	sem := make(chan struct{}, 16)
	var cwg sync.WaitGroup
	var failed atomic.Int32
	for i := 0; i < 60; i++ {
		sem <- struct{}{}
		cwg.Add(1)
		go func() {
			defer cwg.Done()
			defer func() { <-sem }()
			c, cc := context.WithTimeout(context.Background(), 30*time.Second)
			defer cc()
			_, err := en.gw.CreateProcessInstanceWithResult(c, &pb.CreateProcessInstanceWithResultRequest{
				Request: &pb.CreateProcessInstanceRequest{BpmnProcessId: "one-task", Version: -1}, RequestTimeout: 20000})
			if err != nil {
				failed.Add(1)
				t.Errorf("instance: %v", err)
			}
		}()
	}
	cwg.Wait()
	if failed.Load() > 0 {
		r, _ := en.admin.ListJobs(context.Background(), &apb.ListJobsRequest{Type: "work", IncludeJobs: true})
		var stuck []string
		for _, j := range r.GetJobs() {
			if j.State != apb.JobState_JOB_STATE_COMPLETED {
				stuck = append(stuck, fmt.Sprintf("%d %v worker %s act %d yield %d", j.Key, j.State, j.Worker, j.ActivationCount, j.YieldCount))
			}
		}
		t.Fatalf("slow %d fast %d; streams %v; stuck jobs:\n%s", slowDone.Load(), fastDone.Load(), en.streams(), strings.Join(stuck, "\n"))
	}
	t.Logf("slow %d, fast %d", slowDone.Load(), fastDone.Load())
}
