package main

// Handler tests: each handler runs through the worker's own execution path
// (jobwiretest.RunHandler), no engine. `go test ./...`

import (
	"context"
	"strings"
	"testing"

	"github.com/jobwire/jobwire/sdk-go/jobwiretest"
)

func TestPaymentCompletesWithAPaymentID(t *testing.T) {
	job := jobwiretest.NewJob(jobwiretest.WithJobType("payment"),
		jobwiretest.WithVariables(map[string]any{"orderId": "A-1", "amount": 42.5, "card": "4242424242424242"}))
	res, err := jobwiretest.RunHandler(context.Background(), handlers["payment"].HandleJob, job)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != jobwiretest.OutcomeCompleted {
		t.Fatalf("outcome %s (%v)", res.Outcome, res.Err)
	}
	if len(res.Variables) != 2 || res.Variables["paid"] != true || res.Variables["paymentId"] != "pay-A-1" {
		t.Fatalf("variables %v", res.Variables)
	}
}

func TestDeclinedCardThrowsPaymentDeclined(t *testing.T) {
	job := jobwiretest.NewJob(jobwiretest.WithJobType("payment"),
		jobwiretest.WithVariables(map[string]any{"orderId": "A-2", "amount": 20, "card": declinedCard}))
	res, err := jobwiretest.RunHandler(context.Background(), handlers["payment"].HandleJob, job)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != jobwiretest.OutcomeBPMNError || res.ErrorCode != "PAYMENT_DECLINED" || res.ErrorMessage != "card declined" {
		t.Fatalf("got %s %q %q", res.Outcome, res.ErrorCode, res.ErrorMessage)
	}
	if len(res.Variables) != 1 || res.Variables["declineReason"] != "insufficient funds" {
		t.Fatalf("variables %v", res.Variables)
	}
}

// An order that does not match the input type (the amount is not a number)
// never reaches the handler: the job fails with the field named, one retry
// less, and the engine retries it after the default back-off.
func TestPaymentOfAnUnreadableOrderFails(t *testing.T) {
	job := jobwiretest.NewJob(jobwiretest.WithJobType("payment"), jobwiretest.WithRetries(3),
		jobwiretest.WithVariables(map[string]any{"orderId": "A-3", "amount": "a lot", "card": "4242424242424242"}))
	res, err := jobwiretest.RunHandler(context.Background(), handlers["payment"].HandleJob, job)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != jobwiretest.OutcomeFailed || res.Retries != 2 ||
		res.ErrorMessage != "jobwire: invalid input: amount: expected number, got string" {
		t.Fatalf("got %s, retries %d, %q", res.Outcome, res.Retries, res.ErrorMessage)
	}
}

func TestShippingAndNotifyReadTheirTaskHeaders(t *testing.T) {
	ship, err := jobwiretest.RunHandler(context.Background(), shipping, jobwiretest.NewJob(
		jobwiretest.WithJobType("shipping"), jobwiretest.WithKey(42), jobwiretest.WithHeaders(map[string]string{"method": "express"})))
	if err != nil {
		t.Fatal(err)
	}
	if ship.Outcome != jobwiretest.OutcomeCompleted || ship.Variables["shippingMethod"] != "express" || ship.Variables["trackingNumber"] != "TRK-42" {
		t.Fatalf("shipping: %s %v", ship.Outcome, ship.Variables)
	}
	notify, err := jobwiretest.RunHandler(context.Background(), notifyCustomer, jobwiretest.NewJob(
		jobwiretest.WithJobType("notify-customer"), jobwiretest.WithHeaders(map[string]string{"template": "order-confirmed"})))
	if err != nil {
		t.Fatal(err)
	}
	if notify.Outcome != jobwiretest.OutcomeCompleted || len(notify.Variables) != 1 || notify.Variables["notified"] != "order-confirmed" {
		t.Fatalf("notify-customer: %s %v", notify.Outcome, notify.Variables)
	}
}

func TestAnUnknownJobTypeIsRejected(t *testing.T) {
	// The job type is checked before any worker opens, so no client is needed.
	_, err := startWorkers(nil, []string{"refund"}, 1, newStats("go"), newReadiness(1, func() {}))
	if err == nil || !strings.Contains(err.Error(), `"refund"`) {
		t.Fatalf("err %v", err)
	}
}
