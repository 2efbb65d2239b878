package partition

import (
	"fmt"
	"slices"

	"github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"github.com/jobwire/jobwire/engine-reference/internal/vars"
)

// Observer is told about every committed batch (the engine's live view).
//
// Committed runs on the partition goroutine after the batch is durable and
// its replies, pushes and notifications are out. It must return at once:
// hand the batch to a bounded queue and drop (then resynchronise) when the
// queue is full. The batch and its views are not touched again by the
// partition, so the observer may keep them.
type Observer interface {
	Committed(b *CommittedBatch)
}

// Accepted is a command that was accepted in a batch, with its answer.
type Accepted struct {
	C    *Command
	Resp any
}

// CommittedBatch is what one committed batch changed.
type CommittedBatch struct {
	Partition int32 `json:"p"`
	// At is when the batch became durable (Unix nanoseconds, after fsync).
	At        int64          `json:"at"`
	Counts    BatchCounts    `json:"counts"`
	Jobs      []JobView      `json:"jobs,omitempty"`
	Instances []InstanceView `json:"instances,omitempty"`
	Resolved  []int64        `json:"resolved,omitempty"` // incidents resolved in the batch
	Commands  map[string]int `json:"commands,omitempty"` // accepted commands by op
}

// BatchCounts are the batch's contribution to the live counters.
type BatchCounts struct {
	Created       int            `json:"created,omitempty"`
	Completed     int            `json:"completed,omitempty"` // instances
	JobsCompleted map[string]int `json:"jobsCompleted,omitempty"`
	JobsFailed    map[string]int `json:"jobsFailed,omitempty"`
	PushActivated map[string]int `json:"push,omitempty"`
	PollActivated map[string]int `json:"poll,omitempty"`
	Yielded       map[string]int `json:"yield,omitempty"`
	TimedOut      map[string]int `json:"timeout,omitempty"`
}

// JobView is a job as of the batch's commit.
type JobView struct {
	Key          int64  `json:"key,string"`
	Instance     int64  `json:"instance,string"`
	Process      string `json:"process"`
	Element      string `json:"element"`
	Type         string `json:"type"`
	State        string `json:"state"`
	Worker       string `json:"worker,omitempty"`
	Retries      int32  `json:"retries"`
	Deadline     int64  `json:"deadline,omitempty"`
	RetryAt      int64  `json:"retryAt,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
	ErrorCode    string `json:"errorCode,omitempty"`
	Incident     int64  `json:"incident,string,omitempty"`
	Activations  int32  `json:"activations"`
	Yields       int32  `json:"yields"`
	Timeouts     int32  `json:"timeouts"`
	Fails        int32  `json:"fails"`
}

// IncidentView is an open incident.
type IncidentView struct {
	Key      int64  `json:"key,string"`
	Instance int64  `json:"instance,string"`
	Job      int64  `json:"job,string,omitempty"`
	Element  string `json:"element,omitempty"`
	Type     string `json:"type"`
	Message  string `json:"message"`
}

// InstanceView is a process instance as of the batch's commit, with its
// open incidents and the elements its tokens wait at.
type InstanceView struct {
	Key       int64          `json:"key,string"`
	Process   string         `json:"process"`
	Version   int32          `json:"version"`
	State     string         `json:"state"` // ACTIVE, COMPLETED, CANCELED, INCIDENT
	Active    []string       `json:"active,omitempty"`
	Incidents []IncidentView `json:"incidents,omitempty"`
	Variables string         `json:"variables,omitempty"` // JSON, cut at MaxViewVariables
}

// MaxViewVariables bounds the variables document carried in a view.
const MaxViewVariables = 2048

type touchSet struct {
	jobs  map[int64]struct{}
	insts map[int64]struct{}
	// Jobs and instances that finished in the batch have left the live
	// state for the history; the views still report their last state.
	done     map[int64]*Job
	doneInst map[int64]*Instance
}

func newTouchSet() *touchSet {
	return &touchSet{jobs: map[int64]struct{}{}, insts: map[int64]struct{}{}, done: map[int64]*Job{}, doneInst: map[int64]*Instance{}}
}

// job is a job touched by the batch, live or finished in it.
func (p *Partition) touchedJob(k int64) *Job {
	if j := p.st.Jobs[k]; j != nil {
		return j
	}
	return p.st.touched.done[k]
}

// instance is an instance touched by the batch, live or finished in it.
func (p *Partition) touchedInstance(k int64) *Instance {
	if in := p.st.Instances[k]; in != nil {
		return in
	}
	return p.st.touched.doneInst[k]
}

func (t *touchSet) job(j *Job) {
	t.jobs[j.Key] = struct{}{}
	t.insts[j.InstanceKey] = struct{}{}
}

func (t *touchSet) instance(k int64) { t.insts[k] = struct{}{} }

func bump(m *map[string]int, k string, n int) {
	if n == 0 {
		return
	}
	if *m == nil {
		*m = map[string]int{}
	}
	(*m)[k] += n
}

// observation builds the batch's views (only what it touched), or nil when
// there is nothing to tell. Runs on the partition goroutine; the committer
// hands the result to the observer once the batch is durable (At is set
// then).
func (p *Partition) observation(acc []Accepted) *CommittedBatch {
	t := p.st.touched
	defer func() {
		clear(t.jobs)
		clear(t.insts)
		clear(t.done)
		clear(t.doneInst)
	}()
	if len(acc) == 0 && len(t.jobs) == 0 && len(t.insts) == 0 {
		return nil
	}
	if w, ok := p.cfg.Observer.(interface{ Watching() bool }); ok && !w.Watching() {
		return nil // nobody is looking (a broker without live views)
	}
	b := &CommittedBatch{Partition: p.cfg.ID, Commands: map[string]int{}}
	for _, a := range acc {
		c := a.C
		b.Commands[c.Op]++
		switch c.Op {
		case OpCreate:
			b.Counts.Created++
			if r, ok := a.Resp.(*gatewaypb.CreateProcessInstanceResponse); ok {
				t.instance(r.ProcessInstanceKey)
			}
		case OpCancel, OpSetVariables:
			if e := p.st.Elems[c.Key]; e != nil {
				t.instance(e.InstanceKey)
			} else {
				t.instance(c.Key)
			}
		case OpResolve:
			b.Resolved = append(b.Resolved, c.Key)
		case OpActivate:
			bump(&b.Counts.PollActivated, c.Type, len(c.JobKeys))
		case OpComplete, OpFail, OpThrowError, OpUpdateRetries, OpUpdateTimeout, OpTimeOut, OpRecur, OpYield, OpReturn:
			if j := p.touchedJob(c.Key); j != nil {
				t.job(j)
				switch c.Op {
				case OpComplete:
					bump(&b.Counts.JobsCompleted, j.Type, 1)
				case OpFail:
					bump(&b.Counts.JobsFailed, j.Type, 1)
				case OpTimeOut:
					bump(&b.Counts.TimedOut, j.Type, 1)
				case OpYield:
					bump(&b.Counts.Yielded, j.Type, 1)
				}
			}
		}
		for _, ps := range c.Pushes {
			if j := p.touchedJob(ps.Key); j != nil {
				bump(&b.Counts.PushActivated, j.Type, 1)
			}
		}
		for _, k := range c.Yields {
			if j := p.touchedJob(k); j != nil {
				bump(&b.Counts.Yielded, j.Type, 1)
			}
		}
	}
	for k := range t.insts {
		in := p.touchedInstance(k)
		if in == nil {
			continue
		}
		if in.State == InstCompleted {
			b.Counts.Completed++ // an instance completes once, in the batch that touched it last
		}
		v := InstanceView{Key: in.Key, Process: in.BpmnProcessID, Version: in.Version, State: instanceState(in)}
		for _, e := range in.elems {
			if e.Element != nil {
				v.Active = append(v.Active, e.Element.ID)
			}
			if inc := p.st.Incidents[e.IncidentKey]; inc != nil {
				v.Incidents = append(v.Incidents, incidentView(inc, e))
			}
			if j := p.touchedJob(e.JobKey); j != nil {
				t.jobs[j.Key] = struct{}{}
				if inc := p.st.Incidents[j.IncidentKey]; inc != nil {
					v.Incidents = append(v.Incidents, incidentView(inc, e))
				}
			}
		}
		v.Variables = viewVariables(in.Vars)
		b.Instances = append(b.Instances, v)
	}
	for k := range t.jobs {
		if j := p.touchedJob(k); j != nil {
			b.Jobs = append(b.Jobs, JobViewOf(j))
		}
	}
	return b
}

// viewVariables is the instance's variables for a view: the whole document
// when it is small, else a note of its size (never encoding a large document
// on the partition goroutine).
func viewVariables(d vars.Doc) string {
	n := 2
	for k, v := range d {
		n += len(k) + len(v) + 4
		if n > MaxViewVariables {
			return fmt.Sprintf(`{"…":"%d variables, over %d bytes; see admin ListProcessInstances"}`, len(d), MaxViewVariables)
		}
	}
	return vars.Encode(d)
}

func incidentView(inc *Incident, e *ElemInst) IncidentView {
	v := IncidentView{Key: inc.Key, Instance: inc.InstanceKey, Job: inc.JobKey, Type: inc.Type, Message: inc.Message}
	if e != nil && e.Element != nil {
		v.Element = e.Element.ID
	}
	return v
}

func instanceState(in *Instance) string {
	switch {
	case in.State == InstCompleted:
		return "COMPLETED"
	case in.State == InstCanceled:
		return "CANCELED"
	case in.Incidents > 0:
		return "INCIDENT"
	}
	return "ACTIVE"
}

// JobViewOf is the live view of a job (partition goroutine only).
func JobViewOf(j *Job) JobView {
	v := JobView{Key: j.Key, Instance: j.InstanceKey, Process: j.BpmnProcessID, Element: j.ElementID, Type: j.Type,
		State: JobStateNames[j.State], Worker: j.Worker, Retries: j.Retries, ErrorMessage: j.ErrorMessage,
		ErrorCode: j.ErrorCode, Incident: j.IncidentKey, Activations: j.Activations, Yields: j.Yields,
		Timeouts: j.Timeouts, Fails: j.Fails}
	if j.State == JobActivated {
		v.Deadline = j.Deadline
	}
	if j.State == JobFailedBackoff {
		v.RetryAt = j.RecurAt
	}
	return v
}

// Views lists every instance (with its incidents) and job of the partition,
// newest first, at most limit finished ones of each (active ones always):
// the live view's starting point. Partition goroutine only (use Query).
func Views(s *State, limit int) ([]InstanceView, []JobView) {
	var insts []InstanceView
	var jobs []JobView
	var doneI, doneJ int
	// Keys grow with time within a partition: newest first by key.
	ik := make([]int64, 0, len(s.Instances))
	for k := range s.Instances {
		ik = append(ik, k)
	}
	sortDesc(ik)
	for _, k := range ik {
		in := s.Instances[k]
		if in.State != InstActive {
			if doneI >= limit {
				continue
			}
			doneI++
		}
		v := InstanceView{Key: in.Key, Process: in.BpmnProcessID, Version: in.Version, State: instanceState(in)}
		for _, e := range in.elems {
			if e.Element != nil {
				v.Active = append(v.Active, e.Element.ID)
			}
			if inc := s.Incidents[e.IncidentKey]; inc != nil {
				v.Incidents = append(v.Incidents, incidentView(inc, e))
			}
			if j := s.Jobs[e.JobKey]; j != nil {
				if inc := s.Incidents[j.IncidentKey]; inc != nil {
					v.Incidents = append(v.Incidents, incidentView(inc, e))
				}
			}
		}
		v.Variables = viewVariables(in.Vars)
		insts = append(insts, v)
	}
	jk := make([]int64, 0, len(s.Jobs))
	for k := range s.Jobs {
		jk = append(jk, k)
	}
	sortDesc(jk)
	for _, k := range jk {
		j := s.Jobs[k]
		switch j.State {
		case JobCompleted, JobCanceled, JobErrorThrown:
			if doneJ >= limit {
				continue
			}
			doneJ++
		}
		jobs = append(jobs, JobViewOf(j))
	}
	return insts, jobs
}

func sortDesc(a []int64) {
	slices.Sort(a)
	slices.Reverse(a)
}
