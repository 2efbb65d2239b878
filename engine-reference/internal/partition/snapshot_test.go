package partition

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"github.com/jobwire/jobwire/engine-reference/internal/vars"
)

const waitBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="x">
  <bpmn:process id="p" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t"/>
    <bpmn:serviceTask id="t"><bpmn:extensionElements><zeebe:taskDefinition type="w"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="t" targetRef="e"/>
    <bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`

const passBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="x">
  <bpmn:process id="p" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="e"/>
    <bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`

// snapshotsAfterCreates runs n creates (each one logged record) of the
// process bpmn with a pad-byte variable, on a partition keeping a history
// of 5, and returns how many snapshots the partition wrote.
func snapshotsAfterCreates(t *testing.T, bpmn string, n, pad int) int64 {
	defer withoutVerifyResults()() // states of up to 4 MB: comparing them per batch is quadratic
	t.Helper()
	p, err := Open(Config{ID: 1, Count: 1, DataDir: t.TempDir(), NoSync: true, Defs: NewRegistry(), History: 5})
	if err != nil {
		t.Fatal(err)
	}
	go p.Run()
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := p.Submit(ctx, &Command{Op: OpDeploy, Resources: []Resource{{Name: "p.bpmn", Content: []byte(bpmn)}}}); err != nil {
		t.Fatal(err)
	}
	vars := fmt.Sprintf(`{"pad": %q}`, strings.Repeat("x", pad))
	for i := 0; i < n; i++ {
		if _, err := p.Submit(ctx, &Command{Op: OpCreate, BpmnProcessID: "p", Version: -1, Variables: vars}); err != nil {
			t.Fatal(err)
		}
	}
	return p.snapshots.Load()
}

// Snapshots follow SnapshotEvery while the live state is small, and back
// off when the live state outweighs the log since the last snapshot: a
// large state is not rewritten every SnapshotEvery records (the snapshot
// bytes written stay within the log bytes they compact).
func TestSnapshotIntervalBacksOffForLargeLiveState(t *testing.T) {
	old, oldRatio, oldTail := SnapshotEvery, SnapshotLogRatio, SnapshotTailBytes
	// the mechanism, at a ratio that shows it within 200 creates (and no
	// bound by tail bytes: TestSnapshotTailBoundedByBytes)
	SnapshotEvery, SnapshotLogRatio, SnapshotTailBytes = 20, 4, 1<<40
	defer func() { SnapshotEvery, SnapshotLogRatio, SnapshotTailBytes = old, oldRatio, oldTail }()
	// Small state (instances finish at once, history of 5): every 20
	// records (deploy + 200 creates → 10 snapshots).
	if got := snapshotsAfterCreates(t, passBPMN, 200, 10); got != 10 {
		t.Fatalf("small live state: %d snapshots, want 10 (one per %d records)", got, SnapshotEvery)
	}
	// Every instance keeps 20 KB live: the next snapshot waits for a
	// quarter of the last one's size in log bytes, so the intervals grow
	// by a quarter each time (20, 25, 31, 39, 49 creates) instead of 10
	// snapshots of up to 4 MB.
	// (8 when a create's log record is a little larger than 20 KB, as
	// results records are: the last interval then ends at create 197.)
	got := snapshotsAfterCreates(t, waitBPMN, 200, 20_000)
	if got < 3 || got > 8 {
		t.Fatalf("large live state: %d snapshots, want 3..8 (intervals growing with the state, not 10)", got)
	}
}

// The log since the last snapshot is bounded by bytes as well as records:
// big records (here 10 KB creates) make a snapshot due every
// SnapshotTailBytes, long before SnapshotEvery records, because replay
// cost follows bytes.
func TestSnapshotTailBoundedByBytes(t *testing.T) {
	old, oldTail := SnapshotEvery, SnapshotTailBytes
	SnapshotEvery, SnapshotTailBytes = 1_000_000, 50_000
	defer func() { SnapshotEvery, SnapshotTailBytes = old, oldTail }()
	// Instances finish at once (history of 5, ≈ 50 KB snapshots): the
	// snapshot's size allows one every 50 KB / SnapshotLogRatio of log, so
	// the tail bound decides: one snapshot per ~5 creates of 10 KB.
	got := snapshotsAfterCreates(t, passBPMN, 100, 10_000)
	if got < 15 || got > 23 {
		t.Fatalf("%d snapshots after 100 creates of 10 KB, want 15..23 (one per %d log bytes)", got, SnapshotTailBytes)
	}
}

// A job completed long before its deadline leaves a stale time-out entry
// in the timer heap; the heap is compacted from the state, so it follows
// the live (activated) jobs, not every job activated within the timeout.
func TestTimerHeapFollowsLiveJobs(t *testing.T) {
	defer withoutVerifyResults()() // 20,000 instances: comparing whole states per batch is quadratic
	p, err := Open(Config{ID: 1, Count: 1, DataDir: t.TempDir(), NoSync: true, Defs: NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	go p.Run()
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := p.Submit(ctx, &Command{Op: OpDeploy, Resources: []Resource{{Name: "p.bpmn", Content: []byte(waitBPMN)}}}); err != nil {
		t.Fatal(err)
	}
	const n = 20_000
	for i := 0; i < n; i += 100 {
		for k := 0; k < 100; k++ {
			if _, err := p.Submit(ctx, &Command{Op: OpCreate, BpmnProcessID: "p", Version: -1}); err != nil {
				t.Fatal(err)
			}
		}
		r, err := p.Submit(ctx, &Command{Op: OpActivate, Type: "w", Worker: "t", MaxJobs: 100, Timeout: 3_600_000})
		if err != nil {
			t.Fatal(err)
		}
		jobs := r.([]*gatewaypb.ActivatedJob)
		if len(jobs) != 100 {
			t.Fatalf("activated %d jobs, want 100", len(jobs))
		}
		for _, j := range jobs {
			if _, err := p.Submit(ctx, &Command{Op: OpComplete, Key: j.Key}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var heapLen int
	p.Query(ctx, func(*State) { heapLen = len(p.timers) })
	if heapLen > 8192 {
		t.Fatalf("timer heap holds %d entries after %d jobs completed (none live)", heapLen, n)
	}
}

// A snapshot is encoded in parts (the live state on the partition
// goroutine, the history by the snapshot writer); the assembled payload is
// byte for byte what encoding the whole document gives, with and without
// the optional fields after the history, so the format does not change.
func TestSnapshotAssemblyMatchesWholeEncoding(t *testing.T) {
	h := newHistory(10)
	h.addInstance(&Instance{Key: 7, BpmnProcessID: "p", State: InstCompleted, Vars: vars.Doc{"x": json.RawMessage(`"<a & b>"`)}})
	h.addJob(&Job{Key: 8, Type: "w", State: JobCompleted, ErrorVariables: `{"e":"<&>"}`})
	count(h.EvictedInstances, "p", InstCompleted)
	for _, tail := range []snapshotTail{{}, {Events: json.RawMessage(`{"timers":[1]}`)}, {DMN: []snapDRG{{}}}} {
		d := &snapshotData{snapshotHead: snapshotHead{Format: SnapshotFormat, Partition: 2, Segment: 3,
			Resources: map[string][]byte{"c": []byte("<bpmn/>")}, Jobs: []*Job{{Key: 9, Headers: `{"h":"<>"}`}},
			Queues: map[string][]snapQueued{"w": {{1, 2}}}}, History: h, snapshotTail: tail}
		want, err := encodeJSON(d)
		if err != nil {
			t.Fatal(err)
		}
		es := &encodedSnapshot{history: h.frozen()}
		if es.head, err = encodeJSON(&d.snapshotHead); err != nil {
			t.Fatal(err)
		}
		if es.tail, err = encodeJSON(&d.snapshotTail); err != nil {
			t.Fatal(err)
		}
		h.addInstance(&Instance{Key: 99, BpmnProcessID: "later"}) // after the freeze: not in this snapshot
		count(h.EvictedInstances, "p", InstCompleted)
		got, err := es.assemble()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want)+"\n" {
			t.Fatalf("assembled snapshot differs:\n got %s\nwant %s", got, want)
		}
		h = newHistory(10)
		h.addJob(&Job{Key: 8, Type: "w", State: JobCompleted})
	}
}
