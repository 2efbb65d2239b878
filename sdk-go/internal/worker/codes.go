package worker

import (
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// How the worker classifies the status of an outcome call (CompleteJob,
// FailJob, ThrowError). This is the Go SDK's one copy of the table in
// docs/worker-semantics.md ("Sending outcomes"); the public typed errors are
// in errors.go.
//
// Retried with the shared backoff until the job's deadline — the gateway
// could not get the command to the partition leader, or lost its answer:
//   - UNAVAILABLE: no leader for the partition yet, leader mismatch, broker
//     unreachable, partition inactive, no topology (a leader change).
//   - RESOURCE_EXHAUSTED: backpressure, or the gateway's retries over the
//     partitions ran out.
//   - DEADLINE_EXCEEDED: the request timed out between gateway and broker, or
//     our own request deadline passed.
//   - ABORTED: the gateway's connection to the broker closed before the
//     answer came ("Connection ... was closed": the broker died or lost its
//     leadership mid-request). The command may or may not have been applied.
//
// Resending an outcome is safe in every case: an outcome names its job by
// key, so a resent outcome that was in fact applied finds no job and is
// answered NOT_FOUND (or FAILED_PRECONDITION), which is benign below. ABORTED
// is retried for outcomes only — a resent CreateProcessInstance would create a
// second instance.
var outcomeRetryable = map[codes.Code]bool{
	codes.Unavailable:       true,
	codes.ResourceExhausted: true,
	codes.DeadlineExceeded:  true,
	codes.Aborted:           true,
}

// outcomeBenign: the job is not (any longer) ours — it timed out, was
// cancelled, or an earlier attempt of this very outcome was applied.
var outcomeBenign = map[codes.Code]bool{
	codes.NotFound:           true,
	codes.FailedPrecondition: true,
}

// outcomeTooLarge: the gateway (or our own transport) refused the message for
// its size — RESOURCE_EXHAUSTED with grpc-go's "larger than max" or
// grpc-java's (Zeebe's gateway) "exceeds maximum size". It is refused the
// same way every time, so it is not retried like backpressure: the outcome is
// given up at once (undelivered, reported) and the job stays activated until
// its time-out.
func outcomeTooLarge(err error) bool {
	s := status.Convert(err)
	if s.Code() != codes.ResourceExhausted {
		return false
	}
	m := s.Message()
	return strings.Contains(m, "larger than max") || strings.Contains(m, "exceeds maximum size")
}
