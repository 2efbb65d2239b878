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

// The worker of the README (compiled, not run): a typed handler on a Mux.
func Example() {
	type Charge struct {
		Amount   int64  `json:"amount"`
		Currency string `json:"currency"`
	}
	type Charged struct {
		Charged int64 `json:"charged"`
	}
	mux := jobwire.NewMux()
	mux.Register("charge-card", jobwire.Handle(func(ctx context.Context, job *jobwire.Job, in Charge) (Charged, error) {
		return Charged{Charged: in.Amount}, nil // CompleteJob with {"charged": ...}
	}))

	ctx := context.Background()
	client, err := jobwire.NewClient(ctx) // ZEEBE_ADDRESS etc., else 127.0.0.1:26500
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	workers, err := client.Start(mux)
	if err != nil {
		log.Fatal(err)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	<-sig
	stop, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for _, w := range workers {
		_ = w.Close(stop)
	}
}

// The back-offs of an exponential policy for a job that started with 3
// retries (jitter off to show the exact values).
func ExampleExponentialBackoff() {
	policy := jobwire.ExponentialBackoff(jobwire.ExponentialBackoffOptions{
		Initial: 300 * time.Millisecond, Multiplier: 2, Jitter: -1, MaxRetries: 3})
	for _, retries := range []int32{3, 2, 1} {
		d := policy(&jobwire.Job{Retries: retries}, errors.New("downstream down"))
		fmt.Printf("retries %d: %s\n", retries, d)
	}
	fmt.Println(policy(&jobwire.Job{Retries: 3}, jobwire.NonRetryable(errors.New("account closed"))))
	// Output:
	// retries 3: retry after 300ms
	// retries 2: retry after 600ms
	// retries 1: retry after 1.2s
	// incident: account closed
}

// A retry policy: bad input goes to an incident at once, everything else
// retries with the default exponential back-off.
func ExampleWithRetryPolicy() {
	policy := func(job *jobwire.Job, err error) jobwire.RetryDecision {
		var bad *jobwire.InvalidInputError
		if errors.As(err, &bad) {
			return jobwire.RaiseIncident(err.Error())
		}
		return jobwire.DefaultRetryPolicy(job, err)
	}
	mux := jobwire.NewMux(jobwire.WithRetryPolicy(policy))
	_ = mux
}

// Middleware that logs how long every job of the mux took.
func ExampleMux_Use() {
	timing := func(next jobwire.HandlerFunc) jobwire.HandlerFunc {
		return func(ctx context.Context, job *jobwire.Job) (any, error) {
			start := time.Now()
			out, err := next(ctx, job)
			log.Printf("%s %d took %s (err %v)", job.Type, job.Key, time.Since(start), err)
			return out, err
		}
	}
	mux := jobwire.NewMux()
	mux.Use(timing)
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
