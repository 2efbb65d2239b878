// Package jobwire is a job-worker client for Zeebe-compatible gateways
// (Camunda 8 gRPC protocol, and the jobwire reference engine).
//
// A worker in a few lines:
//
//	client, err := jobwire.NewClient(ctx) // ZEEBE_ADDRESS etc., else 127.0.0.1:26500
//	if err != nil {
//		log.Fatal(err)
//	}
//	defer client.Close()
//	w, err := client.NewWorker("charge-card", func(ctx context.Context, job *jobwire.Job) (any, error) {
//		var in struct{ Amount int64 `json:"amount"` }
//		if err := job.DecodeVariables(&in); err != nil {
//			return nil, err // fails the job: retries − 1
//		}
//		return map[string]any{"charged": in.Amount}, nil // completes the job
//	})
//	if err != nil {
//		log.Fatal(err)
//	}
//	defer w.Close(context.Background())
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
