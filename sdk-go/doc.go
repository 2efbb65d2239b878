// Package jobwire is a job-worker client for Zeebe-compatible gateways
// (Camunda 8 gRPC protocol, and the jobwire reference engine).
//
// A worker in a few lines: a typed handler registered on a Mux (no client
// needed), then started on a client:
//
//	type Charge struct {
//		Amount int64 `json:"amount"` // the worker fetches only "amount"
//	}
//	type Charged struct {
//		Charged int64 `json:"charged"`
//	}
//
//	mux := jobwire.NewMux()
//	mux.Register("charge-card", jobwire.Handle(func(ctx context.Context, job *jobwire.Job, in Charge) (Charged, error) {
//		return Charged{Charged: in.Amount}, nil // completes the job with {"charged": ...}
//	}))
//	client, err := jobwire.NewClient(ctx) // ZEEBE_ADDRESS etc., else 127.0.0.1:26500
//	if err != nil {
//		log.Fatal(err)
//	}
//	defer client.Close()
//	workers, err := client.Start(mux)
//	if err != nil {
//		log.Fatal(err)
//	}
//
// Input that does not decode into the handler's type fails the job
// (*InvalidInputError) without calling it. A handler error or panic goes to
// the worker's RetryPolicy (default: DefaultRetryPolicy, an exponential
// back-off from the job's remaining retries; NonRetryable errors raise an
// incident); middleware (Mux.Use, WithMiddleware) wraps every handler.
// Client.NewWorker is the low-level form for one worker with a raw job.
//
// A worker holds at most WithMaxJobsActive jobs (polled and pushed together),
// runs at most WithConcurrency handlers at once, receives jobs by push
// (StreamActivatedJobs) and long polling together, retries transient errors
// with an exponential backoff (50 ms → 5 s, ×1.6, ±10 % jitter), and closes
// gracefully (Worker.Close). Errors from gateway calls are typed by status code
// (BackpressureError, NotFoundError, ...; all wrap *Error).
//
// Telemetry uses the OpenTelemetry API only: a span "process job <type>" per
// job and the jobwire.worker.* metrics, recorded by the global providers
// unless WithTracerProvider / WithMeterProvider say otherwise.
package jobwire
