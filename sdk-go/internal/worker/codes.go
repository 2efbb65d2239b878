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

// benignOutcomeCodes: the job is not (any longer) ours — it timed out, was
// cancelled, or an earlier attempt of this very outcome was applied.
var benignOutcomeCodes = map[codes.Code]bool{
	codes.NotFound:           true,
	codes.FailedPrecondition: true,
}

// outcomeDecision is what the worker does after a failed outcome call.
type outcomeDecision string

const (
	// outcomeRetry: resent with the shared backoff until the job's deadline.
	outcomeRetry outcomeDecision = "retry"
	// outcomeBenign: the job is no longer activated; counted not_found, not
	// reported, not resent.
	outcomeBenign outcomeDecision = "benign"
	// outcomeGiveUp: undelivered, reported, not resent.
	outcomeGiveUp outcomeDecision = "give_up"
)

// classifyOutcome is the one decision for a failed outcome call (code and
// message of its status; never called with codes.OK).
func classifyOutcome(code codes.Code, message string) outcomeDecision {
	switch {
	case benignOutcomeCodes[code]:
		return outcomeBenign
	case tooLarge(code, message):
		return outcomeGiveUp
	case outcomeRetryable[code]:
		return outcomeRetry
	}
	return outcomeGiveUp
}

// outcomeTooLarge: the gateway (or our own transport) refused the message for
// its size — RESOURCE_EXHAUSTED with grpc-go's "larger than max" or
// grpc-java's (Zeebe's gateway) "exceeds maximum size". It is refused the
// same way every time, so it is not retried like backpressure: the outcome is
// given up at once (undelivered, reported) and the job stays activated until
// its time-out.
func outcomeTooLarge(err error) bool {
	s := status.Convert(err)
	return tooLarge(s.Code(), s.Message())
}

func tooLarge(code codes.Code, m string) bool {
	return code == codes.ResourceExhausted &&
		(strings.Contains(m, "larger than max") || strings.Contains(m, "exceeds maximum size"))
}

// activationCall is the kind of activation call that failed.
type activationCall string

// activationDecision is what the worker does after a failed activation call.
type activationDecision string

const (
	callPoll   activationCall = "poll"   // ActivateJobs
	callStream activationCall = "stream" // StreamActivatedJobs

	// activationBackoff: wait the next step of the shared backoff, log a
	// warning, do not report to the application.
	activationBackoff activationDecision = "backoff"
	// activationMaxBackoffReport: report the error to the application and
	// wait the maximum backoff — a fixed configuration or a rotated
	// credential then recovers without a restart.
	activationMaxBackoffReport activationDecision = "max_backoff_report"
	// activationPollingOnly: the gateway has no job streaming; poll only,
	// never reopen the stream.
	activationPollingOnly activationDecision = "polling_only"
)

// classifyActivation is the one decision for a failed ActivateJobs (poll) or
// StreamActivatedJobs (stream) — docs/worker-semantics.md, "Backoff".
func classifyActivation(call activationCall, code codes.Code) activationDecision {
	switch code {
	case codes.InvalidArgument, codes.PermissionDenied, codes.Unauthenticated:
		return activationMaxBackoffReport
	case codes.Unimplemented:
		if call == callStream {
			return activationPollingOnly
		}
	}
	return activationBackoff
}
