package jobwire

import (
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Error is the base of every error returned for a failed gateway call.
// It carries the gRPC status code and wraps the original status error.
// Match the kind with errors.As on one of the typed errors below, or read the
// code with [Code]:
//
//	var bp *jobwire.BackpressureError
//	if errors.As(err, &bp) { /* the gateway is overloaded: retry later */ }
type Error struct {
	Code    codes.Code // gRPC status code
	Op      string     // the RPC, e.g. "CompleteJob"
	Message string     // the gateway's message
	Err     error      // the original gRPC status error
}

// Error formats the operation, the code and the gateway's message.
func (e *Error) Error() string {
	return fmt.Sprintf("jobwire: %s: %s: %s", e.Op, e.Code, e.Message)
}

// Unwrap returns the gRPC status error.
func (e *Error) Unwrap() error { return e.Err }

// GRPCStatus lets status.FromError/status.Code see through the wrapper.
func (e *Error) GRPCStatus() *status.Status { return status.New(e.Code, e.Message) }

// Retryable reports whether resending the command may help: UNAVAILABLE,
// RESOURCE_EXHAUSTED and DEADLINE_EXCEEDED (the same set in every jobwire
// SDK). ABORTED is not retryable here: the command may have been applied, and
// a resent CreateProcessInstance would create a second instance. (A worker's
// outcomes are resent after ABORTED too: an outcome names its job by key.)
// Every typed error below has this method.
func (e *Error) Retryable() bool { return retryableCodes[e.Code] }

// retryableCodes is the general retryable set of client commands.
var retryableCodes = map[codes.Code]bool{
	codes.Unavailable:       true,
	codes.ResourceExhausted: true,
	codes.DeadlineExceeded:  true,
}

// base lets the typed errors embed *Error without a field named Error (which
// would hide the Error method); its fields and methods are promoted as usual.
type base = Error

// The typed errors, one per gRPC status code (same names in every jobwire SDK).
// Each wraps an *Error, so errors.As works for both.
type (
	// BackpressureError: RESOURCE_EXHAUSTED, the gateway sheds load; retry with backoff.
	BackpressureError struct{ *base }
	// UnavailableError: UNAVAILABLE, the gateway or a partition cannot be reached.
	UnavailableError struct{ *base }
	// NotFoundError: NOT_FOUND, e.g. a job that timed out or a process that does not exist.
	NotFoundError struct{ *base }
	// InvalidArgumentError: INVALID_ARGUMENT, the request is malformed.
	InvalidArgumentError struct{ *base }
	// FailedPreconditionError: FAILED_PRECONDITION, e.g. a job in the wrong state.
	FailedPreconditionError struct{ *base }
	// AlreadyExistsError: ALREADY_EXISTS, e.g. a message id still alive.
	AlreadyExistsError struct{ *base }
	// DeadlineExceededError: DEADLINE_EXCEEDED.
	DeadlineExceededError struct{ *base }
	// RequestCancelledError: CANCELLED, the call was cancelled (by the caller or a close).
	RequestCancelledError struct{ *base }
	// UnauthenticatedError: UNAUTHENTICATED, missing or expired credentials.
	UnauthenticatedError struct{ *base }
	// PermissionDeniedError: PERMISSION_DENIED.
	PermissionDeniedError struct{ *base }
	// InternalError: INTERNAL, and every code without its own type (UNKNOWN,
	// ABORTED, OUT_OF_RANGE, DATA_LOSS).
	InternalError struct{ *base }
	// UnimplementedError: UNIMPLEMENTED, the gateway lacks this RPC.
	UnimplementedError struct{ *base }
)

// Unwrap returns the *[Error] that BackpressureError wraps, so errors.As finds both.
func (e *BackpressureError) Unwrap() error { return e.base }

// Unwrap returns the *[Error] that UnavailableError wraps, so errors.As finds both.
func (e *UnavailableError) Unwrap() error { return e.base }

// Unwrap returns the *[Error] that NotFoundError wraps, so errors.As finds both.
func (e *NotFoundError) Unwrap() error { return e.base }

// Unwrap returns the *[Error] that InvalidArgumentError wraps, so errors.As finds both.
func (e *InvalidArgumentError) Unwrap() error { return e.base }

// Unwrap returns the *[Error] that FailedPreconditionError wraps, so errors.As finds both.
func (e *FailedPreconditionError) Unwrap() error { return e.base }

// Unwrap returns the *[Error] that AlreadyExistsError wraps, so errors.As finds both.
func (e *AlreadyExistsError) Unwrap() error { return e.base }

// Unwrap returns the *[Error] that DeadlineExceededError wraps, so errors.As finds both.
func (e *DeadlineExceededError) Unwrap() error { return e.base }

// Unwrap returns the *[Error] that RequestCancelledError wraps, so errors.As finds both.
func (e *RequestCancelledError) Unwrap() error { return e.base }

// Unwrap returns the *[Error] that UnauthenticatedError wraps, so errors.As finds both.
func (e *UnauthenticatedError) Unwrap() error { return e.base }

// Unwrap returns the *[Error] that PermissionDeniedError wraps, so errors.As finds both.
func (e *PermissionDeniedError) Unwrap() error { return e.base }

// Unwrap returns the *[Error] that InternalError wraps, so errors.As finds both.
func (e *InternalError) Unwrap() error { return e.base }

// Unwrap returns the *[Error] that UnimplementedError wraps, so errors.As finds both.
func (e *UnimplementedError) Unwrap() error { return e.base }

// errorTable maps status codes to typed errors; errorFor is the one place that
// reads it.
var errorTable = map[codes.Code]func(*Error) error{
	codes.ResourceExhausted:  func(b *Error) error { return &BackpressureError{b} },
	codes.Unavailable:        func(b *Error) error { return &UnavailableError{b} },
	codes.NotFound:           func(b *Error) error { return &NotFoundError{b} },
	codes.InvalidArgument:    func(b *Error) error { return &InvalidArgumentError{b} },
	codes.FailedPrecondition: func(b *Error) error { return &FailedPreconditionError{b} },
	codes.AlreadyExists:      func(b *Error) error { return &AlreadyExistsError{b} },
	codes.DeadlineExceeded:   func(b *Error) error { return &DeadlineExceededError{b} },
	codes.Canceled:           func(b *Error) error { return &RequestCancelledError{b} },
	codes.Unauthenticated:    func(b *Error) error { return &UnauthenticatedError{b} },
	codes.PermissionDenied:   func(b *Error) error { return &PermissionDeniedError{b} },
	codes.Internal:           func(b *Error) error { return &InternalError{b} },
	codes.Unimplemented:      func(b *Error) error { return &UnimplementedError{b} },
}

// errorFor wraps base in the typed error for its code: a code without its own
// type (UNKNOWN, ABORTED, OUT_OF_RANGE, DATA_LOSS, ...) is an InternalError.
func errorFor(b *Error) error {
	if f, ok := errorTable[b.Code]; ok {
		return f(b)
	}
	return &InternalError{b}
}

// wrapError turns a gRPC error from op into the typed error for its code.
// nil stays nil; errors that already went through here are returned as is.
func wrapError(op string, err error) error {
	if err == nil {
		return nil
	}
	var done *Error
	if errors.As(err, &done) {
		return err
	}
	st, ok := status.FromError(err)
	if !ok {
		return fmt.Errorf("jobwire: %s: %w", op, err)
	}
	e := &Error{Code: st.Code(), Op: op, Message: st.Message(), Err: err}
	return errorFor(e)
}

// Code returns the gRPC status code of err (codes.OK for nil, codes.Unknown
// for errors that carry none).
func Code(err error) codes.Code {
	if err == nil {
		return codes.OK
	}
	var je *Error
	if errors.As(err, &je) {
		return je.Code
	}
	return status.Code(err)
}

// ErrAlreadySettled is returned by Job.Complete, Fail and ThrowError when an
// outcome was already sent for this job.
var ErrAlreadySettled = errors.New("jobwire: job outcome already sent")

// ErrCloseTimeout is returned by Worker.Close when handlers were still running
// at the deadline and were cancelled.
var ErrCloseTimeout = errors.New("jobwire: handlers still running at the close deadline were cancelled")

// ErrInvalidVariables wraps every error about variables that are not a JSON object.
var ErrInvalidVariables = errors.New("jobwire: variables must be a JSON object")

// MaxVariablesBytes is the largest variables document the SDK sends: a
// gateway accepts at most 4 MiB per gRPC message (Zeebe's default
// maxMessageSize), less 16 KiB for the rest of the request.
const MaxVariablesBytes = 4<<20 - 16<<10

// ErrVariablesTooLarge is returned (wrapped; errors.Is also matches
// ErrInvalidVariables) for variables over MaxVariablesBytes. Nothing is sent:
// a handler result that large fails the job with this message (retries - 1),
// so it ends in an incident that says why instead of an outcome the gateway
// refuses again and again.
var ErrVariablesTooLarge = errors.New("jobwire: variables too large")

type variablesTooLargeError struct{ n int }

func (e *variablesTooLargeError) Error() string {
	return fmt.Sprintf("jobwire: variables are %d bytes of JSON; the gateway accepts at most 4 MiB per message "+
		"(%d bytes of variables): store large payloads elsewhere and pass a reference", e.n, MaxVariablesBytes)
}

func (e *variablesTooLargeError) Is(target error) bool {
	return target == ErrVariablesTooLarge || target == ErrInvalidVariables
}
