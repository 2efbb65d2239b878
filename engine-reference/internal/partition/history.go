package partition

import (
	"maps"
	"slices"
)

// Finished instances (completed, canceled) and jobs (completed, canceled,
// ended by a caught error) leave the live state at once: nothing the engine
// does needs them again (commands on them answer NOT_FOUND either way). The
// admin API keeps the newest of them in a bounded history per partition
// (Config.History) and counts the older ones, so memory, snapshots and
// restart time depend on live state, not on how much work was ever done.

// DefaultHistory is the history size per partition when Config.History is 0.
const DefaultHistory = 1_000

// MaxHistoryBytes bounds the variables the history holds per partition
// (instance variables, job error variables): a few huge documents evict
// older entries early instead of pinning gigabytes.
const MaxHistoryBytes = 64 << 20

// History is a partition's bounded record of finished instances and jobs.
type History struct {
	Max       int
	Instances []*Instance
	Jobs      []*Job
	// Evicted counts what fell out of the history: process id → instance
	// state → count; job type → job state → count.
	EvictedInstances map[string]map[int]int64
	EvictedJobs      map[string]map[int]int64
	bytes            int
}

func instBytes(in *Instance) int {
	n := 0
	for k, v := range in.Vars {
		n += len(k) + len(v)
	}
	return n
}

func newHistory(max int) *History {
	if max <= 0 {
		max = DefaultHistory
	}
	return &History{Max: max, EvictedInstances: map[string]map[int]int64{}, EvictedJobs: map[string]map[int]int64{}}
}

func count(m map[string]map[int]int64, k string, st int) {
	c := m[k]
	if c == nil {
		c = map[int]int64{}
		m[k] = c
	}
	c[st]++
}

func (h *History) addInstance(in *Instance) {
	in.elems, in.joins, in.proc = nil, nil, nil
	h.Instances = append(h.Instances, in)
	h.bytes += instBytes(in)
	h.evict()
}

func (h *History) addJob(j *Job) {
	h.Jobs = append(h.Jobs, j)
	h.bytes += len(j.ErrorVariables)
	h.evict()
}

func (h *History) evict() {
	for len(h.Instances) > 0 && (len(h.Instances) > h.Max || h.bytes > MaxHistoryBytes) {
		old := h.Instances[0]
		h.Instances[0] = nil
		h.Instances = h.Instances[1:]
		h.bytes -= instBytes(old)
		count(h.EvictedInstances, old.BpmnProcessID, old.State)
	}
	for len(h.Jobs) > 0 && (len(h.Jobs) > h.Max || h.bytes > MaxHistoryBytes) {
		old := h.Jobs[0]
		h.Jobs[0] = nil
		h.Jobs = h.Jobs[1:]
		h.bytes -= len(old.ErrorVariables)
		count(h.EvictedJobs, old.Type, old.State)
	}
}

// frozen returns a copy of the history that later changes to h leave
// alone: the lists are copied (the entries themselves, finished instances
// and jobs, never change once the batch that finished them is over) and
// so are the counts. Taken between batches for a snapshot that is encoded
// on another goroutine.
func (h *History) frozen() *History {
	f := &History{Max: h.Max, Instances: slices.Clone(h.Instances), Jobs: slices.Clone(h.Jobs),
		EvictedInstances: cloneCounts(h.EvictedInstances), EvictedJobs: cloneCounts(h.EvictedJobs), bytes: h.bytes}
	return f
}

func cloneCounts(m map[string]map[int]int64) map[string]map[int]int64 {
	out := make(map[string]map[int]int64, len(m))
	for k, c := range m {
		out[k] = maps.Clone(c)
	}
	return out
}

func jobFinished(st int) bool {
	return st == JobCompleted || st == JobCanceled || st == JobErrorThrown
}

// finishInstance moves a completed or canceled instance to the history.
func (s *State) finishInstance(in *Instance) {
	delete(s.Instances, in.Key)
	s.dirtyInst(in.Key)
	if s.rt != nil {
		s.rt.histInsts = append(s.rt.histInsts, in)
	}
	if s.touched != nil {
		s.touched.instance(in.Key)
		s.touched.doneInst[in.Key] = in // reported as finished, with no active elements
	}
	s.History.addInstance(in)
}
