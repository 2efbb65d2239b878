// Command uiworker is the real worker behind the live view's browser test
// and latency benchmark: a plain Zeebe-protocol gRPC client (no SDK) that
// deploys processes, creates instances and works their jobs over the wire.
//
//	uiworker scenario --addr 127.0.0.1:P
//	    deploys ui-order (job type ui-charge, worked by a push stream,
//	    worker "ui-push-worker") and ui-refund (job type ui-refund, worked by
//	    a long poller, worker "ui-poll-worker", that fails each job's first
//	    attempt with retries 0 and the message FailMessage, then completes
//	    it); creates one instance of each; prints "created <process> <key>"
//	    and "ready"; works jobs until stdin closes.
//	uiworker load --addr 127.0.0.1:P --rate 500 --duration 20s
//	    deploys ui-load (job type ui-load-task), opens two push streams that
//	    complete every job, creates --rate instances per second for
//	    --duration, prints "load created=N rate=R/s completed=M".
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// FailMessage is the error message of the failing job's first attempt.
const FailMessage = "card declined: insufficient funds (ui-test)"

func process(id, jobType string) []byte {
	return []byte(fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d-%[1]s" targetNamespace="http://jobwire.dev/ui-test">
  <bpmn:process id="%[1]s" isExecutable="true">
    <bpmn:startEvent id="start"><bpmn:outgoing>f1</bpmn:outgoing></bpmn:startEvent>
    <bpmn:serviceTask id="task-%[2]s"><bpmn:extensionElements><zeebe:taskDefinition type="%[2]s" retries="1" /></bpmn:extensionElements><bpmn:incoming>f1</bpmn:incoming><bpmn:outgoing>f2</bpmn:outgoing></bpmn:serviceTask>
    <bpmn:endEvent id="end"><bpmn:incoming>f2</bpmn:incoming></bpmn:endEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="task-%[2]s" />
    <bpmn:sequenceFlow id="f2" sourceRef="task-%[2]s" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`, id, jobType))
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: uiworker scenario|load --addr HOST:PORT [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	addr := fs.String("addr", "", "gateway address (127.0.0.1:port)")
	rate := fs.Int("rate", 500, "load: instances created per second")
	dur := fs.Duration("duration", 20*time.Second, "load: how long to create instances")
	_ = fs.Parse(os.Args[2:])
	conn, err := grpc.NewClient(*addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		fatal(err)
	}
	defer conn.Close()
	gw := pb.NewGatewayClient(conn)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	switch os.Args[1] {
	case "scenario":
		scenario(ctx, gw)
	case "load":
		load(ctx, gw, *rate, *dur)
	default:
		fatal(fmt.Errorf("unknown mode %q", os.Args[1]))
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "uiworker:", err)
	os.Exit(1)
}

func deploy(ctx context.Context, gw pb.GatewayClient, id, jobType string) {
	_, err := gw.DeployResource(ctx, &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: id + ".bpmn", Content: process(id, jobType)}}})
	if err != nil {
		fatal(fmt.Errorf("deploy %s: %w", id, err))
	}
}

func create(ctx context.Context, gw pb.GatewayClient, id string) (int64, error) {
	r, err := gw.CreateProcessInstance(ctx, &pb.CreateProcessInstanceRequest{BpmnProcessId: id, Version: -1,
		Variables: `{"orderId":"ui-42","amount":99.5}`})
	if err != nil {
		return 0, err
	}
	return r.ProcessInstanceKey, nil
}

// pushWorker completes every job pushed on one stream until ctx ends.
func pushWorker(ctx context.Context, gw pb.GatewayClient, jobType, worker string, done *atomic.Int64) error {
	st, err := gw.StreamActivatedJobs(ctx, &pb.StreamActivatedJobsRequest{Type: jobType, Worker: worker, Timeout: 30000})
	if err != nil {
		return err
	}
	for {
		j, err := st.Recv()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		go func() {
			if _, err := gw.CompleteJob(ctx, &pb.CompleteJobRequest{JobKey: j.Key, Variables: `{"charged":true}`}); err == nil && done != nil {
				done.Add(1)
			}
		}()
	}
}

func scenario(ctx context.Context, gw pb.GatewayClient) {
	deploy(ctx, gw, "ui-order", "ui-charge")
	deploy(ctx, gw, "ui-refund", "ui-refund")
	go func() {
		if err := pushWorker(ctx, gw, "ui-charge", "ui-push-worker", nil); err != nil {
			fmt.Fprintln(os.Stderr, "uiworker: push stream ended:", err)
		}
	}()
	// The poller fails each job's first attempt with no retries left (an
	// incident with our error message) and completes any later attempt
	// (after the incident was resolved from the page).
	go func() {
		seen := map[int64]bool{}
		for ctx.Err() == nil {
			st, err := gw.ActivateJobs(ctx, &pb.ActivateJobsRequest{Type: "ui-refund", Worker: "ui-poll-worker",
				Timeout: 30000, MaxJobsToActivate: 8, RequestTimeout: 60000})
			if err != nil {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			for {
				r, err := st.Recv()
				if err != nil {
					break
				}
				for _, j := range r.Jobs {
					if !seen[j.Key] {
						seen[j.Key] = true
						_, err = gw.FailJob(ctx, &pb.FailJobRequest{JobKey: j.Key, Retries: 0, ErrorMessage: FailMessage})
					} else {
						_, err = gw.CompleteJob(ctx, &pb.CompleteJobRequest{JobKey: j.Key, Variables: `{"refunded":true}`})
					}
					if err != nil {
						fmt.Fprintln(os.Stderr, "uiworker: job", j.Key, err)
					}
				}
			}
		}
	}()
	// Give the stream and the poll a moment to register, so the first
	// instance's job is pushed (not polled) and the poll parks.
	time.Sleep(300 * time.Millisecond)
	for _, id := range []string{"ui-order", "ui-refund"} {
		k, err := create(ctx, gw, id)
		if err != nil {
			fatal(fmt.Errorf("create %s: %w", id, err))
		}
		fmt.Printf("created %s %d\n", id, k)
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, bufio.NewReader(os.Stdin))
}

func load(ctx context.Context, gw pb.GatewayClient, rate int, dur time.Duration) {
	deploy(ctx, gw, "ui-load", "ui-load-task")
	var completed atomic.Int64
	wctx, stopWorkers := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if err := pushWorker(wctx, gw, "ui-load-task", fmt.Sprintf("ui-load-worker-%d", i), &completed); err != nil && !errors.Is(err, context.Canceled) {
				fmt.Fprintln(os.Stderr, "uiworker: push stream ended:", err)
			}
		}(i)
	}
	time.Sleep(300 * time.Millisecond)
	var created, failed atomic.Int64
	start := time.Now()
	interval := time.Second / time.Duration(rate)
	sem := make(chan struct{}, 256)
	var cw sync.WaitGroup
	for n := 0; ; n++ {
		at := start.Add(time.Duration(n) * interval)
		if at.Sub(start) >= dur {
			break
		}
		if d := time.Until(at); d > 0 {
			time.Sleep(d)
		}
		sem <- struct{}{}
		cw.Add(1)
		go func() {
			defer cw.Done()
			defer func() { <-sem }()
			if _, err := create(ctx, gw, "ui-load"); err != nil {
				failed.Add(1)
				return
			}
			created.Add(1)
		}()
	}
	cw.Wait()
	el := time.Since(start)
	deadline := time.Now().Add(10 * time.Second)
	for completed.Load() < created.Load() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	stopWorkers()
	wg.Wait()
	fmt.Printf("load created=%d failed=%d rate=%.1f/s completed=%d\n", created.Load(), failed.Load(),
		float64(created.Load())/el.Seconds(), completed.Load())
}
