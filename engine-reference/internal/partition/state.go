package partition

import (
	"encoding/json"
	"sort"
	"sync"

	"github.com/jobwire/jobwire/engine-reference/internal/bpmn"
	"github.com/jobwire/jobwire/engine-reference/internal/vars"
)

// KeyBits is the number of low key bits holding the per-partition counter;
// the partition id sits above them, exactly as Zeebe encodes keys, so any key
// can be routed to its partition without a lookup.
const KeyBits = 51

// PartitionOf extracts the partition id from a key.
func PartitionOf(key int64) int32 { return int32(key >> KeyBits) }

// Job states.
const (
	JobActivatable = iota + 1
	JobActivated
	JobFailedBackoff
	JobIncident
	JobCompleted
	JobErrorThrown
	JobCanceled
)

// JobStateNames are the admin names (JOB_STATE_ suffixes).
var JobStateNames = map[int]string{
	JobActivatable: "ACTIVATABLE", JobActivated: "ACTIVATED", JobFailedBackoff: "FAILED_BACKOFF",
	JobIncident: "INCIDENT", JobCompleted: "COMPLETED", JobErrorThrown: "ERROR_THROWN", JobCanceled: "CANCELED",
}

// Instance states.
const (
	InstActive = iota + 1
	InstCompleted
	InstCanceled
)

// Job is the engine's view of a job.
type Job struct {
	Key, InstanceKey, ElemKey int64
	DefKey                    int64
	BpmnProcessID, ElementID  string
	Version                   int32
	Type                      string
	Headers                   string
	Retries                   int32
	State                     int
	Worker                    string
	Deadline                  int64
	RecurAt                   int64
	ErrorMessage              string
	ErrorCode                 string // ThrowError
	ErrorVariables            string // ThrowError variables (JSON object), kept on the job for the admin API
	IncidentKey               int64
	TenantID                  string

	Activations, Yields, Timeouts, Completes, Fails int32
	QueueSeq                                        int64

	// For the admin API: the fetch-variables list of the activation that
	// last handed the job out (Fetched: it was handed out; an empty list
	// then means all variables), and the retryBackOff of the last FailJob
	// (ms).
	LastFetch   []string `json:",omitempty"`
	LastBackoff int64    `json:",omitempty"`
	Fetched     bool     `json:",omitempty"`
}

// Instance is a process instance.
type Instance struct {
	Key, DefKey   int64
	BpmnProcessID string
	Version       int32
	State         int
	Vars          vars.Doc
	tokens        int
	joins         map[string]map[string]int // parallel join → incoming flow → arrivals
	elems         map[int64]*ElemInst
	Incidents     int
	Completions   int32
	// A called process instance: the calling instance and the call
	// activity's element instance (0 for an instance created by a client).
	ParentKey     int64 `json:",omitempty"`
	ParentElemKey int64 `json:",omitempty"`
	proc          *bpmn.Process
}

// ElemInst is a live element instance: a waiting service task (its key is
// the job's elementInstanceKey), an element held by an incident, an
// embedded subprocess (a flow scope with tokens of its own), a call
// activity waiting for its called instance, or a multi-instance body and
// its inner instances. Vars are its local variables.
type ElemInst struct {
	Key, InstanceKey int64
	Element          *bpmn.Element
	Vars             vars.Doc
	JobKey           int64
	IncidentKey      int64

	ScopeKey    int64                     // flow scope: 0 = the process instance
	Tokens      int                       // subprocess: tokens inside it
	Joins       map[string]map[string]int // subprocess: join arrivals inside it
	Body        *MIBody                   // multi-instance body
	LoopCounter int                       // inner instance of a multi-instance body (1-based)
	ChildKey    int64                     // call activity: the called process instance
	Stage       int                       // what resolving its incident retries (stage*)
}

// MIBody is the state of a multi-instance body.
type MIBody struct {
	Items   []json.RawMessage `json:"items"`
	Next    int               `json:"next"`   // next item to start
	Active  int               `json:"active"` // inner instances running
	Outputs []json.RawMessage `json:"out,omitempty"`
	Started bool              `json:"started,omitempty"` // the input collection was read
}

// Incident is an open incident.
type Incident struct {
	Key, InstanceKey, ElemKey, JobKey int64
	Type, Message                     string
}

type message struct {
	key      int64
	deadline int64
}

type queued struct {
	key, seq int64
}

// State is a partition's in-memory state, rebuilt by replaying its log.
// Only the partition goroutine touches it.
type State struct {
	ID        int32
	counter   int64
	seq       int64
	Instances map[int64]*Instance
	Elems     map[int64]*ElemInst
	Jobs      map[int64]*Job
	Incidents map[int64]*Incident
	queues    map[string][]queued
	messages  map[string]message
	defs      *Registry
	dmn       *decisionStore // deployed decisions (decisions.go)
	forms     *formStore     // deployed forms (forms.go)
	// History holds the newest finished instances and jobs (admin API).
	History *History

	activeInstances int64
	jobsByState     [8]int64

	// events: timers and message subscriptions (timers.go, messages.go).
	events *eventState

	// touched collects what a batch changed, for the Observer (nil without one).
	touched *touchSet
	// rt collects what the command being processed changed, for its
	// results record (results.go; nil while recovering).
	rt *resultsTracker
}

// setJobState moves a job to a state, keeping the per-state counters exact.
// A job that is finished leaves the live state for the history (the caller
// may still update its fields: the history holds the same job).
func (s *State) setJobState(j *Job, st int) {
	if j.State != 0 {
		s.jobsByState[j.State]--
	}
	j.State = st
	s.jobsByState[st]++
	s.dirtyJob(j.Key)
	if s.touched != nil {
		s.touched.job(j)
	}
	if jobFinished(st) {
		if _, live := s.Jobs[j.Key]; live {
			delete(s.Jobs, j.Key)
			s.History.addJob(j)
			if s.rt != nil {
				s.rt.histJobs = append(s.rt.histJobs, j)
			}
			if s.touched != nil {
				s.touched.done[j.Key] = j // the live view still reports it
			}
		}
	}
}

func newState(id int32, defs *Registry, history int) *State {
	return &State{
		ID: id, Instances: map[int64]*Instance{}, Elems: map[int64]*ElemInst{}, Jobs: map[int64]*Job{},
		Incidents: map[int64]*Incident{}, queues: map[string][]queued{}, messages: map[string]message{}, defs: defs,
		History: newHistory(history),
	}
}

func (s *State) nextKey() int64 {
	s.counter++
	return int64(s.ID)<<KeyBits | s.counter
}

// enqueue makes a job visible to activation in the order of job keys, that
// is the order the jobs were created in, as Zeebe's activatable jobs are
// ordered (by type, then key): a job that comes back (timed out, yielded,
// returned by a worker at capacity, retried) takes its old place instead of
// waiting behind every job created since. Entries are validated lazily (seq
// must match) so removal needs no search.
func (s *State) enqueue(j *Job) {
	s.seq++
	j.QueueSeq = s.seq
	s.dirtyJob(j.Key)
	q := compactQueue(s, s.queues[j.Type])
	if len(q) >= 1024 && len(q) == cap(q) {
		// Entries behind a waiting job go stale when their jobs are pushed
		// or finish; before the slice grows, drop every stale entry so the
		// queue stays proportional to the activatable backlog, not to the
		// work done while one job waited (amortized O(1)).
		live := q[:0:0]
		for _, e := range q {
			if x := s.Jobs[e.key]; x != nil && x.State == JobActivatable && x.QueueSeq == e.seq {
				live = append(live, e)
			}
		}
		q = live
	}
	e := queued{j.Key, s.seq}
	if n := len(q); n == 0 || q[n-1].key < j.Key {
		s.queues[j.Type] = append(q, e) // a new job: the common case
		return
	}
	i := sort.Search(len(q), func(i int) bool { return q[i].key > j.Key })
	q = append(q, queued{})
	copy(q[i+1:], q[i:])
	q[i] = e
	s.queues[j.Type] = q
}

// Def is a deployed process definition.
type Def struct {
	Key           int64
	BpmnProcessID string
	Version       int32
	ResourceName  string
	Checksum      string
	Process       *bpmn.Process
	DeploymentKey int64
	Resource      []byte // the deployed file (kept for snapshots)
	Deleted       bool   // DeleteResource removed it (deletion.go)
}

// Registry holds process definitions. Partition 1 (the deployment
// partition, as in Zeebe) writes it; every partition reads it.
type Registry struct {
	mu    sync.RWMutex
	byKey map[int64]*Def
	byID  map[string][]*Def
	// gone: deleted definitions (DeleteResource, deletion.go), kept so
	// versions are never reused and a replayed record cannot bring one back.
	gone map[int64]*Def
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byKey: map[int64]*Def{}, byID: map[string][]*Def{}}
}

// add registers a definition once (by key), keeping versions in order.
func (r *Registry) add(d *Def) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byKey[d.Key] != nil {
		return
	}
	if g := r.gone[d.Key]; g != nil {
		if g.Process == nil { // a tombstone replayed first: instances may still refer to it
			g.Process, g.Resource = d.Process, d.Resource
		}
		return
	}
	r.byKey[d.Key] = d
	list := append(r.byID[d.BpmnProcessID], d)
	for i := len(list) - 1; i > 0 && list[i].Version < list[i-1].Version; i-- {
		list[i], list[i-1] = list[i-1], list[i]
	}
	r.byID[d.BpmnProcessID] = list
}

// ByKey finds a definition by key.
func (r *Registry) ByKey(k int64) *Def {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.byKey[k]
}

// Latest returns the newest version of a process, or a given version.
func (r *Registry) Version(id string, version int32) *Def {
	r.mu.RLock()
	defer r.mu.RUnlock()
	list := r.byID[id]
	if len(list) == 0 {
		return nil
	}
	if version < 0 {
		return list[len(list)-1]
	}
	for _, d := range list {
		if d.Version == version {
			return d
		}
	}
	return nil
}

// All returns every definition, ordered by key.
func (r *Registry) All() []*Def {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*Def, 0, len(r.byKey))
	for _, d := range r.byKey {
		out = append(out, d)
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Key < out[k].Key })
	return out
}

// Count returns the number of definitions.
func (r *Registry) Count() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.byKey)
}
