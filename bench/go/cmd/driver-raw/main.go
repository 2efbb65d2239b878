// Command driver-raw is the floor of the benchmark (../../../DRIVERS.md): a
// worker with no client library at all, only grpc-go and the gateway
// protocol's generated stubs (the ones the official Go client ships). It does
// the least a worker must do per job and nothing else: activate (one
// StreamActivatedJobs stream in push mode; ActivateJobs long polls asking for
// every free slot in poll mode), hand each job to one of Capacity long-lived
// handler goroutines, run the no-op handler there, send CompleteJob. No retries, no back-off, no ledger, no telemetry, no
// graceful close: its worker CPU per job is the cost of the transport, the
// cheapest any client library can reach on this machine.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/camunda/zeebe/clients/go/v8/pkg/pb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/jobwire/jobwire/bench/go/internal/drv"
)

func main() {
	cfg := drv.Parse()
	conn, err := grpc.NewClient(strings.Split(cfg.Address, ",")[0], grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	gw := pb.NewGatewayClient(conn)
	ctx, cancel := context.WithCancel(context.Background())
	r := &drv.Recorder{}
	var wg sync.WaitGroup
	for _, s := range cfg.Workers {
		for i := 0; i < s.Count; i++ {
			w := &worker{gw: gw, r: r, spec: s, slots: make(chan struct{}, s.Capacity), jobs: make(chan *pb.ActivatedJob, s.Capacity)}
			for k := 0; k < s.Capacity; k++ {
				go func() {
					for job := range w.jobs {
						w.handle(ctx, job)
					}
				}()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if s.Mode == "push" {
					w.push(ctx)
				} else {
					w.poll(ctx)
				}
			}()
		}
	}
	drv.Run("go-raw", "grpc-go", r, func() {
		cancel()
		wg.Wait()
		_ = conn.Close()
	})
}

type worker struct {
	gw    pb.GatewayClient
	r     *drv.Recorder
	spec  drv.WorkerSpec
	slots chan struct{} // one token per job held: at most Capacity
	jobs  chan *pb.ActivatedJob
}

const jobTimeout = 5 * 60 * 1000 // ms, as the other drivers' default activation timeout

// handle runs the no-op handler and completes the job, then frees its slot.
func (w *worker) handle(ctx context.Context, job *pb.ActivatedJob) {
	defer func() { <-w.slots }()
	w.r.Start(drv.T0([]byte(job.GetVariables())))
	if w.spec.DelayMs > 0 {
		select {
		case <-time.After(time.Duration(w.spec.DelayMs) * time.Millisecond):
		case <-ctx.Done():
			return
		}
	}
	if _, err := w.gw.CompleteJob(ctx, &pb.CompleteJobRequest{JobKey: job.GetKey()}); err == nil {
		w.r.Done()
	}
}

// push: one stream; every pushed job takes a slot (HTTP/2 flow control holds
// the rest back while the slots are taken).
func (w *worker) push(ctx context.Context) {
	for ctx.Err() == nil {
		st, err := w.gw.StreamActivatedJobs(ctx, &pb.StreamActivatedJobsRequest{Type: w.spec.JobType, Worker: "raw", Timeout: jobTimeout})
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		for {
			job, err := st.Recv()
			if err != nil {
				break
			}
			w.slots <- struct{}{}
			w.jobs <- job
		}
		if ctx.Err() == nil {
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// poll: one long poll at a time, asking for every free slot once a slot is
// free.
func (w *worker) poll(ctx context.Context) {
	for ctx.Err() == nil {
		w.slots <- struct{}{} // wait for one free slot, then ask for all free ones
		free := cap(w.slots) - len(w.slots) + 1
		<-w.slots
		st, err := w.gw.ActivateJobs(ctx, &pb.ActivateJobsRequest{Type: w.spec.JobType, Worker: "raw", Timeout: jobTimeout,
			MaxJobsToActivate: int32(free), RequestTimeout: 10_000})
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		for {
			resp, err := st.Recv()
			if err == io.EOF || err != nil {
				break
			}
			for _, job := range resp.GetJobs() {
				w.slots <- struct{}{}
				w.jobs <- job
			}
		}
	}
}
