// order-worker handles the jobs of examples/bpmn/order-fulfilment.bpmn with the
// jobwire Go SDK.
//
//	ZEEBE_ADDRESS=127.0.0.1:26500 go run .                         # all four job types
//	JOB_TYPES=payment,shipping go run .                            # only some
//
// Configuration comes from the environment: the SDK reads ZEEBE_ADDRESS,
// ZEEBE_CLIENT_ID, ... (see docs/configuration.md); this program reads
// JOB_TYPES, MAX_JOBS_ACTIVE and STATS_INTERVAL_MS (print a JSON stats line
// to stdout that often). SIGINT / SIGTERM close the workers gracefully.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jobwire/jobwire/sdk-go"
)

// declinedCard is the test card number that the payment handler declines.
const declinedCard = "4000000000000002"

// handlers maps each job type of order-fulfilment.bpmn to its handler:
// payment is typed (its input decoded into order, its variables fetched by
// the names of order's fields); the others read the raw job.
var handlers = map[string]jobwire.Handler{
	"payment":         jobwire.Handle(payment),
	"inventory":       jobwire.HandlerFunc(inventory),
	"shipping":        jobwire.HandlerFunc(shipping),
	"notify-customer": jobwire.HandlerFunc(notifyCustomer),
}

// order is the payment step's input. An order whose amount is not a number
// never reaches payment: the job fails with "jobwire: invalid input: amount:
// ...", retried by the default policy, then an incident naming the field.
type order struct {
	OrderID string  `json:"orderId"`
	Amount  float64 `json:"amount"`
	Card    string  `json:"card"`
}

// Validate runs before payment: an order needs its id.
func (o order) Validate() error {
	if o.OrderID == "" {
		return errors.New("orderId: missing")
	}
	return nil
}

// paymentResult completes the payment job.
type paymentResult struct {
	Paid      bool   `json:"paid"`
	PaymentID string `json:"paymentId"`
}

func payment(ctx context.Context, job *jobwire.Job, o order) (paymentResult, error) {
	if o.Card == declinedCard {
		// A BPMN error: caught by the PaymentDeclined boundary event.
		return paymentResult{}, &jobwire.JobError{Code: "PAYMENT_DECLINED", Message: "card declined",
			Variables: map[string]any{"declineReason": "insufficient funds"}}
	}
	return paymentResult{Paid: true, PaymentID: "pay-" + o.OrderID}, nil
}

func inventory(ctx context.Context, job *jobwire.Job) (any, error) {
	return map[string]any{"reserved": true}, nil
}

func shipping(ctx context.Context, job *jobwire.Job) (any, error) {
	method := job.CustomHeaders()["method"] // task header: express | standard
	return map[string]any{"shippingMethod": method, "trackingNumber": fmt.Sprintf("TRK-%d", job.Key)}, nil
}

func notifyCustomer(ctx context.Context, job *jobwire.Job) (any, error) {
	template := job.CustomHeaders()["template"] // task header: order-confirmed | payment-declined
	return map[string]any{"notified": template}, nil
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("order-worker (go): ")
	types := strings.Split(envOr("JOB_TYPES", "payment,inventory,shipping,notify-customer"), ",")
	maxJobs, err := strconv.Atoi(envOr("MAX_JOBS_ACTIVE", "32"))
	if err != nil {
		log.Fatalf("MAX_JOBS_ACTIVE: %v", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	client, err := jobwire.NewClient(ctx) // ZEEBE_ADDRESS etc., else 127.0.0.1:26500
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	stats := newStats("go")
	ready := newReadiness(len(types), func() { log.Printf("ready: handling %s", strings.Join(types, ", ")) })
	workers, err := startWorkers(client, types, maxJobs, stats, ready)
	if err != nil {
		log.Fatal(err)
	}
	if ms, _ := strconv.Atoi(os.Getenv("STATS_INTERVAL_MS")); ms > 0 {
		go stats.printEvery(ctx, time.Duration(ms)*time.Millisecond)
	}

	<-ctx.Done() // SIGINT or SIGTERM
	log.Printf("shutting down")
	closeCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, w := range workers {
		if err := w.Close(closeCtx); err != nil {
			log.Printf("close: %v", err)
		}
	}
	stats.print(true)
}

// startWorkers registers one worker per job type on a mux and starts them
// all on client (main_test.go runs the same workers against the test kit's
// engine).
func startWorkers(client *jobwire.Client, types []string, maxJobs int, stats *stats, ready *readiness) ([]*jobwire.Worker, error) {
	mux := jobwire.NewMux(jobwire.WithMaxJobsActive(maxJobs))
	for _, t := range types {
		t = strings.TrimSpace(t)
		h, ok := handlers[t]
		if !ok {
			return nil, fmt.Errorf("JOB_TYPES: unknown job type %q", t)
		}
		mux.Register(t, h,
			jobwire.WithMiddleware(stats.middleware(t)),
			jobwire.WithStateListener(ready.listener()),
			jobwire.WithErrorListener(func(err error) { log.Printf("%s: %v", t, err) }))
	}
	return client.Start(mux) // all or nothing
}

func envOr(name, def string) string {
	if v := strings.TrimSpace(os.Getenv(name)); v != "" {
		return v
	}
	return def
}
