// Package ui is the engine's live view: a web page served from files
// embedded in the binary, fed with Server-Sent Events built from the
// partitions' committed batches (partition.Observer), never by polling the
// partitions.
//
// Data path: partition goroutine → Hub.Committed (non-blocking send into a
// bounded queue; when it is full the batch is dropped and the hub reloads
// its model once from the partitions) → hub goroutine (applies batches to
// its model, encodes one SSE message per drain) → one bounded queue per
// viewer (a viewer that falls behind loses messages and gets a fresh
// snapshot instead). Nothing in this path can block a partition.
package ui

import (
	"context"
	"encoding/json"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/partition"
)

// Queue sizes and model bounds.
const (
	InputQueue   = 4096 // committed batches waiting for the hub
	ViewerQueue  = 256  // SSE messages waiting for one viewer
	KeepFinished = 1000 // finished instances / jobs kept in the model (active ones are always kept)
	SnapshotRows = 1000 // newest instances / jobs sent in a snapshot
	// DeltaInterval is the least time between two deltas: batches committed
	// meanwhile go out together (fewer, larger SSE messages: a browser pays
	// per message, and so does a loaded machine per wake-up).
	DeltaInterval = 10 * time.Millisecond
)

// Seeder loads the model's starting point from the partitions (once at
// start, and again only after the input queue overflowed).
type Seeder func(ctx context.Context, limit int) ([]partition.InstanceView, []partition.JobView, error)

// GatewayTables returns the gateway-side tables (streams, parked polls,
// request counts); they live in gateway memory, not in partitions.
type GatewayTables func(ctx context.Context) (*Tables, error)

// Tables are the gateway-side tables.
type Tables struct {
	Streams  []Stream       `json:"streams"`
	Polls    []Poll         `json:"polls"`
	Requests []RequestCount `json:"requests"`
}

// Stream is an open push stream.
type Stream struct {
	ID, Aggregate, Type, Worker, Peer string
	Received, Yielded                 int64
	Ready                             bool
}

// Poll is a parked long poll.
type Poll struct {
	Type, Worker, Peer string
	Max                int32
	ParkedAt           int64
}

// RequestCount counts one method from one client.
type RequestCount struct {
	Method, Peer string
	Count        int64
	ByCode       map[string]int64
}

// Totals are the cumulative live counters since the hub started.
type Totals struct {
	Created       int64            `json:"created"`
	Completed     int64            `json:"completed"`
	JobsCompleted map[string]int64 `json:"jobsCompleted"`
	JobsFailed    map[string]int64 `json:"jobsFailed"`
	Push          map[string]int64 `json:"push"`
	Poll          map[string]int64 `json:"poll"`
	Yield         map[string]int64 `json:"yield"`
	Timeout       map[string]int64 `json:"timeout"`
	Batches       int64            `json:"batches"`
	Dropped       int64            `json:"dropped"` // batches the hub could not take (then it reloaded)
}

func newTotals() Totals {
	return Totals{JobsCompleted: map[string]int64{}, JobsFailed: map[string]int64{}, Push: map[string]int64{},
		Poll: map[string]int64{}, Yield: map[string]int64{}, Timeout: map[string]int64{}}
}

func addAll(dst map[string]int64, src map[string]int) {
	for k, v := range src {
		dst[k] += int64(v)
	}
}

type viewer struct {
	ch     chan []byte
	resync atomic.Bool
}

// Hub is the partition observer and the SSE fan-out.
type Hub struct {
	in      chan *partition.CommittedBatch
	lost    atomic.Bool
	dropped atomic.Int64
	seed    Seeder
	tables  GatewayTables
	stop    chan struct{}
	done    chan struct{}
	kick    chan struct{} // a viewer arrived: refresh the gateway tables now
	started atomic.Bool

	mu       sync.Mutex
	insts    map[int64]partition.InstanceView
	jobs     map[int64]partition.JobView
	incs     map[int64]partition.IncidentView
	doneI    []int64 // finished instances, oldest first
	doneJ    []int64
	totals   Totals
	gw       *Tables
	gwJSON   []byte
	viewers  map[*viewer]struct{}
	lastGW   time.Time
	seeded   bool
	seedErr  string
	gwTicker time.Duration
}

// NewHub returns a hub; Start it once the partitions run.
func NewHub(seed Seeder, tables GatewayTables) *Hub {
	return &Hub{in: make(chan *partition.CommittedBatch, InputQueue), seed: seed, tables: tables,
		stop: make(chan struct{}), done: make(chan struct{}), kick: make(chan struct{}, 1), insts: map[int64]partition.InstanceView{},
		jobs: map[int64]partition.JobView{}, incs: map[int64]partition.IncidentView{}, totals: newTotals(),
		viewers: map[*viewer]struct{}{}, gwTicker: time.Second}
}

// Committed implements partition.Observer: never blocks.
func (h *Hub) Committed(b *partition.CommittedBatch) {
	select {
	case h.in <- b:
	default:
		h.lost.Store(true)
		h.dropped.Add(1)
	}
}

// Lost tells the hub that batches were missed (a remote feed reconnected
// or dropped some): it reloads its model from the partitions.
func (h *Hub) Lost() {
	h.lost.Store(true)
	select {
	case h.kick <- struct{}{}:
	default:
	}
}

// Start loads the model and starts the hub goroutine.
func (h *Hub) Start() {
	if h.started.Swap(true) {
		return
	}
	h.lost.Store(false) // the first load covers whatever was dropped before it
	h.reseed()
	go h.run()
}

// Close stops the hub goroutine and ends every viewer's stream.
func (h *Hub) Close() {
	if !h.started.Load() {
		return
	}
	select {
	case <-h.stop:
		return
	default:
	}
	close(h.stop)
	<-h.done
}

func (h *Hub) reseed() {
	if h.seed == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	insts, jobs, err := h.seed(ctx, KeepFinished)
	h.mu.Lock()
	defer h.mu.Unlock()
	if err != nil {
		h.seedErr = err.Error()
		return
	}
	h.seedErr = ""
	h.insts = map[int64]partition.InstanceView{}
	h.jobs = map[int64]partition.JobView{}
	h.incs = map[int64]partition.IncidentView{}
	h.doneI, h.doneJ = nil, nil
	sort.Slice(insts, func(i, j int) bool { return insts[i].Key < insts[j].Key })
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].Key < jobs[j].Key })
	for _, v := range insts {
		h.applyInstance(v)
	}
	for _, v := range jobs {
		h.applyJob(v)
	}
	h.seeded = true
	for v := range h.viewers {
		v.resync.Store(true)
		select {
		case v.ch <- nil: // wake the writer
		default:
		}
	}
}

func finishedInstance(s string) bool { return s == "COMPLETED" || s == "CANCELED" }
func finishedJob(s string) bool      { return s == "COMPLETED" || s == "CANCELED" || s == "ERROR_THROWN" }

// applyInstance and applyJob update the model (under mu).
func (h *Hub) applyInstance(v partition.InstanceView) {
	if old, ok := h.insts[v.Key]; ok {
		for _, inc := range old.Incidents {
			delete(h.incs, inc.Key)
		}
		if finishedInstance(old.State) {
			h.insts[v.Key] = v
			return
		}
	}
	h.insts[v.Key] = v
	for _, inc := range v.Incidents {
		h.incs[inc.Key] = inc
	}
	if finishedInstance(v.State) {
		h.doneI = append(h.doneI, v.Key)
		for len(h.doneI) > KeepFinished {
			k := h.doneI[0]
			h.doneI = h.doneI[1:]
			if x, ok := h.insts[k]; ok && finishedInstance(x.State) {
				delete(h.insts, k)
			}
		}
	}
}

func (h *Hub) applyJob(v partition.JobView) {
	old, had := h.jobs[v.Key]
	h.jobs[v.Key] = v
	if finishedJob(v.State) && !(had && finishedJob(old.State)) {
		h.doneJ = append(h.doneJ, v.Key)
		for len(h.doneJ) > KeepFinished {
			k := h.doneJ[0]
			h.doneJ = h.doneJ[1:]
			if x, ok := h.jobs[k]; ok && finishedJob(x.State) {
				delete(h.jobs, k)
			}
		}
	}
}

func (h *Hub) applyBatch(b *partition.CommittedBatch) {
	t := &h.totals
	t.Dropped = h.dropped.Load()
	t.Batches++
	t.Created += int64(b.Counts.Created)
	t.Completed += int64(b.Counts.Completed)
	addAll(t.JobsCompleted, b.Counts.JobsCompleted)
	addAll(t.JobsFailed, b.Counts.JobsFailed)
	addAll(t.Push, b.Counts.PushActivated)
	addAll(t.Poll, b.Counts.PollActivated)
	addAll(t.Yield, b.Counts.Yielded)
	addAll(t.Timeout, b.Counts.TimedOut)
	for _, k := range b.Resolved {
		delete(h.incs, k)
	}
	for _, v := range b.Instances {
		h.applyInstance(v)
	}
	for _, v := range b.Jobs {
		h.applyJob(v)
	}
}

// delta is one SSE "delta" message: the batches drained in one go.
type delta struct {
	Batches []*partition.CommittedBatch `json:"batches"`
	Totals  Totals                      `json:"totals"`
	Sent    int64                       `json:"sent"` // Unix ns when the hub encoded it
}

func (h *Hub) run() {
	defer close(h.done)
	tick := time.NewTicker(h.gwTicker)
	defer tick.Stop()
	var pending []*partition.CommittedBatch
	var lastDelta time.Time
	// trailing refreshes the gateway tables once after a burst of batches
	// (the table refresh is throttled to one per 250 ms while batches come).
	trailing := time.NewTimer(time.Hour)
	trailing.Stop()
	defer trailing.Stop()
	for {
		select {
		case <-h.stop:
			h.mu.Lock()
			for v := range h.viewers {
				close(v.ch)
				delete(h.viewers, v)
			}
			h.mu.Unlock()
			return
		case b := <-h.in:
			pending = append(pending[:0], b)
			if wait := DeltaInterval - time.Since(lastDelta); wait > 0 {
				time.Sleep(wait)
			}
		drain:
			for len(pending) < 2048 {
				select {
				case b := <-h.in:
					pending = append(pending, b)
				default:
					break drain
				}
			}
			lastDelta = time.Now()
			if h.lost.Swap(false) {
				h.reseed()
			}
			h.mu.Lock()
			for _, b := range pending {
				h.applyBatch(b)
			}
			msg, _ := json.Marshal(delta{Batches: pending, Totals: h.totals, Sent: time.Now().UnixNano()})
			h.broadcast(sse("delta", msg))
			since := time.Since(h.lastGW)
			h.mu.Unlock()
			if since > 250*time.Millisecond {
				h.refreshTables()
			}
			trailing.Reset(250 * time.Millisecond)
		case <-trailing.C:
			h.refreshTables()
		case <-h.kick:
			if h.lost.Swap(false) {
				h.reseed()
			}
			h.refreshTables()
		case <-tick.C:
			if h.lost.Swap(false) {
				h.reseed()
			}
			h.refreshTables()
		}
	}
}

// refreshTables reads the gateway tables and broadcasts them if they changed.
func (h *Hub) refreshTables() {
	h.mu.Lock()
	n := len(h.viewers)
	h.lastGW = time.Now()
	h.mu.Unlock()
	if h.tables == nil || n == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	t, err := h.tables(ctx)
	if err != nil {
		return
	}
	b, _ := json.Marshal(t)
	h.mu.Lock()
	defer h.mu.Unlock()
	if string(b) == string(h.gwJSON) {
		return
	}
	h.gw, h.gwJSON = t, b
	h.broadcast(sse("tables", b))
}

// broadcast queues msg for every viewer without blocking (under mu). A
// viewer whose queue is full is marked for a fresh snapshot.
func (h *Hub) broadcast(msg []byte) {
	for v := range h.viewers {
		if v.resync.Load() {
			continue
		}
		select {
		case v.ch <- msg:
		default:
			v.resync.Store(true)
		}
	}
}

func sse(event string, data []byte) []byte {
	out := make([]byte, 0, len(data)+len(event)+16)
	out = append(out, "event: "...)
	out = append(out, event...)
	out = append(out, "\ndata: "...)
	out = append(out, data...)
	out = append(out, "\n\n"...)
	return out
}

// Snapshot is the model as sent to a new (or resynchronised) viewer.
type Snapshot struct {
	Instances []partition.InstanceView `json:"instances"`
	Jobs      []partition.JobView      `json:"jobs"`
	Incidents []partition.IncidentView `json:"incidents"`
	Totals    Totals                   `json:"totals"`
	Tables    *Tables                  `json:"tables"`
	Counts    map[string]int           `json:"counts"` // instances in the model by state
	SeedError string                   `json:"seedError,omitempty"`
	Now       int64                    `json:"now"`
}

// snapshot builds the viewer's starting point (under mu).
func (h *Hub) snapshot() *Snapshot {
	h.totals.Dropped = h.dropped.Load()
	s := &Snapshot{Totals: h.totals, Tables: h.gw, Counts: map[string]int{}, SeedError: h.seedErr,
		Now: time.Now().UnixNano()}
	for _, v := range h.insts {
		s.Counts[v.State]++
		s.Instances = append(s.Instances, v)
	}
	sort.Slice(s.Instances, func(i, j int) bool { return s.Instances[i].Key > s.Instances[j].Key })
	if len(s.Instances) > SnapshotRows {
		s.Instances = s.Instances[:SnapshotRows]
	}
	for _, v := range h.jobs {
		s.Jobs = append(s.Jobs, v)
	}
	sort.Slice(s.Jobs, func(i, j int) bool { return s.Jobs[i].Key > s.Jobs[j].Key })
	if len(s.Jobs) > SnapshotRows {
		s.Jobs = s.Jobs[:SnapshotRows]
	}
	for _, v := range h.incs {
		s.Incidents = append(s.Incidents, v)
	}
	sort.Slice(s.Incidents, func(i, j int) bool { return s.Incidents[i].Key < s.Incidents[j].Key })
	return s
}

// Snapshot returns the current model (for /api/snapshot and tests).
func (h *Hub) Snapshot() *Snapshot {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.snapshot()
}

// incident looks an incident up in the model, with its job.
func (h *Hub) incident(key int64) (partition.IncidentView, partition.JobView, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	inc, ok := h.incs[key]
	if !ok {
		return inc, partition.JobView{}, false
	}
	return inc, h.jobs[inc.Job], true
}

// subscribe registers a viewer and returns its first message (a snapshot).
func (h *Hub) subscribe() (*viewer, []byte) {
	v := &viewer{ch: make(chan []byte, ViewerQueue)}
	h.mu.Lock()
	defer h.mu.Unlock()
	b, _ := json.Marshal(h.snapshot())
	select {
	case <-h.stop:
		close(v.ch)
	default:
		h.viewers[v] = struct{}{}
	}
	select {
	case h.kick <- struct{}{}:
	default:
	}
	return v, sse("snapshot", b)
}

func (h *Hub) unsubscribe(v *viewer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.viewers[v]; ok {
		delete(h.viewers, v)
	}
}

// resnapshot drains a viewer that fell behind and returns a fresh snapshot.
func (h *Hub) resnapshot(v *viewer) []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
drain:
	for {
		select {
		case _, ok := <-v.ch:
			if !ok {
				return nil
			}
		default:
			break drain
		}
	}
	v.resync.Store(false)
	b, _ := json.Marshal(h.snapshot())
	return sse("snapshot", b)
}

// Viewers is the number of connected pages.
func (h *Hub) Viewers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.viewers)
}
