// prometheus serves the worker's OpenTelemetry metrics to Prometheus: the SDK
// records its metrics (jobwire.worker.jobs.handled, ...) through the
// OpenTelemetry API; this program installs the OpenTelemetry metrics SDK with
// the Prometheus exporter, serves /metrics on 127.0.0.1 and runs workers for
// the four job types of examples/bpmn/order-fulfilment.bpmn. The
// OpenTelemetry SDK and the Prometheus client are this example's
// dependencies, not jobwire's.
//
//	ZEEBE_ADDRESS=127.0.0.1:26500 go run .
//	curl -s http://127.0.0.1:9464/metrics | grep jobwire_
//
// OTEL_EXPORTER_PROMETHEUS_PORT (default 9464; 0 = a free port) and
// OTEL_EXPORTER_PROMETHEUS_HOST (default 127.0.0.1) choose the address.
// BPMN (default ../../bpmn/order-fulfilment.bpmn) is deployed at start.
// SIGINT / SIGTERM close the workers gracefully.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/jobwire/jobwire/sdk-go"
)

// declinedCard is the test card number that the payment handler declines.
const declinedCard = "4000000000000002"

func main() {
	log.SetFlags(0)
	log.SetPrefix("prometheus (go): ")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// 1. The OpenTelemetry metrics SDK with the Prometheus exporter: a reader
	// that collects on every scrape, registered on its own registry.
	registry := prometheus.NewRegistry()
	exporter, err := otelprom.New(otelprom.WithRegisterer(registry))
	if err != nil {
		log.Fatal(err)
	}
	// The SDK advises bucket bounds in seconds for jobwire.worker.job.duration;
	// a view (sdkmetric.WithView) can override them.
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter))
	otel.SetMeterProvider(mp) // or: jobwire.NewClient(ctx, jobwire.WithMeterProvider(mp))

	// 2. /metrics on 127.0.0.1:9464 (Prometheus scrapes it).
	addr := net.JoinHostPort(envOr("OTEL_EXPORTER_PROMETHEUS_HOST", "127.0.0.1"), envOr("OTEL_EXPORTER_PROMETHEUS_PORT", "9464"))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(registry, promhttp.HandlerOpts{}))
	server := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := server.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Fatal(err)
		}
	}()

	// 3. A client and the order workers, as usual: they find the global provider.
	client, err := jobwire.NewClient(ctx) // ZEEBE_ADDRESS etc., else 127.0.0.1:26500
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	bpmn := envOr("BPMN", filepath.Join("..", "..", "bpmn", "order-fulfilment.bpmn"))
	content, err := os.ReadFile(bpmn)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := client.DeployResource(ctx, filepath.Base(bpmn), content); err != nil {
		log.Fatal(err)
	}
	workers := jobwire.NewMux()
	workers.Register("payment", jobwire.HandlerFunc(payment))
	workers.Register("inventory", jobwire.HandlerFunc(inventory))
	workers.Register("shipping", jobwire.HandlerFunc(shipping))
	workers.Register("notify-customer", jobwire.HandlerFunc(notifyCustomer))
	started, err := client.Start(workers)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("metrics on http://%s/metrics", ln.Addr())

	<-ctx.Done() // SIGINT or SIGTERM
	closeCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, w := range started {
		if err := w.Close(closeCtx); err != nil {
			log.Printf("close: %v", err)
		}
	}
	_ = server.Shutdown(closeCtx)
	_ = mp.Shutdown(closeCtx)
	log.Printf("stopped")
}

func payment(ctx context.Context, job *jobwire.Job) (any, error) {
	var order struct {
		OrderID string `json:"orderId"`
		Card    string `json:"card"`
	}
	if err := job.DecodeVariables(&order); err != nil {
		return nil, err
	}
	if order.Card == declinedCard {
		// counted as outcome="error": a BPMN error, caught by the boundary event
		return nil, &jobwire.JobError{Code: "PAYMENT_DECLINED", Message: "card declined"}
	}
	return map[string]any{"paid": true, "paymentId": "pay-" + order.OrderID}, nil
}

func inventory(ctx context.Context, job *jobwire.Job) (any, error) {
	return map[string]any{"reserved": true}, nil
}

func shipping(ctx context.Context, job *jobwire.Job) (any, error) {
	method := job.CustomHeaders()["method"] // task header: express | standard
	return map[string]any{"shippingMethod": method, "trackingNumber": fmt.Sprintf("TRK-%d", job.Key)}, nil
}

func notifyCustomer(ctx context.Context, job *jobwire.Job) (any, error) {
	return map[string]any{"notified": job.CustomHeaders()["template"]}, nil
}

func envOr(name, def string) string {
	if v := strings.TrimSpace(os.Getenv(name)); v != "" {
		return v
	}
	return def
}
