package jobwire_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"os/signal"
	"time"

	jobwire "github.com/jobwire/jobwire/sdk-go"
)

// The worker of the README (compiled, not run).
func Example() {
	ctx := context.Background()
	client, err := jobwire.NewClient(ctx) // ZEEBE_ADDRESS etc., else 127.0.0.1:26500
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	w, err := client.NewWorker("charge-card", func(ctx context.Context, job *jobwire.Job) (any, error) {
		var in struct {
			Amount int64 `json:"amount"`
		}
		if err := job.DecodeVariables(&in); err != nil {
			return nil, err // FailJob, retries − 1
		}
		return map[string]any{"charged": in.Amount}, nil // CompleteJob with these variables
	})
	if err != nil {
		log.Fatal(err)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	<-sig
	stop, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_ = w.Close(stop)
}

// A handler that throws a BPMN error, caught by an error boundary event.
func ExampleJobError() {
	handler := func(ctx context.Context, job *jobwire.Job) (any, error) {
		return nil, &jobwire.JobError{Code: "OUT_OF_STOCK", Message: "item 42 is sold out",
			Variables: map[string]any{"item": 42}}
	}
	_ = jobwire.HandlerFunc(handler)
}

// Manual mode: the handler settles the job itself.
func ExampleWithAutoComplete() {
	var client *jobwire.Client // from jobwire.NewClient
	_, _ = client.NewWorker("ship", func(ctx context.Context, job *jobwire.Job) (any, error) {
		if err := job.ExtendTimeout(ctx, 10*time.Minute); err != nil {
			return nil, err
		}
		return nil, job.Complete(ctx, map[string]any{"shipped": true})
	}, jobwire.WithAutoComplete(false))
}

// Matching a typed error from the gateway.
func ExampleBackpressureError() {
	var client *jobwire.Client // from jobwire.NewClient
	_, err := client.PublishMessage(context.Background(), jobwire.Message{Name: "paid", CorrelationKey: "order-1"})
	var bp *jobwire.BackpressureError
	if errors.As(err, &bp) {
		fmt.Println("gateway overloaded, retry later:", bp.Message)
	}
}
