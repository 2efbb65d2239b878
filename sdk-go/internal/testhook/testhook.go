// Package testhook connects the test kit (module sdk-go/jobwiretest) to the
// worker's own code: package jobwire fills these in at init. Not an API: it
// changes with the SDK, and the kit is released with the same version.
package testhook

import (
	"context"
	"time"

	"github.com/jobwire/jobwire/sdk-go/internal/pb"
)

// RunOptions are jobwire.WorkerOption values ([]jobwire.WorkerOption, typed
// any to avoid an import cycle) plus what only a test controls.
type RunOptions struct {
	WorkerOptions any           // []jobwire.WorkerOption
	CloseAfter    time.Duration // > 0: Worker.Close (deadline already passed) this long after the handler started
}

// Run runs handler (a jobwire.HandlerFunc) on job exactly as a worker runs a
// received job — the worker's handler adapter, executor, auto-extender and
// outcome send — with gw as the gateway. It returns when the job is settled,
// with the error the handler returned or panicked with (nil if none).
var Run func(ctx context.Context, handler any, job *pb.ActivatedJob, gw pb.GatewayClient, opts RunOptions) (cause error, err error)
