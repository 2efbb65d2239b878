package jobwire

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// RetryPolicy decides what an automatic failure does: a handler (or
// middleware) that returned an error other than a *JobError, panicked, or
// received input that does not decode (*InvalidInputError). It does not see
// BPMN errors (a *JobError is thrown as before) nor outcomes a handler sends
// itself (job.Fail in manual mode).
//
// A policy that panics or returns the zero RetryDecision falls back to
// DefaultRetryPolicy's decision (logged at warn).
//
//	policy := func(job *jobwire.Job, err error) jobwire.RetryDecision {
//		var bad *jobwire.InvalidInputError
//		if errors.As(err, &bad) {
//			return jobwire.RaiseIncident(err.Error()) // no retries for bad input
//		}
//		return jobwire.DefaultRetryPolicy(job, err)
//	}
type RetryPolicy func(job *Job, err error) RetryDecision

// RetryDecision is what a RetryPolicy decided: build it with RetryAfter,
// RaiseBPMNError or RaiseIncident. The zero value is no decision.
type RetryDecision struct {
	kind      decisionKind
	backoff   time.Duration
	code      string
	message   string
	variables any
}

type decisionKind int

const (
	decisionNone decisionKind = iota
	decisionRetry
	decisionBPMNError
	decisionIncident
)

// String describes the decision: "retry after 2s", "incident: <message>",
// "BPMN error <code>: <message>", or "no decision".
func (d RetryDecision) String() string {
	switch d.kind {
	case decisionRetry:
		return "retry after " + d.backoff.String()
	case decisionIncident:
		return "incident: " + d.message
	case decisionBPMNError:
		return "BPMN error " + d.code + ": " + d.message
	}
	return "no decision"
}

// RetryAfter fails the job with retries − 1 and the error's message; the
// engine makes it activatable again after backoff (when retries are left;
// retries 0 opens an incident).
func RetryAfter(backoff time.Duration) RetryDecision {
	if backoff < 0 {
		backoff = 0
	}
	return RetryDecision{kind: decisionRetry, backoff: backoff}
}

// RaiseBPMNError throws a BPMN error with code (ThrowError), caught by a
// matching error boundary event; variables (optional, nil for none) are set on
// the catching scope.
func RaiseBPMNError(code, message string, variables any) RetryDecision {
	return RetryDecision{kind: decisionBPMNError, code: code, message: message, variables: variables}
}

// RaiseIncident fails the job with retries 0 and message: the engine opens an
// incident at once.
func RaiseIncident(message string) RetryDecision {
	return RetryDecision{kind: decisionIncident, message: message}
}

// ExponentialBackoffOptions configures ExponentialBackoff. Zero fields take
// the defaults; a negative Jitter turns jitter off, a negative MaxRetries
// means 0.
type ExponentialBackoffOptions struct {
	Initial    time.Duration // the first back-off; default 1 s
	Max        time.Duration // the cap before jitter; default 60 s
	Multiplier float64       // growth per attempt; default 2
	Jitter     float64       // ± fraction, uniform; default 0.1
	MaxRetries int           // the retries a job starts with (BPMN default 3); default 3
}

// Defaults of ExponentialBackoff (the same in every jobwire SDK).
var defaultBackoffOptions = ExponentialBackoffOptions{Initial: time.Second, Max: time.Minute, Multiplier: 2, Jitter: 0.1, MaxRetries: 3}

// jitterRand returns a uniform value in [0, 1); replaced in tests.
var jitterRand = rand.Float64

// ExponentialBackoff returns a policy that retries with an exponential
// back-off computed from the job's remaining retries:
//
//	attempt = max(0, MaxRetries − job.Retries)
//	backoff = min(Max, Initial × Multiplier^attempt) × (1 + Jitter × u), u uniform in [−1, 1]
//
// rounded to whole milliseconds. With the defaults and a job that started with
// 3 retries the back-offs are about 1 s, 2 s and 4 s. An error that is (or
// wraps) a *NonRetryableError raises an incident at once instead.
func ExponentialBackoff(o ExponentialBackoffOptions) RetryPolicy {
	d := defaultBackoffOptions
	if o.Initial > 0 {
		d.Initial = o.Initial
	}
	if o.Max > 0 {
		d.Max = o.Max
	}
	if o.Multiplier > 0 {
		d.Multiplier = o.Multiplier
	}
	switch {
	case o.Jitter > 0:
		d.Jitter = o.Jitter
	case o.Jitter < 0:
		d.Jitter = 0
	}
	switch {
	case o.MaxRetries > 0:
		d.MaxRetries = o.MaxRetries
	case o.MaxRetries < 0:
		d.MaxRetries = 0
	}
	return func(job *Job, err error) RetryDecision {
		if isNonRetryable(err) {
			return RaiseIncident(err.Error())
		}
		return RetryAfter(d.backoff(job.Retries))
	}
}

// backoff is the exponential back-off for a job with retries left.
func (o ExponentialBackoffOptions) backoff(retries int32) time.Duration {
	attempt := max(0, o.MaxRetries-int(retries))
	b := float64(o.Initial) * math.Pow(o.Multiplier, float64(attempt))
	if b > float64(o.Max) || math.IsInf(b, 0) || math.IsNaN(b) {
		b = float64(o.Max)
	}
	b *= 1 + o.Jitter*(2*jitterRand()-1)
	return time.Duration(math.Round(b/float64(time.Millisecond))) * time.Millisecond
}

// DefaultRetryPolicy is the policy of a worker with neither WithRetryPolicy nor
// WithRetryBackOff: ExponentialBackoff with the defaults (1 s initial, ×2, 60 s
// max, ±10 % jitter, 3 retries), and a *NonRetryableError raises an incident.
var DefaultRetryPolicy RetryPolicy = ExponentialBackoff(ExponentialBackoffOptions{})

// fixedBackoff is the policy of a worker with WithRetryBackOff(d).
func fixedBackoff(d time.Duration) RetryPolicy {
	return func(job *Job, err error) RetryDecision {
		if isNonRetryable(err) {
			return RaiseIncident(err.Error())
		}
		return RetryAfter(d)
	}
}

// NonRetryableError marks a failure that retrying cannot fix: the built-in
// policies raise an incident at once (FailJob with retries 0). Create it with
// NonRetryable; errors.As finds it anywhere in the chain.
type NonRetryableError struct {
	Err error
}

// Error returns the wrapped error's message.
func (e *NonRetryableError) Error() string {
	if e.Err == nil {
		return "jobwire: non-retryable error"
	}
	return e.Err.Error()
}

// Unwrap returns the wrapped error.
func (e *NonRetryableError) Unwrap() error { return e.Err }

// NonRetryable wraps err so that the job goes to an incident at once instead
// of being retried (nil stays nil).
//
//	if errors.Is(err, errAccountClosed) {
//		return nil, jobwire.NonRetryable(err)
//	}
func NonRetryable(err error) error {
	if err == nil {
		return nil
	}
	return &NonRetryableError{Err: err}
}

func isNonRetryable(err error) bool {
	var nr *NonRetryableError
	return errors.As(err, &nr)
}

// WithRetryPolicy sets the policy for automatic failures. It takes precedence
// over WithRetryBackOff. Default: DefaultRetryPolicy.
func WithRetryPolicy(p RetryPolicy) WorkerOption {
	return func(c *workerConfig) { c.retryPolicy = p }
}

// decide runs the worker's policy for err, falling back to the default
// policy's decision when it panics or decides nothing.
func (w *Worker) decide(job *Job, err error) (d RetryDecision) {
	policy := w.cfg.policy()
	func() {
		defer func() {
			if r := recover(); r != nil {
				w.logger().Warn("retry policy panicked; using the default policy", "key", job.Key, "panic", fmt.Sprint(r))
				d = DefaultRetryPolicy(job, err)
			}
		}()
		d = policy(job, err)
	}()
	if d.kind == decisionNone {
		w.logger().Warn("retry policy returned no decision; using the default policy", "key", job.Key)
		d = DefaultRetryPolicy(job, err)
	}
	return d
}

// policy resolves the precedence: WithRetryPolicy > WithRetryBackOff > default.
func (c *workerConfig) policy() RetryPolicy {
	switch {
	case c.retryPolicy != nil:
		return c.retryPolicy
	case c.retryBackOffSet:
		return fixedBackoff(c.RetryBackOff)
	default:
		return DefaultRetryPolicy
	}
}
