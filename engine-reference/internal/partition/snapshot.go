package partition

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/jobwire/jobwire/engine-reference/internal/vars"
	"github.com/jobwire/jobwire/engine-reference/internal/wal"
)

// On-disk layout of a partition directory (format 2):
//
//	snapshot          the state after every record of segments < Segment
//	                  ([u32 len][u32 CRC-32C][JSON]; written to snapshot.tmp,
//	                  fsynced, renamed, directory fsynced)
//	log-<n>           log segments (wal framing); replay starts at the
//	                  snapshot's Segment; older segments are deleted
//	log               format 1 (no snapshots): the whole history in one file;
//	                  read as segment 0 and compacted away by the first
//	                  snapshot
//
// A snapshot is taken after SnapshotEvery records (and at least an eighth
// of the last snapshot's size in log bytes: see snapshotDue) and when the
// partition closes cleanly, so a restart after a clean shutdown applies no
// log record at all and one after a crash costs at most about twice that.

// SnapshotFormat is the version of the snapshot encoding. A snapshot with a
// different version is refused with a clear message (never guessed at).
// Format 3 added element instance scopes (subprocesses, multi-instance
// bodies, call activities) and called instances' parents; a format 2
// snapshot is read as one whose element instances all sit in the process
// instance's scope, which is what format 2 could express.
const SnapshotFormat = 3

// snapshotFormatsRead are the formats this engine reads.
var snapshotFormatsRead = map[int]bool{2: true, 3: true}

// SnapshotEvery is how many log records trigger a snapshot (the
// --snapshot-every flag; snapshotDue adds a bound by bytes). 1,000 records
// replay in ~7-10 ms, so crash recovery stays close to a clean start.
var SnapshotEvery int64 = 1_000

type snapDef struct {
	Key           int64  `json:"key"`
	BpmnProcessID string `json:"pid"`
	Version       int32  `json:"ver"`
	ResourceName  string `json:"name"`
	DeploymentKey int64  `json:"dep"`
	Checksum      string `json:"sum"`
	// Deleted: a definition DeleteResource removed (no resource; kept so
	// versions are not reused and replay does not bring it back).
	Deleted bool `json:"deleted,omitempty"`
}

type snapElem struct {
	Key         int64    `json:"key"`
	ElementID   string   `json:"el"`
	Vars        vars.Doc `json:"vars,omitempty"`
	JobKey      int64    `json:"job,omitempty"`
	IncidentKey int64    `json:"inc,omitempty"`
	// format 3
	Scope       int64                     `json:"scope,omitempty"`
	Tokens      int                       `json:"tokens,omitempty"`
	Joins       map[string]map[string]int `json:"joins,omitempty"`
	Body        *MIBody                   `json:"body,omitempty"`
	LoopCounter int                       `json:"loop,omitempty"`
	ChildKey    int64                     `json:"child,omitempty"`
	Stage       int                       `json:"stage,omitempty"`
}

type snapInstance struct {
	*Instance
	Tokens int                       `json:"tokens,omitempty"`
	Joins  map[string]map[string]int `json:"joins,omitempty"`
	Elems  []snapElem                `json:"elems,omitempty"`
}

type snapQueued struct {
	Key int64 `json:"k"`
	Seq int64 `json:"s"`
}

type snapMessage struct {
	ID       string `json:"id"`
	Key      int64  `json:"k"`
	Deadline int64  `json:"d"`
}

// snapshotData is a snapshot's JSON document. It is encoded in three parts
// (encodeSnapshot, assembleSnapshot) so the history, most of a snapshot's
// bytes, can be encoded off the partition goroutine; the parts are
// concatenated into exactly what encoding the whole struct would give.
type snapshotData struct {
	snapshotHead
	History *History `json:"history"`
	snapshotTail
}

// snapshotHead: the fields before the history.
type snapshotHead struct {
	Format          int                     `json:"format"`
	Partition       int32                   `json:"partition"`
	Segment         int64                   `json:"segment"`  // first log segment to replay
	Position        int64                   `json:"position"` // log records before Segment (admin log position)
	Counter         int64                   `json:"counter"`
	Seq             int64                   `json:"seq"`
	LastNow         int64                   `json:"lastNow"`
	Resources       map[string][]byte       `json:"resources"` // checksum → BPMN file
	Defs            []snapDef               `json:"defs"`
	Instances       []snapInstance          `json:"instances"`
	Jobs            []*Job                  `json:"jobs"`
	Incidents       []*Incident             `json:"incidents"`
	Queues          map[string][]snapQueued `json:"queues"`
	Messages        []snapMessage           `json:"messages"`
	JobsByState     [8]int64                `json:"jobsByState"`
	ActiveInstances int64                   `json:"activeInstances"`
}

// snapshotTail: the fields after the history.
type snapshotTail struct {
	Events json.RawMessage `json:"events,omitempty"` // timers, message subscriptions (messages.go)
	DMN    []snapDRG       `json:"dmn,omitempty"`    // decisions.go
}

// encodedSnapshot is a snapshot taken between batches: the live state
// encoded, the history frozen (finished instances and jobs never change
// again, so a copy of the lists is a consistent view of it).
type encodedSnapshot struct {
	head, tail []byte
	history    *History
}

// encodeSnapshot encodes the live state (on the partition goroutine,
// between batches) and freezes the history; assemble finishes the encoding
// on any goroutine.
func (p *Partition) encodeSnapshot(segment, position int64) (*encodedSnapshot, error) {
	s := p.st
	d := &snapshotHead{Format: SnapshotFormat, Partition: s.ID, Segment: segment, Position: position,
		Counter: s.counter, Seq: s.seq, LastNow: p.lastNow, Resources: map[string][]byte{},
		Queues: map[string][]snapQueued{}, JobsByState: s.jobsByState, ActiveInstances: s.activeInstances}
	for _, def := range s.defs.All() {
		d.Resources[def.Checksum] = def.Resource
		d.Defs = append(d.Defs, snapDefOf(def))
	}
	d.Defs = append(d.Defs, s.defs.deletedDefs()...)
	tail := &snapshotTail{DMN: p.snapshotDMN()}
	for _, in := range s.Instances {
		d.Instances = append(d.Instances, snapInstanceOf(in))
	}
	sort.Slice(d.Instances, func(i, k int) bool { return d.Instances[i].Key < d.Instances[k].Key })
	for _, j := range s.Jobs {
		d.Jobs = append(d.Jobs, j)
	}
	sort.Slice(d.Jobs, func(i, k int) bool { return d.Jobs[i].Key < d.Jobs[k].Key })
	for _, inc := range s.Incidents {
		d.Incidents = append(d.Incidents, inc)
	}
	sort.Slice(d.Incidents, func(i, k int) bool { return d.Incidents[i].Key < d.Incidents[k].Key })
	for t, q := range s.queues {
		// Only the entries activation would use (stale ones are dropped
		// lazily while processing): the same whether the queue was built
		// by processing or rebuilt by recovery.
		var out []snapQueued
		for _, e := range q {
			if x := s.Jobs[e.key]; x != nil && x.State == JobActivatable && x.QueueSeq == e.seq {
				out = append(out, snapQueued{e.key, e.seq})
			}
		}
		if len(out) > 0 {
			d.Queues[t] = out
		}
	}
	for id, m := range s.messages {
		d.Messages = append(d.Messages, snapMessage{ID: id, Key: m.key, Deadline: m.deadline})
	}
	sort.Slice(d.Messages, func(i, k int) bool { return d.Messages[i].ID < d.Messages[k].ID })
	tail.Events = p.encodeEvents()
	es := &encodedSnapshot{history: s.History.frozen()}
	var err error
	if es.head, err = encodeJSON(d); err != nil {
		return nil, err
	}
	if es.tail, err = encodeJSON(tail); err != nil {
		return nil, err
	}
	return es, nil
}

// assemble encodes the frozen history and returns the snapshot payload:
// the same bytes as encoding the whole snapshotData at once.
func (es *encodedSnapshot) assemble() ([]byte, error) {
	return es.assembleWith(nil)
}

// assembleWith is assemble with the history's entries taken from (and
// added to) a cache of their encodings; nil encodes them all.
func (es *encodedSnapshot) assembleWith(c *histCache) ([]byte, error) {
	var h []byte
	var err error
	if c != nil {
		h, err = c.encodeHistory(es.history)
	} else {
		h, err = encodeJSON(es.history)
	}
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(es.head)+len(h)+len(es.tail)+16)
	out = append(out, es.head[:len(es.head)-1]...) // without the closing brace
	out = append(out, `,"history":`...)
	out = append(out, h...)
	if len(es.tail) > 2 { // "{}" when both tail fields are empty
		out = append(out, ',')
		out = append(out, es.tail[1:]...)
	} else {
		out = append(out, '}')
	}
	return append(out, '\n'), nil
}

// encodeJSON encodes v without HTML escaping (variable values must come
// back byte for byte) and without the trailing newline.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// loadSnapshot restores the state from a snapshot payload.
func (p *Partition) loadSnapshot(b []byte) (*snapshotData, error) {
	var d snapshotData
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("snapshot does not decode: %w", err)
	}
	if !snapshotFormatsRead[d.Format] {
		return nil, fmt.Errorf("snapshot format %d is not supported by this engine (it reads formats 2 and %d); use the engine version that wrote it", d.Format, SnapshotFormat)
	}
	if d.Partition != p.cfg.ID {
		return nil, fmt.Errorf("snapshot belongs to partition %d", d.Partition)
	}
	s := p.st
	if err := p.applyDefs(d.Defs, d.Resources); err != nil {
		return nil, err
	}
	if err := p.restoreDMN(d.DMN); err != nil {
		return nil, err
	}
	s.counter, s.seq, p.lastNow = d.Counter, d.Seq, d.LastNow
	s.jobsByState, s.activeInstances = d.JobsByState, d.ActiveInstances
	for _, si := range d.Instances {
		if err := s.restoreInstance(si); err != nil {
			return nil, err
		}
	}
	for _, j := range d.Jobs {
		s.Jobs[j.Key] = j
	}
	for _, inc := range d.Incidents {
		s.Incidents[inc.Key] = inc
	}
	for t, q := range d.Queues {
		out := make([]queued, 0, len(q))
		for _, e := range q {
			out = append(out, queued{e.Key, e.Seq})
		}
		s.queues[t] = out
	}
	for _, m := range d.Messages {
		s.messages[m.ID] = message{key: m.Key, deadline: m.Deadline}
	}
	if err := p.loadEvents(d.Events); err != nil {
		return nil, err
	}
	if d.History != nil {
		h := d.History
		h.Max = s.History.Max // the configured size wins
		if h.EvictedInstances == nil {
			h.EvictedInstances = map[string]map[int]int64{}
		}
		if h.EvictedJobs == nil {
			h.EvictedJobs = map[string]map[int]int64{}
		}
		s.History = newHistory(h.Max)
		s.History.EvictedInstances, s.History.EvictedJobs = h.EvictedInstances, h.EvictedJobs
		for _, in := range h.Instances {
			s.History.addInstance(in)
		}
		for _, j := range h.Jobs {
			s.History.addJob(j)
		}
	}
	return &d, nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// writeFileDurably writes data framed with a checksum to path via a
// temporary file, fsync and rename, then fsyncs the directory.
func writeFileDurably(path string, data []byte, noSync bool) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	var hdr [8]byte
	binary.LittleEndian.PutUint32(hdr[0:4], uint32(len(data)))
	binary.LittleEndian.PutUint32(hdr[4:8], crc32.Checksum(data, castagnoli))
	if _, err := f.Write(hdr[:]); err == nil {
		_, err = f.Write(data)
	}
	if err == nil && !noSync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path), noSync)
}

func syncDir(dir string, noSync bool) error {
	if noSync {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// readSnapshotFile returns the snapshot payload, nil if there is none, or
// an error naming the file when it is damaged (a snapshot is only ever
// renamed into place complete, so damage is never a torn write).
func readSnapshotFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(b) < 8 {
		return nil, fmt.Errorf("snapshot %s is damaged (%d bytes); refusing to start", path, len(b))
	}
	n := binary.LittleEndian.Uint32(b[0:4])
	if int64(n) != int64(len(b)-8) || crc32.Checksum(b[8:], castagnoli) != binary.LittleEndian.Uint32(b[4:8]) {
		return nil, fmt.Errorf("snapshot %s is damaged (length or checksum mismatch); refusing to start (nothing was changed)", path)
	}
	return b[8:], nil
}

// segment file names: log (format 1, segment 0), log-<n>.
func segmentPath(dir string, n int64) string {
	if n == 0 {
		return filepath.Join(dir, "log")
	}
	return filepath.Join(dir, fmt.Sprintf("log-%012d", n))
}

// listSegments returns the segment numbers present in dir, ascending.
func listSegments(dir string) ([]int64, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, e := range ents {
		name := e.Name()
		switch {
		case name == "log":
			out = append(out, 0)
		case strings.HasPrefix(name, "log-"):
			n, err := strconv.ParseInt(strings.TrimPrefix(name, "log-"), 10, 64)
			if err == nil && n > 0 {
				out = append(out, n)
			}
		}
	}
	sort.Slice(out, func(i, k int) bool { return out[i] < out[k] })
	return out, nil
}

// ---- scheduling: when a snapshot is due, writing it off the partition goroutine ----

// snapshotDue says whether the log since the last snapshot is long enough
// for the next one: at least SnapshotEvery records, and at least an eighth
// of the last snapshot's size in bytes. Replaying a logged byte costs about
// four times as much as loading a snapshot byte (measured: ~1 MB of log
// replays in ~90 ms, a 1 MB snapshot loads in ~20 ms), so crash recovery
// adds at most about half a snapshot load to a clean start: restart time
// follows the live state (the snapshot), not history or luck. The byte
// bound also keeps snapshots of a large live state from being rewritten
// every SnapshotEvery records: snapshot bytes written stay within 8× the
// log bytes they compact. Snapshots are written off the partition
// goroutine (startSnapshot), which is what makes this interval affordable.
//
// The tail is bounded by records and by bytes: replay cost follows bytes
// more than records (one activation record can activate hundreds of jobs),
// so a tail of SnapshotTailBytes is due even before SnapshotEvery records.
func (p *Partition) snapshotDue() bool {
	n := p.log.Bytes()
	return (p.log.Records() >= SnapshotEvery || n >= SnapshotTailBytes) && SnapshotLogRatio*n >= p.snapBytes.Load()
}

// SnapshotTailBytes: log bytes since the last snapshot that make a snapshot
// due before SnapshotEvery records (see snapshotDue). Recovery applies a
// results record at about 19 ns per byte, so a full tail adds about 20 ms
// to a crash restart. It was 256 KiB, sized for command records; with
// results records (about 5× as many bytes per instance) that made a
// snapshot due every ~470 records, and `bench` spent 12 % more CPU per
// instance rewriting the snapshot (mostly the admin history) twice as often.
var SnapshotTailBytes int64 = 1 << 20

// SnapshotLogRatio: a snapshot waits for at least 1/SnapshotLogRatio of
// the previous snapshot's size in log bytes (see snapshotDue). A variable
// for crash tests, which snapshot every few records whatever the size.
var SnapshotLogRatio int64 = 8

// snapshot writes the state after everything logged so far and starts a
// new log segment; older segments are deleted. Synchronous: used when the
// partition has stopped (Close). A failure is logged and leaves the log as
// it was (nothing is lost, the next attempt retries).
func (p *Partition) snapshot() {
	if err := p.trySnapshot(); err != nil {
		p.snapshotFailed(err)
	}
}

func (p *Partition) trySnapshot() error {
	next := p.segment + 1
	nl, err := wal.OpenSegment(segmentPath(p.dir, next), p.cfg.NoSync, true, func([]byte) error {
		return fmt.Errorf("segment %d already has records", next)
	})
	if err != nil {
		return err
	}
	if err := syncDir(p.dir, p.cfg.NoSync); err != nil {
		nl.Close()
		return err
	}
	pos := p.base.Load() + p.log.Records()
	es, err := p.encodeSnapshot(next, pos)
	var b []byte
	if err == nil {
		b, err = es.assembleWith(&p.histCache)
	}
	if err == nil {
		err = writeFileDurably(filepath.Join(p.dir, "snapshot"), b, p.cfg.NoSync)
	}
	if err == nil {
		p.snapBytes.Store(int64(len(b)))
	}
	if err != nil {
		nl.Close()
		return err
	}
	old := p.log
	p.fsyncBase.Add(old.Fsyncs())
	p.batchBase.Add(old.Batches())
	p.base.Store(pos)
	p.log, p.segment = nl, next
	p.logp.Store(nl)
	old.Close()
	p.snapshots.Add(1)
	return removeSegmentsBefore(p.dir, next)
}

// removeSegmentsBefore deletes the log segments a snapshot compacted.
func removeSegmentsBefore(dir string, next int64) error {
	segs, err := listSegments(dir)
	if err != nil {
		return err
	}
	for _, n := range segs {
		if n < next {
			if err := os.Remove(segmentPath(dir, n)); err != nil {
				return err
			}
		}
	}
	return nil
}

// snapJob is a snapshot encoded on the partition goroutine, on its way to
// disk: data covers every record of the segments before next; old is the
// segment that was current until then (closed once the file is written).
type snapJob struct {
	snap      *encodedSnapshot
	next      int64
	old       *wal.Log
	oldFsyncs int64 // old.Fsyncs() when the partition switched segments
}

// startSnapshot takes a snapshot while the partition keeps running
// (between batches, where the state is consistent). On the partition
// goroutine it only encodes the state, makes the current segment durable
// and switches appends to a new segment; the committer releases the
// snapshot to snapLoop once everything before it is durable, and snapLoop
// writes the file (tmp, fsync, rename, directory fsync) and deletes the
// compacted segments while the next batches are processed and committed.
// A crash at any point leaves either the old snapshot with every segment
// after it, or the new snapshot (segments it covers are deleted at the
// next start), both of which recover the same state.
func (p *Partition) startSnapshot() {
	p.snapBusy <- struct{}{} // at most one snapshot in flight (waits for the previous one, rarely)
	release := func() { <-p.snapBusy }
	// Every record of the current segment is on disk before the next
	// segment gets any: only the last segment can ever end in a torn
	// record (recovery relies on it), even after a power loss.
	if err := p.log.SyncFile(); err != nil {
		p.fatal(err)
	}
	next := p.segment + 1
	nl, err := wal.OpenSegment(segmentPath(p.dir, next), p.cfg.NoSync, true, func([]byte) error {
		return fmt.Errorf("segment %d already has records", next)
	})
	if err != nil {
		release()
		p.snapshotFailed(err)
		return
	}
	pos := p.base.Load() + p.log.Records()
	es, err := p.encodeSnapshot(next, pos)
	if err != nil {
		nl.Close()
		os.Remove(segmentPath(p.dir, next))
		release()
		p.snapshotFailed(err)
		return
	}
	old := p.log
	j := &snapJob{snap: es, next: next, old: old, oldFsyncs: old.Fsyncs()}
	p.fsyncBase.Add(j.oldFsyncs)
	p.batchBase.Add(old.Batches())
	p.base.Store(pos)
	p.log, p.segment = nl, next
	p.logp.Store(nl)
	// The exact size is known once snapLoop has encoded the history; until
	// then snapshotDue uses the live state's size plus the last history's.
	p.snapBytes.Store(int64(len(es.head)+len(es.tail)) + p.histBytes.Load())
	p.snapshots.Add(1)
	p.commits <- &pendingBatch{snap: j}
}

// snapLoop writes the snapshots startSnapshot took, in order (one per
// partition, stopped by the committer when the partition stops).
func (p *Partition) snapLoop() {
	defer close(p.snapperDone)
	for j := range p.snapJobs {
		b, err := j.snap.assembleWith(&p.histCache)
		if err == nil {
			p.histBytes.Store(int64(len(b) - len(j.snap.head) - len(j.snap.tail)))
			p.snapBytes.Store(int64(len(b)))
			err = writeFileDurably(filepath.Join(p.dir, "snapshot"), b, p.cfg.NoSync)
		}
		if cerr := j.old.Close(); err == nil {
			err = cerr
		}
		p.fsyncBase.Add(j.old.Fsyncs() - j.oldFsyncs) // the committer's last syncs of the old segment
		if err == nil {
			err = removeSegmentsBefore(p.dir, j.next)
		}
		if err != nil {
			p.snapshotFailed(err)
		}
		<-p.snapBusy
	}
}

func (p *Partition) snapshotFailed(err error) {
	msg := fmt.Sprintf("partition %d: snapshot failed (the log is intact, will retry): %v", p.cfg.ID, err)
	if p.cfg.Logger != nil {
		p.cfg.Logger.Error(msg)
	} else {
		fmt.Fprintln(os.Stderr, "jobwire-engine:", msg)
	}
}
