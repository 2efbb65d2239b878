// Command driver-official is the benchmark driver (../../../DRIVERS.md) for the
// official Zeebe Go client, github.com/camunda/zeebe/clients/go/v8 (the last
// version the Go module proxy serves here, with job streaming).
package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/camunda/zeebe/clients/go/v8/pkg/entities"
	"github.com/camunda/zeebe/clients/go/v8/pkg/worker"
	"github.com/camunda/zeebe/clients/go/v8/pkg/zbc"
	"github.com/jobwire/jobwire/bench/go/internal/drv"
)

const version = "8.5.0"

func main() {
	cfg := drv.Parse()
	c, err := zbc.NewClient(&zbc.ClientConfig{GatewayAddress: cfg.Address, UsePlaintextConnection: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	r := &drv.Recorder{}
	var workers []worker.JobWorker
	for _, s := range cfg.Workers {
		delay := time.Duration(s.DelayMs) * time.Millisecond
		h := func(jc worker.JobClient, job entities.Job) {
			r.Start(drv.T0([]byte(job.GetVariables())))
			if delay > 0 {
				time.Sleep(delay)
			}
			cmd, err := jc.NewCompleteJobCommand().JobKey(job.GetKey()).VariablesFromString("{}")
			if err == nil {
				_, err = cmd.Send(context.Background())
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "complete:", err)
				return
			}
			r.Done()
		}
		for i := 0; i < s.Count; i++ {
			b := c.NewJobWorker().JobType(s.JobType).Handler(h).MaxJobsActive(s.Capacity).
				Concurrency(s.Capacity).StreamEnabled(s.Mode == "push")
			if s.PollIntervalMs > 0 {
				b = b.PollInterval(time.Duration(s.PollIntervalMs) * time.Millisecond)
			}
			if s.Mode == "shortpoll" {
				b = b.RequestTimeout(-1)
			}
			workers = append(workers, b.Open())
		}
	}
	if in := cfg.Interop; in != nil {
		go drv.RunInterop(in, func(path string) error {
			_, err := c.NewDeployResourceCommand().AddResourceFile(path).Send(context.Background())
			return err
		}, func(pid string, i int) error {
			cmd, err := c.NewCreateInstanceCommand().BPMNProcessId(pid).LatestVersion().VariablesFromString(fmt.Sprintf(`{"n":%d}`, i))
			if err == nil {
				_, err = cmd.Send(context.Background())
			}
			return err
		})
	}
	drv.Run("go-official", version, r, func() {
		var wg sync.WaitGroup
		for _, w := range workers {
			wg.Add(1)
			go func(w worker.JobWorker) { defer wg.Done(); w.Close(); w.AwaitClose() }(w)
		}
		wg.Wait()
		_ = c.Close()
	})
}
