package main

// Process tests: order-fulfilment.bpmn on the jobwire reference engine that
// jobwiretest runs inside the test binary, with this program's workers
// (startWorkers, as main starts them). `go test ./...`

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobwire/jobwire/sdk-go"
	"github.com/jobwire/jobwire/sdk-go/jobwiretest"
)

var bpmn = filepath.Join("..", "..", "bpmn", "order-fulfilment.bpmn")

var allTypes = []string{"payment", "inventory", "shipping", "notify-customer"}

func TestMain(m *testing.M) { jobwiretest.Main(m) }

// start deploys the process and runs the workers of types on client until
// the test ends.
func start(t *testing.T, eng *jobwiretest.Engine, client *jobwire.Client, types ...string) {
	t.Helper()
	if ids := eng.Deploy(bpmn); len(ids) != 1 || ids[0] != "order-fulfilment" {
		t.Fatalf("deployed %v", ids)
	}
	workers, err := startWorkers(client, types, 32, newStats("go"), newReadiness(len(types), func() {}))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, w := range workers {
			if err := w.Close(ctx); err != nil {
				t.Errorf("close: %v", err)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestAPaidOrderOver100ShipsExpress(t *testing.T) {
	eng := jobwiretest.Start(t)
	start(t, eng, eng.Client(), allTypes...)
	order := eng.CreateInstance("order-fulfilment", map[string]any{"orderId": "B-1", "amount": 150, "card": "4242424242424242"})
	vars := eng.AwaitCompleted(order)
	if vars["paymentId"] != "pay-B-1" || vars["reserved"] != true || vars["shippingMethod"] != "express" || vars["notified"] != "order-confirmed" {
		t.Fatalf("variables %v", vars)
	}
	if tn, _ := vars["trackingNumber"].(string); !strings.HasPrefix(tn, "TRK-") {
		t.Fatalf("trackingNumber %v", vars["trackingNumber"])
	}
}

// The workers on a client of their own, built like main builds it, on the
// engine's address.
func TestAnOrderUpTo100ShipsStandard(t *testing.T) {
	eng := jobwiretest.Start(t)
	client, err := jobwire.NewClient(context.Background(), jobwire.WithAddress(eng.Address()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	start(t, eng, client, allTypes...)
	order := eng.CreateInstance("order-fulfilment", map[string]any{"orderId": "B-2", "amount": 100, "card": "4242424242424242"})
	vars := eng.AwaitCompleted(order)
	if vars["paymentId"] != "pay-B-2" || vars["shippingMethod"] != "standard" || vars["notified"] != "order-confirmed" {
		t.Fatalf("variables %v", vars)
	}
}

func TestADeclinedCardTellsTheCustomer(t *testing.T) {
	eng := jobwiretest.Start(t)
	start(t, eng, eng.Client(), allTypes...)
	order := eng.CreateInstance("order-fulfilment", map[string]any{"orderId": "B-3", "amount": 20, "card": declinedCard})
	vars := eng.AwaitCompleted(order)
	if vars["notified"] != "payment-declined" {
		t.Fatalf("variables %v", vars)
	}
	for _, name := range []string{"paid", "reserved", "shippingMethod"} {
		if _, ok := vars[name]; ok {
			t.Fatalf("the declined order has %q: %v", name, vars)
		}
	}
}

// The payment service is not run here (as with JOB_TYPES=inventory,...): the
// test completes the payment job in its place.
func TestPaymentStoodInForByTheTest(t *testing.T) {
	eng := jobwiretest.Start(t)
	start(t, eng, eng.Client(), "inventory", "shipping", "notify-customer")
	order := eng.CreateInstance("order-fulfilment", map[string]any{"orderId": "B-4", "amount": 500, "card": declinedCard})
	deadline := time.Now().Add(10 * time.Second)
	for len(eng.Jobs("payment")) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no payment job")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := eng.CompleteJobs("payment", map[string]any{"paid": true, "paymentId": "pay-by-test"}); n != 1 {
		t.Fatalf("completed %d payment jobs", n)
	}
	vars := eng.AwaitCompleted(order)
	// The declined test card did not matter: the payment handler never ran.
	if vars["paymentId"] != "pay-by-test" || vars["shippingMethod"] != "express" || vars["notified"] != "order-confirmed" {
		t.Fatalf("variables %v", vars)
	}
}
