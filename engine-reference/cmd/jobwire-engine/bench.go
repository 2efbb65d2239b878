package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/engine"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

const benchBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="bench" targetNamespace="x">
  <bpmn:process id="bench" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="task"/>
    <bpmn:serviceTask id="task"><bpmn:extensionElements><zeebe:taskDefinition type="bench"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="task" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>`

// bench measures single-service-task instances end to end: clients call
// CreateProcessInstanceWithResult, an in-process worker (push stream plus a
// long-polling fallback) completes each job, and every command is durable
// (fsync per batch) unless --no-fsync.
func bench(args []string) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	n := fs.Int("instances", 20000, "instances to run")
	conc := fs.Int("concurrency", 64, "instances in flight")
	parts := fs.Int("partitions", 3, "partitions")
	mode := fs.String("mode", "push", "worker activation: push (stream + poll fallback) or poll")
	noSync := fs.Bool("no-fsync", false, "skip fsync (not durable)")
	dataDir := fs.String("data-dir", "", "data dir (default: temp dir, removed)")
	withUI := fs.Bool("ui", false, "serve the live view (the partitions' commit observer on) to measure its cost")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the measured run (engine and clients, one process) to this file (go tool pprof)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	procs := reserveSyncProcs(*parts, *noSync)
	e, err := engine.Start(engine.Config{Port: 0, Partitions: *parts, NoSync: *noSync, DataDir: *dataDir, UI: *withUI})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer e.Close()
	conn, err := grpc.NewClient(e.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer conn.Close()
	gw := pb.NewGatewayClient(conn)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := gw.DeployResource(ctx, &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "bench.bpmn", Content: []byte(benchBPMN)}}}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var pushed, polled atomic.Int64
	completeSem := make(chan struct{}, 64)
	handle := func(j *pb.ActivatedJob) {
		completeSem <- struct{}{}
		go func() {
			defer func() { <-completeSem }()
			_, _ = gw.CompleteJob(ctx, &pb.CompleteJobRequest{JobKey: j.Key, Variables: `{"done":true}`})
		}()
	}
	if *mode == "push" {
		s, err := gw.StreamActivatedJobs(ctx, &pb.StreamActivatedJobsRequest{Type: "bench", Worker: "bench", Timeout: 60000})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		go func() {
			for {
				j, err := s.Recv()
				if err != nil {
					return
				}
				pushed.Add(1)
				handle(j)
			}
		}()
	}
	for i := 0; i < 2; i++ { // pollers: all jobs in poll mode, yielded ones in push mode
		go func() {
			for ctx.Err() == nil {
				s, err := gw.ActivateJobs(ctx, &pb.ActivateJobsRequest{Type: "bench", Worker: "bench", Timeout: 60000, MaxJobsToActivate: 32, RequestTimeout: 1000})
				if err != nil {
					continue
				}
				for {
					r, err := s.Recv()
					if err != nil {
						break
					}
					for _, j := range r.Jobs {
						polled.Add(1)
						handle(j)
					}
				}
			}
		}()
	}
	time.Sleep(50 * time.Millisecond) // let the stream register
	before := e.Stats()
	lat := make([]time.Duration, *n)
	var next atomic.Int64
	var failed atomic.Int64
	var wg sync.WaitGroup
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	t0 := time.Now()
	for w := 0; w < *conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(*n) {
					return
				}
				s := time.Now()
				_, err := gw.CreateProcessInstanceWithResult(ctx, &pb.CreateProcessInstanceWithResultRequest{
					Request: &pb.CreateProcessInstanceRequest{BpmnProcessId: "bench", Version: -1, Variables: `{"i":1}`}})
				if err != nil {
					failed.Add(1)
				}
				lat[i] = time.Since(s)
			}
		}()
	}
	wg.Wait()
	el := time.Since(t0)
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	after := e.Stats()
	var fsyncs, batches, records int64
	for i := range after {
		fsyncs += after[i].Fsyncs - before[i].Fsyncs
		batches += after[i].Batches - before[i].Batches
		records += after[i].LogPosition - before[i].LogPosition
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) time.Duration { return lat[int(float64(len(lat)-1)*p)] }
	durable := "on"
	if *noSync {
		durable = "OFF"
	}
	fmt.Printf("jobwire-engine bench: %d single-service-task instances, %d in flight, %d partitions, worker %s, durability %s, GOMAXPROCS %d on %d CPUs\n",
		*n, *conc, *parts, *mode, durable, procs, runtime.NumCPU())
	fmt.Printf("  throughput      %.0f instances/s (%.2fs)\n", float64(*n)/el.Seconds(), el.Seconds())
	fmt.Printf("  latency         p50 %.2f ms, p99 %.2f ms, max %.2f ms (create → completed, CreateProcessInstanceWithResult)\n",
		ms(pct(0.50)), ms(pct(0.99)), ms(lat[len(lat)-1]))
	fmt.Printf("  fsyncs          %.0f /s (%d total; %.1f log records per fsync)\n", float64(fsyncs)/el.Seconds(), fsyncs, float64(records)/float64(max64(fsyncs, 1)))
	fmt.Printf("  jobs            %d pushed, %d polled; %d failed requests\n", pushed.Load(), polled.Load(), failed.Load())
	if failed.Load() > 0 {
		return 1
	}
	return 0
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}
