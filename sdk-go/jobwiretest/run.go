package jobwiretest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/jobwire/jobwire/sdk-go"
	"github.com/jobwire/jobwire/sdk-go/internal/pb"
	"github.com/jobwire/jobwire/sdk-go/internal/testhook"
	"github.com/jobwire/jobwire/sdk-go/internal/worker"
)

// Outcome is what the worker did with the job.
type Outcome string

// Outcomes (the same names in every jobwire test kit).
const (
	OutcomeCompleted Outcome = "completed" // CompleteJob
	OutcomeFailed    Outcome = "failed"    // FailJob (retries − 1 for errors and panics)
	OutcomeBPMNError Outcome = "bpmnError" // ThrowError
	OutcomeCancelled Outcome = "cancelled" // handed back on close: retries unchanged
)

// HandlerResult is what the worker sent for the job.
type HandlerResult struct {
	Outcome Outcome
	// Variables sent with the outcome (completed, bpmnError; failed when the
	// handler set some), decoded with numbers as json.Number; nil for none.
	Variables map[string]any
	// VariablesJSON is Variables as sent: a JSON object, or nil for none.
	VariablesJSON json.RawMessage
	// Retries sent with a failure (failed, cancelled).
	Retries int32
	// ErrorMessage sent with a failure or a BPMN error.
	ErrorMessage string
	// RetryBackOff sent with a failure.
	RetryBackOff time.Duration
	// ErrorCode of a BPMN error.
	ErrorCode string
	// Err is the error the handler returned (a *jobwire.JobError for a BPMN
	// error) or panicked with; nil if it returned none.
	Err error
	// Extensions are the job timeouts the worker (auto-extend) or the handler
	// (job.ExtendTimeout) sent with UpdateJobTimeout, in order.
	Extensions []time.Duration
}

// RunOption configures RunHandler.
type RunOption func(*runConfig)

type runConfig struct {
	worker      []jobwire.WorkerOption
	jobTimeout  time.Duration
	cancelAfter time.Duration
	timeout     time.Duration
}

// WithJobTimeout sets the worker's job timeout (jobwire.WithJobTimeout): it
// gives the job's deadline and the auto-extender's timeout. Default: 5 min.
func WithJobTimeout(d time.Duration) RunOption {
	return func(c *runConfig) { c.jobTimeout = d; c.worker = append(c.worker, jobwire.WithJobTimeout(d)) }
}

// WithAutoComplete is jobwire.WithAutoComplete: false leaves the outcome to
// job.Complete / Fail / ThrowError. Default: true.
func WithAutoComplete(on bool) RunOption {
	return func(c *runConfig) { c.worker = append(c.worker, jobwire.WithAutoComplete(on)) }
}

// WithAutoExtend is jobwire.WithAutoExtend. Default: false.
func WithAutoExtend(on bool) RunOption {
	return func(c *runConfig) { c.worker = append(c.worker, jobwire.WithAutoExtend(on)) }
}

// WithRetryBackOff is jobwire.WithRetryBackOff. Default: 0.
func WithRetryBackOff(d time.Duration) RunOption {
	return func(c *runConfig) { c.worker = append(c.worker, jobwire.WithRetryBackOff(d)) }
}

// WithCancelAfter closes the worker d after the handler started, as
// Worker.Close does once its deadline passed: the handler's ctx is
// cancelled and the job handed back (OutcomeCancelled, retries unchanged).
// Default: never.
func WithCancelAfter(d time.Duration) RunOption { return func(c *runConfig) { c.cancelAfter = d } }

// WithTimeout bounds RunHandler: a job still held then (a handler still
// running, a manual job not settled) makes RunHandler cancel it and return an
// error. Default: 10 s.
func WithTimeout(d time.Duration) RunOption { return func(c *runConfig) { c.timeout = d } }

// RunHandler runs handler on job exactly as a jobwire worker runs a job it
// received — the same handler adapter, executor, auto-extender and outcome
// mapping — with an in-process gateway that accepts every call, and returns
// what the worker sent. It returns an error when the job was not settled in
// time (WithTimeout) or ctx ended.
func RunHandler(ctx context.Context, handler jobwire.HandlerFunc, job *Job, opts ...RunOption) (*HandlerResult, error) {
	if job == nil {
		job = NewJob()
	}
	if job.err != nil {
		return nil, job.err
	}
	cfg := runConfig{jobTimeout: 5 * time.Minute, timeout: 10 * time.Second}
	for _, o := range opts {
		o(&cfg)
	}
	raw := proto.Clone(job.raw).(*pb.ActivatedJob)
	if !job.hasTime {
		raw.Deadline = time.Now().Add(cfg.jobTimeout).UnixMilli()
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	s := &sink{}
	cause, err := testhook.Run(ctx, handler, raw, s, testhook.RunOptions{WorkerOptions: cfg.worker, CloseAfter: cfg.cancelAfter})
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			return nil, fmt.Errorf("jobwiretest: job %d not settled within %s (handler still running, or manual job without an outcome)", raw.Key, cfg.timeout)
		}
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.res == nil {
		if time.UnixMilli(raw.Deadline).Before(time.Now()) {
			return nil, fmt.Errorf("jobwiretest: job %d: its deadline passed before it was settled (the worker drops such jobs)", raw.Key)
		}
		return nil, fmt.Errorf("jobwiretest: job %d: the worker sent no outcome", raw.Key)
	}
	res := *s.res
	res.Err = cause
	res.Extensions = append([]time.Duration(nil), s.ext...)
	return &res, nil
}

// sink is the in-process gateway: it accepts the worker's outcome and
// UpdateJobTimeout calls and records them. Any other call is a kit bug.
type sink struct {
	pb.GatewayClient
	mu  sync.Mutex
	res *HandlerResult
	ext []time.Duration
}

func (s *sink) record(r HandlerResult, vars string) error {
	if vars != "" {
		r.VariablesJSON = json.RawMessage(vars)
		dec := json.NewDecoder(bytes.NewReader(r.VariablesJSON))
		dec.UseNumber() // as job.Variables: integers beyond 2^53 stay exact
		if err := dec.Decode(&r.Variables); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.res = &r
	return nil
}

func (s *sink) CompleteJob(_ context.Context, r *pb.CompleteJobRequest, _ ...grpc.CallOption) (*pb.CompleteJobResponse, error) {
	return &pb.CompleteJobResponse{}, s.record(HandlerResult{Outcome: OutcomeCompleted}, r.GetVariables())
}

func (s *sink) FailJob(_ context.Context, r *pb.FailJobRequest, _ ...grpc.CallOption) (*pb.FailJobResponse, error) {
	o := OutcomeFailed
	if r.GetErrorMessage() == worker.MsgClosing {
		o = OutcomeCancelled
	}
	return &pb.FailJobResponse{}, s.record(HandlerResult{Outcome: o, Retries: r.GetRetries(), ErrorMessage: r.GetErrorMessage(),
		RetryBackOff: time.Duration(r.GetRetryBackOff()) * time.Millisecond}, r.GetVariables())
}

func (s *sink) ThrowError(_ context.Context, r *pb.ThrowErrorRequest, _ ...grpc.CallOption) (*pb.ThrowErrorResponse, error) {
	return &pb.ThrowErrorResponse{}, s.record(HandlerResult{Outcome: OutcomeBPMNError, ErrorCode: r.GetErrorCode(),
		ErrorMessage: r.GetErrorMessage()}, r.GetVariables())
}

func (s *sink) UpdateJobTimeout(_ context.Context, r *pb.UpdateJobTimeoutRequest, _ ...grpc.CallOption) (*pb.UpdateJobTimeoutResponse, error) {
	s.mu.Lock()
	s.ext = append(s.ext, time.Duration(r.GetTimeout())*time.Millisecond)
	s.mu.Unlock()
	return &pb.UpdateJobTimeoutResponse{}, nil
}
