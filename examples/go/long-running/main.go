// long-running shows autoExtend: the handler works longer than the job
// timeout, and the worker keeps extending the job's deadline (UpdateJobTimeout)
// so the engine never hands the job to another worker. The program deploys a
// one-task process, runs two workers (as two replicas would), starts an
// instance, waits for its result and exits.
//
//	ZEEBE_ADDRESS=127.0.0.1:26500 go run .          # JOB_TIMEOUT=2s WORK_DURATION=5s by default
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jobwire/jobwire/sdk-go"
)

const process = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"
                  id="Definitions_Report" targetNamespace="http://jobwire.dev/examples">
  <bpmn:process id="monthly-report" isExecutable="true">
    <bpmn:startEvent id="Start" />
    <bpmn:sequenceFlow id="f1" sourceRef="Start" targetRef="Generate" />
    <bpmn:serviceTask id="Generate" name="Generate the report">
      <bpmn:extensionElements><zeebe:taskDefinition type="generate-report" retries="1" /></bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="Generate" targetRef="End" />
    <bpmn:endEvent id="End" />
  </bpmn:process>
</bpmn:definitions>`

func main() {
	log.SetFlags(0)
	log.SetPrefix("long-running (go): ")
	jobTimeout := durationEnv("JOB_TIMEOUT", 2*time.Second)
	work := durationEnv("WORK_DURATION", 5*time.Second)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	client, err := jobwire.NewClient(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	if _, err := client.DeployResource(ctx, "monthly-report.bpmn", []byte(process)); err != nil {
		log.Fatal(err)
	}

	// Two workers, as if two replicas of your service were running: without
	// autoExtend the job would time out and the other replica would run it again.
	var runs atomic.Int32
	for _, name := range []string{"replica-1", "replica-2"} {
		w, err := client.NewWorker("generate-report", func(ctx context.Context, job *jobwire.Job) (any, error) {
			runs.Add(1)
			log.Printf("%s got job %d: working for %s (job timeout %s)", name, job.Key, work, jobTimeout)
			select {
			case <-time.After(work): // the long work; a real handler also watches ctx
			case <-ctx.Done(): // the worker is closing and its close timeout ran out
				return nil, ctx.Err()
			}
			return map[string]any{"report": "ready", "by": name}, nil
		},
			jobwire.WithWorkerName(name),
			jobwire.WithJobTimeout(jobTimeout),
			jobwire.WithAutoExtend(true), // extend the deadline while the handler runs
		)
		if err != nil {
			log.Fatal(err)
		}
		defer w.Close(context.Background())
	}

	start := time.Now()
	res, err := client.CreateProcessInstanceWithResult(ctx, jobwire.CreateInstance{BPMNProcessID: "monthly-report"}, work+30*time.Second)
	if err != nil {
		log.Fatal(err)
	}
	took := time.Since(start)
	fmt.Printf("instance %d completed after %.1fs (job timeout %s): the handler ran %d time(s), variables %s\n",
		res.ProcessInstanceKey, took.Seconds(), jobTimeout, runs.Load(), res.Variables)
	if runs.Load() != 1 {
		log.Fatalf("the job was handled %d times: the deadline was not extended", runs.Load())
	}
}

func durationEnv(name string, def time.Duration) time.Duration {
	if v := os.Getenv(name); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			log.Fatalf("%s: %v", name, err)
		}
		return d
	}
	return def
}
