package jobwire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/jobwire/jobwire/sdk-go/internal/pb"
	"github.com/jobwire/jobwire/sdk-go/internal/worker"
)

// Job is an activated job handed to a handler (or returned by ActivateJobs).
type Job struct {
	Key                      int64
	Type                     string
	ProcessInstanceKey       int64
	BPMNProcessID            string
	ProcessDefinitionVersion int32
	ProcessDefinitionKey     int64
	ElementID                string
	ElementInstanceKey       int64
	Worker                   string
	Retries                  int32
	Deadline                 time.Time // when the activation lapses (moved by ExtendTimeout)
	TenantID                 string
	Tags                     []string
	Activation               string // "push" (job stream) or "poll" (ActivateJobs)

	raw    *pb.ActivatedJob
	d      *worker.HeldJob // nil for jobs from Client.ActivateJobs
	client *Client
}

func newJob(j *pb.ActivatedJob, activation string, d *worker.HeldJob, c *Client) *Job {
	return &Job{
		Key: j.GetKey(), Type: j.GetType(), ProcessInstanceKey: j.GetProcessInstanceKey(), BPMNProcessID: j.GetBpmnProcessId(),
		ProcessDefinitionVersion: j.GetProcessDefinitionVersion(), ProcessDefinitionKey: j.GetProcessDefinitionKey(),
		ElementID: j.GetElementId(), ElementInstanceKey: j.GetElementInstanceKey(), Worker: j.GetWorker(),
		Retries: j.GetRetries(), Deadline: time.UnixMilli(j.GetDeadline()), TenantID: j.GetTenantId(), Tags: j.GetTags(),
		Activation: activation, raw: j, d: d, client: c,
	}
}

// VariablesJSON returns the job's variables as received: a JSON object.
// Returning it from a handler completes the job with the same variables, losslessly.
func (j *Job) VariablesJSON() json.RawMessage {
	if j.raw.GetVariables() == "" {
		return json.RawMessage("{}")
	}
	return json.RawMessage(j.raw.GetVariables())
}

// DecodeVariables unmarshals the variables into v (a struct pointer or a map).
// Numbers decoded into `any` become json.Number, so integers beyond 2^53 stay exact.
//
//	var in struct{ OrderID int64 `json:"orderId"` }
//	if err := job.DecodeVariables(&in); err != nil { return nil, err }
func (j *Job) DecodeVariables(v any) error { return decodeJSON(j.VariablesJSON(), v) }

// Variables returns the variables as a map (numbers as json.Number).
func (j *Job) Variables() (map[string]any, error) {
	m := map[string]any{}
	err := j.DecodeVariables(&m)
	return m, err
}

// CustomHeaders returns the task's custom headers (zeebe:taskHeaders).
func (j *Job) CustomHeaders() map[string]string {
	h := map[string]string{}
	if s := j.raw.GetCustomHeaders(); s != "" {
		var m map[string]any
		if json.Unmarshal([]byte(s), &m) == nil {
			for k, v := range m {
				if str, ok := v.(string); ok {
					h[k] = str
				} else {
					b, _ := json.Marshal(v)
					h[k] = string(b)
				}
			}
		}
	}
	return h
}

// Complete completes the job with variables (nil = none). In a worker, the
// outcome is retried on transient errors until the job's deadline or until ctx
// ends. It returns nil only when the engine acknowledged the outcome; else the
// typed error: *NotFoundError (or *FailedPreconditionError) when the job timed
// out, was cancelled or completed elsewhere, ctx's error, or the gateway's.
// A second outcome for the same job returns ErrAlreadySettled and sends nothing.
func (j *Job) Complete(ctx context.Context, variables any) error {
	vars, err := marshalVariables(variables)
	if err != nil {
		return err
	}
	if j.d == nil {
		return j.client.CompleteJob(ctx, j.Key, json.RawMessage(vars))
	}
	return settleErr(j.d.Settle(ctx, worker.Outcome{Kind: worker.OutcomeComplete, Variables: vars}))
}

// FailOption configures a job failure.
type FailOption func(*failConfig)

type failConfig struct {
	retries    int32
	retriesSet bool
	backoff    time.Duration
	variables  any
}

// FailRetries sets the retries left after the failure. Default: job.Retries − 1.
func FailRetries(n int32) FailOption {
	return func(f *failConfig) { f.retries, f.retriesSet = n, true }
}

// FailRetryBackOff delays the next activation. Default: 0 (the worker's WithRetryBackOff in auto mode).
func FailRetryBackOff(d time.Duration) FailOption { return func(f *failConfig) { f.backoff = d } }

// FailVariables sets local variables on the task. Default: none.
func FailVariables(v any) FailOption { return func(f *failConfig) { f.variables = v } }

// Fail fails the job (retries − 1 unless FailRetries says otherwise).
func (j *Job) Fail(ctx context.Context, message string, opts ...FailOption) error {
	f := failConfig{retries: max(j.Retries-1, 0)}
	for _, o := range opts {
		o(&f)
	}
	vars, err := marshalVariables(f.variables)
	if err != nil {
		return err
	}
	if j.d == nil {
		return j.client.FailJob(ctx, j.Key, f.retries, message, FailRetryBackOff(f.backoff), FailVariables(json.RawMessage(vars)))
	}
	return settleErr(j.d.Settle(ctx, worker.Outcome{Kind: worker.OutcomeFail, Retries: f.retries, Message: message, RetryBackOff: f.backoff, Variables: vars}))
}

// ThrowError raises a BPMN error with code, caught by a matching error boundary event.
func (j *Job) ThrowError(ctx context.Context, code, message string, variables any) error {
	vars, err := marshalVariables(variables)
	if err != nil {
		return err
	}
	if j.d == nil {
		return j.client.ThrowError(ctx, j.Key, code, message, json.RawMessage(vars))
	}
	return settleErr(j.d.Settle(ctx, worker.Outcome{Kind: worker.OutcomeError, ErrorCode: code, Message: message, Variables: vars}))
}

// ExtendTimeout sets the job's activation timeout to d from now (a heartbeat
// for long work; WithAutoExtend does it automatically).
func (j *Job) ExtendTimeout(ctx context.Context, d time.Duration) error {
	if j.d == nil {
		if err := j.client.UpdateJobTimeout(ctx, j.Key, d); err != nil {
			return err
		}
		j.Deadline = time.Now().Add(d)
		return nil
	}
	if err := j.d.ExtendTimeout(ctx, d); err != nil {
		return wrapError("UpdateJobTimeout", err)
	}
	j.Deadline = j.d.Deadline()
	return nil
}

func settleErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, worker.ErrAlreadySettled):
		return ErrAlreadySettled
	default:
		return wrapError("outcome", err)
	}
}

// JobError is a BPMN error: return it (or wrap it) from a handler to throw it,
// to be caught by an error boundary event with the same Code.
//
//	return nil, &jobwire.JobError{Code: "OUT_OF_STOCK", Message: "item 42 is sold out"}
type JobError struct {
	Code      string
	Message   string
	Variables any // optional, set on the catching scope
}

// Error describes the BPMN error.
func (e *JobError) Error() string { return fmt.Sprintf("BPMN error %s: %s", e.Code, e.Message) }

// marshalVariables turns handler/user variables into a JSON object string
// ("" for nil). Anything else than a JSON object is an ErrInvalidVariables.
func marshalVariables(v any) (string, error) {
	var b []byte
	switch x := v.(type) {
	case nil:
		return "", nil
	case json.RawMessage:
		if x == nil {
			return "", nil
		}
		b = x
	case []byte:
		b = x
	case string:
		b = []byte(x)
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			return "", fmt.Errorf("%w: %v", ErrInvalidVariables, err)
		}
	}
	t := bytes.TrimSpace(b)
	if len(t) == 0 || string(t) == "null" {
		return "", nil
	}
	if t[0] != '{' || !json.Valid(t) {
		return "", fmt.Errorf("%w: got %.80q", ErrInvalidVariables, t)
	}
	if len(t) > MaxVariablesBytes {
		return "", &variablesTooLargeError{len(t)}
	}
	return string(t), nil
}

func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("jobwire: decode variables: %w", err)
	}
	return nil
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }

func defaultWorkerName() string {
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "jobwire-go"
}
