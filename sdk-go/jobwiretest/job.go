package jobwiretest

import (
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jobwire/jobwire/sdk-go/internal/pb"
)

// Job is a job to hand to RunHandler, built by NewJob. The handler receives
// a *jobwire.Job made from it by the worker's own constructor, as for a job
// the engine activated.
type Job struct {
	raw     *pb.ActivatedJob
	err     error
	hasTime bool
}

// JobOption configures NewJob.
type JobOption func(*Job)

var nextKey atomic.Int64

// NewJob builds a job. Defaults: job type "test", element "task", 3 retries,
// no variables and no custom headers, a fresh key, the deadline the job
// timeout gives from the moment RunHandler starts it (WithDeadline sets one).
func NewJob(opts ...JobOption) *Job {
	k := nextKey.Add(1)
	j := &Job{raw: &pb.ActivatedJob{Key: 2251799813685248 + k, Type: "test", ProcessInstanceKey: 2251799813680000 + k,
		BpmnProcessId: "test-process", ProcessDefinitionVersion: 1, ProcessDefinitionKey: 2251799813600001,
		ElementId: "task", ElementInstanceKey: 2251799813690000 + k, CustomHeaders: "{}", Worker: "jobwiretest",
		Retries: 3, Variables: "{}", TenantId: "<default>"}}
	for _, o := range opts {
		o(j)
	}
	return j
}

// WithVariables sets the job's variables: a map, a struct or JSON
// (json.RawMessage, []byte or string) holding an object.
func WithVariables(v any) JobOption {
	return func(j *Job) {
		var b []byte
		switch x := v.(type) {
		case json.RawMessage:
			b = x
		case []byte:
			b = x
		case string:
			b = []byte(x)
		default:
			var err error
			if b, err = json.Marshal(v); err != nil {
				j.err = fmt.Errorf("jobwiretest: WithVariables: %w", err)
				return
			}
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil || m == nil {
			j.err = fmt.Errorf("jobwiretest: WithVariables: not a JSON object: %.80q", b)
			return
		}
		j.raw.Variables = string(b)
	}
}

// WithHeaders sets the task's custom headers (zeebe:taskHeaders).
func WithHeaders(h map[string]string) JobOption {
	return func(j *Job) {
		b, _ := json.Marshal(h) // a map of strings always marshals
		j.raw.CustomHeaders = string(b)
	}
}

// WithRetries sets the retries left. Default: 3.
func WithRetries(n int32) JobOption { return func(j *Job) { j.raw.Retries = n } }

// WithDeadline sets the activation deadline. Default: the job timeout from
// the moment RunHandler starts the job. A deadline already passed makes the
// worker drop the job without running the handler, as a worker does.
func WithDeadline(t time.Time) JobOption {
	return func(j *Job) { j.raw.Deadline, j.hasTime = t.UnixMilli(), true }
}

// WithJobType sets the job type. Default: "test".
func WithJobType(jobType string) JobOption { return func(j *Job) { j.raw.Type = jobType } }

// WithKey sets the job key. Default: a fresh key.
func WithKey(key int64) JobOption { return func(j *Job) { j.raw.Key = key } }

// WithProcessInstanceKey sets the process instance key. Default: a fresh key.
func WithProcessInstanceKey(key int64) JobOption {
	return func(j *Job) { j.raw.ProcessInstanceKey = key }
}

// WithElementID sets the BPMN element id of the task. Default: "task".
func WithElementID(id string) JobOption { return func(j *Job) { j.raw.ElementId = id } }

// WithBPMNProcessID sets the process id. Default: "test-process".
func WithBPMNProcessID(id string) JobOption { return func(j *Job) { j.raw.BpmnProcessId = id } }

// WithTenantID sets the tenant. Default: "<default>".
func WithTenantID(id string) JobOption { return func(j *Job) { j.raw.TenantId = id } }

// Key is the job's key.
func (j *Job) Key() int64 { return j.raw.GetKey() }
