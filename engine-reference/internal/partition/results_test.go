package partition

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/jobwire/jobwire/engine-reference/internal/vars"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"github.com/jobwire/jobwire/engine-reference/internal/wal"
)

// mixedBPMN: an order process with a task that can fail, retry, time out
// or throw a caught error, a parallel multi-instance task, a call
// activity, a message catch and a timer catch; the called child process;
// a plain task process.
const mixedBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="x">
  <bpmn:error id="declined" errorCode="DECLINED"/>
  <bpmn:message id="paid" name="paid"><bpmn:extensionElements><zeebe:subscription correlationKey="=orderId"/></bpmn:extensionElements></bpmn:message>
  <bpmn:process id="order" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="charge"/>
    <bpmn:serviceTask id="charge"><bpmn:extensionElements><zeebe:taskDefinition type="charge" retries="3"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:boundaryEvent id="onDeclined" attachedToRef="charge"><bpmn:errorEventDefinition errorRef="declined"/></bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="onDeclined" targetRef="declinedEnd"/>
    <bpmn:endEvent id="declinedEnd"/>
    <bpmn:sequenceFlow id="f3" sourceRef="charge" targetRef="ship"/>
    <bpmn:serviceTask id="ship"><bpmn:extensionElements><zeebe:taskDefinition type="ship"/></bpmn:extensionElements>
      <bpmn:multiInstanceLoopCharacteristics><bpmn:extensionElements><zeebe:loopCharacteristics inputCollection="= items" inputElement="item"/></bpmn:extensionElements></bpmn:multiInstanceLoopCharacteristics>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="f4" sourceRef="ship" targetRef="call"/>
    <bpmn:callActivity id="call"><bpmn:extensionElements><zeebe:calledElement processId="child"/></bpmn:extensionElements></bpmn:callActivity>
    <bpmn:sequenceFlow id="f5" sourceRef="call" targetRef="waitPaid"/>
    <bpmn:intermediateCatchEvent id="waitPaid"><bpmn:messageEventDefinition messageRef="paid"/></bpmn:intermediateCatchEvent>
    <bpmn:sequenceFlow id="f6" sourceRef="waitPaid" targetRef="pause"/>
    <bpmn:intermediateCatchEvent id="pause"><bpmn:timerEventDefinition><bpmn:timeDuration>=pauseFor</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
    <bpmn:sequenceFlow id="f7" sourceRef="pause" targetRef="e"/>
    <bpmn:endEvent id="e"/>
  </bpmn:process>
  <bpmn:process id="child" isExecutable="true">
    <bpmn:startEvent id="cs"/>
    <bpmn:sequenceFlow id="c1" sourceRef="cs" targetRef="pack"/>
    <bpmn:serviceTask id="pack"><bpmn:extensionElements><zeebe:taskDefinition type="pack"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="c2" sourceRef="pack" targetRef="ce"/>
    <bpmn:endEvent id="ce"/>
  </bpmn:process>
  <bpmn:process id="slow" isExecutable="true">
    <bpmn:startEvent id="ss"/>
    <bpmn:sequenceFlow id="s1" sourceRef="ss" targetRef="work"/>
    <bpmn:serviceTask id="work"><bpmn:extensionElements><zeebe:taskDefinition type="slow"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="s2" sourceRef="work" targetRef="se"/>
    <bpmn:endEvent id="se"/>
  </bpmn:process>
</bpmn:definitions>`

// selfHooks routes forwarded commands (message subscriptions) back to the
// single partition.
type selfHooks struct{ p *Partition }

func (h *selfHooks) ReservePush(string, string) (PushTarget, bool) { return nil, false }
func (h *selfHooks) JobsAvailable(string)                          {}
func (h *selfHooks) Forward(_ int32, c *Command) bool {
	cp := *c
	h.p.Post(&cp)
	return true
}

func openMixed(t *testing.T, dir string) *Partition {
	t.Helper()
	h := &selfHooks{}
	p, err := Open(Config{ID: 1, Count: 1, DataDir: dir, NoSync: true, Defs: NewRegistry(), History: 50, Hooks: h})
	if err != nil {
		t.Fatal(err)
	}
	h.p = p
	return p
}

// mixedWorkload runs deploy, create, activate, complete, fail with
// retries and back-off, an incident resolved after updating retries, a
// thrown and caught error, multi-instance, call activities, messages
// (published before and after the subscription opened), timers, job
// time-outs, variables and a cancel on p, and waits until nothing is due.
func mixedWorkload(t *testing.T, p *Partition) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	do := func(c *Command) any {
		t.Helper()
		r, err := p.Submit(ctx, c)
		if err != nil {
			t.Fatalf("%s: %v", c.Op, err)
		}
		return r
	}
	activate := func(typ string, n int32, timeout int64) []*gatewaypb.ActivatedJob {
		t.Helper()
		r := do(&Command{Op: OpActivate, Type: typ, Worker: "w-" + typ, MaxJobs: n, Timeout: timeout})
		jobs, _ := r.([]*gatewaypb.ActivatedJob)
		return jobs
	}
	waitFor := func(what string, cond func(s *State) bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			ok := false
			if err := p.Query(ctx, func(s *State) { ok = cond(s) }); err != nil {
				t.Fatal(err)
			}
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	do(&Command{Op: OpDeploy, Resources: []Resource{{Name: "mixed.bpmn", Content: []byte(mixedBPMN)}}})
	// A message published before its subscription exists (buffered, TTL).
	do(&Command{Op: OpPublish, Name: "paid", CorrelationKey: "o0", TTL: 600_000, MessageID: "m-o0", Variables: `{"paidBy":"early"}`})
	const orders = 6
	pause := func(i int) string { // order 3 stays at its timer
		if i == 3 {
			return "PT1H"
		}
		return "PT0.2S"
	}
	var insts []int64
	for i := 0; i < orders; i++ {
		r := do(&Command{Op: OpCreate, BpmnProcessID: "order", Version: -1, Variables: fmt.Sprintf(`{"orderId":"o%d","items":[1,2,3],"n":%d,"pauseFor":%q}`, i, i, pause(i))})
		insts = append(insts, r.(*gatewaypb.CreateProcessInstanceResponse).ProcessInstanceKey)
	}
	charge := activate("charge", orders, 600_000)
	if len(charge) != orders {
		t.Fatalf("%d charge jobs activated, want %d", len(charge), orders)
	}
	// order 1: throws DECLINED (caught by the boundary event, ends there)
	do(&Command{Op: OpThrowError, Key: charge[1].Key, ErrorCode: "DECLINED", ErrorMessage: "card declined", Variables: `{"reason":"card"}`})
	// order 2: fails with retries left and a back-off, then completes
	do(&Command{Op: OpFail, Key: charge[2].Key, Retries: 2, Backoff: 100, ErrorMessage: "try again"})
	// order 3: fails without retries (incident), retries updated, resolved
	do(&Command{Op: OpFail, Key: charge[3].Key, Retries: 0, ErrorMessage: "broken"})
	var incKey int64
	waitFor("the incident", func(s *State) bool {
		for _, inc := range s.Incidents {
			incKey = inc.Key
		}
		return incKey != 0
	})
	do(&Command{Op: OpUpdateRetries, Key: charge[3].Key, Retries: 1})
	do(&Command{Op: OpResolve, Key: incKey})
	// order 4: canceled while charging
	do(&Command{Op: OpCancel, Key: insts[4]})
	// order 5: variables set on the instance
	do(&Command{Op: OpSetVariables, Key: insts[5], Variables: `{"note":"vip"}`})
	for _, i := range []int{0, 5} {
		do(&Command{Op: OpComplete, Key: charge[i].Key, Variables: fmt.Sprintf(`{"charged":%d}`, i)})
	}
	waitFor("the retried and resolved charge jobs", func(s *State) bool {
		n := 0
		for _, j := range s.Jobs {
			if j.Type == "charge" && j.State == JobActivatable {
				n++
			}
		}
		return n == 2
	})
	for _, j := range activate("charge", 10, 600_000) {
		do(&Command{Op: OpComplete, Key: j.Key})
	}
	// multi-instance: 3 ship jobs per order that got past charging (0, 2, 3, 5)
	ships := activate("ship", 100, 600_000)
	if len(ships) != 12 {
		t.Fatalf("%d ship jobs, want 12", len(ships))
	}
	for i, j := range ships {
		if i == 4 {
			do(&Command{Op: OpFail, Key: j.Key, Retries: 2, ErrorMessage: "flaky"}) // back at once
			continue
		}
		do(&Command{Op: OpComplete, Key: j.Key, Variables: fmt.Sprintf(`{"shipped%d":true}`, i)})
	}
	for _, j := range activate("ship", 10, 600_000) {
		do(&Command{Op: OpComplete, Key: j.Key})
	}
	// call activities: one child instance per order, its job completed
	waitFor("four child instances", func(s *State) bool {
		n := 0
		for _, in := range s.Instances {
			if in.BpmnProcessID == "child" {
				n++
			}
		}
		return n == 4
	})
	for _, j := range activate("pack", 10, 600_000) {
		do(&Command{Op: OpComplete, Key: j.Key, Variables: `{"packed":true}`})
	}
	// messages: o0 was buffered; o2 and o3 now (TTL 0: once their
	// subscriptions are open on the message side, which the instance side
	// opens asynchronously); o5 never (stays waiting)
	waitFor("the subscriptions of o2 and o3", func(s *State) bool {
		open := 0
		for _, ms := range s.evs().MsgSubs {
			if ms.CorrKey == "o2" || ms.CorrKey == "o3" {
				open++
			}
		}
		return open == 2
	})
	for _, k := range []string{"o2", "o3"} {
		do(&Command{Op: OpPublish, Name: "paid", CorrelationKey: k, TTL: 0, Variables: fmt.Sprintf(`{"paidBy":%q}`, k)})
	}
	// job time-outs: activated for 50 ms, timed out, activated again
	for i := 0; i < 3; i++ {
		do(&Command{Op: OpCreate, BpmnProcessID: "slow", Version: -1})
	}
	if n := len(activate("slow", 10, 50)); n != 3 {
		t.Fatalf("%d slow jobs activated, want 3", n)
	}
	waitFor("timed-out jobs and fired timers", func(s *State) bool {
		n, done := 0, 0
		for _, j := range s.Jobs {
			if j.Type == "slow" && j.State == JobActivatable && j.Timeouts == 1 {
				n++
			}
		}
		for _, in := range s.History.Instances {
			if in.BpmnProcessID == "order" && in.State == InstCompleted {
				done++
			}
		}
		return n == 3 && done == 3 // orders 0 and 2 paid and waited; 1 ended at the error
	})
	slow := activate("slow", 10, 600_000)
	do(&Command{Op: OpComplete, Key: slow[0].Key})
	// one more order left waiting at its charge job, activated
	do(&Command{Op: OpCreate, BpmnProcessID: "order", Version: -1, Variables: `{"orderId":"o9","items":[],"pauseFor":"PT1S"}`})
	activate("charge", 1, 600_000)
}

// stopWithoutSnapshot stops a partition the way a crash would leave it: no
// closing snapshot, the log as appended.
func stopWithoutSnapshot(p *Partition) {
	close(p.stop)
	<-p.done
	p.log.Close()
}

// fullImage is the complete snapshot encoding of a partition's state
// (definitions included) without the processing clock.
func fullImage(t *testing.T, p *Partition) []byte {
	t.Helper()
	es, err := p.encodeSnapshot(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := es.assemble()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "lastNow")
	out, _ := json.Marshal(m)
	return out
}

func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(i-300, 0)
	return fmt.Sprintf("at byte %d\nlive:      …%s\nrecovered: …%s", i, a[from:min(i+200, len(a))], b[from:min(i+200, len(b))])
}

func logRecords(t *testing.T, dir string) []string {
	t.Helper()
	segs, err := listSegments(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range segs {
		l, err := wal.Open(segmentPath(dir, n), true, func(b []byte) error { out = append(out, string(b)); return nil })
		if err != nil {
			t.Fatal(err)
		}
		l.Close()
	}
	return out
}

// The state recovered from the log alone (no snapshot), and from a
// snapshot plus the log after it, is the live state, byte for byte in the
// snapshot encoding, after a workload that uses every kind of state.
func TestResultsRecoveryEqualsLiveState(t *testing.T) {
	old, oldRatio, oldTail := SnapshotEvery, SnapshotLogRatio, SnapshotTailBytes
	defer func() { SnapshotEvery, SnapshotLogRatio, SnapshotTailBytes = old, oldRatio, oldTail }()
	for _, tc := range []struct {
		name  string
		every int64
	}{{"log only", 1 << 40}, {"snapshot and tail", 25}} {
		t.Run(tc.name, func(t *testing.T) {
			SnapshotEvery, SnapshotLogRatio, SnapshotTailBytes = tc.every, 1<<40, 1<<40
			dir := t.TempDir()
			p := openMixed(t, dir)
			go p.Run()
			mixedWorkload(t, p)
			stopWithoutSnapshot(p)
			live := fullImage(t, p)
			pdir := filepath.Join(dir, "partition-1")
			_, err := os.Stat(filepath.Join(pdir, "snapshot"))
			if hasSnap := err == nil; hasSnap != (tc.every < 1000) {
				t.Fatalf("snapshot present: %v", hasSnap)
			}
			recs := logRecords(t, pdir)
			if len(recs) == 0 {
				t.Fatal("nothing in the log to recover from")
			}
			for _, r := range recs {
				if !strings.HasPrefix(r, string(resultsPrefix)) {
					t.Fatalf("not a results record: %.100s", r)
				}
			}
			for _, want := range []string{`"ev":`, `"hinst":`, `"incs":`, `"xincs":`, `"defs":`} {
				found := false
				for _, r := range recs {
					found = found || strings.Contains(r, want)
				}
				if !found && tc.every > 1000 {
					t.Fatalf("no record holds %s: the workload does not cover it", want)
				}
			}
			p2 := openMixed(t, dir)
			rec := fullImage(t, p2)
			p2.log.Close()
			if !bytes.Equal(live, rec) {
				t.Fatalf("recovered state differs from the live state %s", firstDiff(live, rec))
			}
			for _, want := range []string{`"subs":{`, `"timers":{`, `"messages":{`, `"Timeouts":1`, `"ErrorCode":"DECLINED"`} {
				if !strings.Contains(string(live), want) {
					t.Fatalf("the final state has no %s: the comparison would miss it", want)
				}
			}
		})
	}
}

// A data dir written by an older engine (command records, version 1)
// recovers through the processors and continues with results records: a
// restart after the upgrade recovers the same state from the mixed log.
func TestUpgradeFromCommandRecords(t *testing.T) {
	dir := t.TempDir()
	pdir := filepath.Join(dir, "partition-1")
	os.MkdirAll(pdir, 0o755)
	l, err := wal.Open(segmentPath(pdir, 1), true, func([]byte) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixMilli()
	key := func(n int64) int64 { return 1<<KeyBits | n }
	// What the previous engine logged for: deploy (keys 1, 2), create (3
	// instance, 4 element, 5 job), an activation of job 5, a create (6, 7,
	// 8) — version 1 command records with their key marks.
	for _, c := range []*Command{
		{V: 1, Op: OpDeploy, Now: now, Resources: []Resource{{Name: "p.bpmn", Content: []byte(waitBPMN)}}, KeyMark: 2},
		{V: 1, Op: OpCreate, Now: now, BpmnProcessID: "p", Version: -1, DefKey: key(2), Variables: `{"a":1}`, KeyMark: 5},
		{V: 1, Op: OpActivate, Now: now, Type: "w", Worker: "old", Timeout: 600_000, JobKeys: []int64{key(5)}, KeyMark: 5},
		{V: 1, Op: OpCreate, Now: now, BpmnProcessID: "p", Version: -1, DefKey: key(2), KeyMark: 8},
	} {
		b, _ := json.Marshal(c)
		if err := l.Append(b); err != nil {
			t.Fatal(err)
		}
	}
	l.Flush()
	l.Close()
	p, err := Open(Config{ID: 1, Count: 1, DataDir: dir, NoSync: true, Defs: NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	go p.Run()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := p.Submit(ctx, &Command{Op: OpComplete, Key: key(5), Variables: `{"b":2}`}); err != nil {
		t.Fatalf("completing the job activated before the upgrade: %v", err)
	}
	r, err := p.Submit(ctx, &Command{Op: OpActivate, Type: "w", Worker: "new", MaxJobs: 5, Timeout: 600_000})
	if err != nil || len(r.([]*gatewaypb.ActivatedJob)) != 1 || r.([]*gatewaypb.ActivatedJob)[0].Key != key(8) {
		t.Fatalf("activation after the upgrade: %v %v", r, err)
	}
	if _, err := p.Submit(ctx, &Command{Op: OpCreate, BpmnProcessID: "p", Version: -1}); err != nil {
		t.Fatal(err)
	}
	stopWithoutSnapshot(p)
	live := fullImage(t, p)
	recs := logRecords(t, pdir)
	if len(recs) != 7 || !strings.HasPrefix(recs[3], `{"v":1,`) || !strings.HasPrefix(recs[4], string(resultsPrefix)) {
		t.Fatalf("log after the upgrade: %d records, want 4 command records then 3 results records", len(recs))
	}
	p2, err := Open(Config{ID: 1, Count: 1, DataDir: dir, NoSync: true, Defs: NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	rec := fullImage(t, p2)
	p2.log.Close()
	if !bytes.Equal(live, rec) {
		t.Fatalf("recovered state differs from the live state %s", firstDiff(live, rec))
	}
	if p2.st.counter != 11 {
		t.Fatalf("key counter %d after recovery, want 11", p2.st.counter)
	}
}

// Recovery from results records runs no processing code: with every
// processor disabled (dispatch panics), the state still recovers, equal to
// the live one; the same hook does stop the replay of a command record,
// so it would catch processing during recovery.
func TestResultsRecoveryRunsNoProcessor(t *testing.T) {
	old := SnapshotEvery
	SnapshotEvery = 1 << 40
	defer func() { SnapshotEvery = old }()
	dir := t.TempDir()
	p := openMixed(t, dir)
	go p.Run()
	mixedWorkload(t, p)
	stopWithoutSnapshot(p)
	live := fullImage(t, p)

	calls := 0
	dispatchHook = func(c *Command) { calls++; panic("processing code ran during recovery: " + c.Op) }
	defer func() { dispatchHook = nil }()
	p2 := openMixed(t, dir)
	rec := fullImage(t, p2)
	p2.log.Close()
	if calls != 0 || !bytes.Equal(live, rec) {
		t.Fatalf("recovery dispatched %d commands; equal state: %v", calls, bytes.Equal(live, rec))
	}

	// The control: a command record is replayed through dispatch.
	pdir := filepath.Join(dir, "partition-1")
	segs, _ := listSegments(pdir)
	l, err := wal.Open(segmentPath(pdir, segs[len(segs)-1]), true, func([]byte) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(&Command{V: 1, Op: OpCreate, Now: time.Now().UnixMilli(), BpmnProcessID: "slow", Version: -1})
	l.Append(b)
	l.Close()
	func() {
		defer func() {
			if x := recover(); x == nil || !strings.Contains(fmt.Sprint(x), "processing code ran during recovery: create") {
				t.Fatalf("the hook did not see the replayed command record: %v", x)
			}
		}()
		openMixed(t, dir)
	}()
}

// Partitions that share a definition registry (dev, a broker's
// partitions): a distribution whose definitions another partition already
// registered is still logged by this partition, so it recovers alone, with
// a registry of its own (a broker restarted with its partitions opened in
// any order).
func TestResultsDistributionRecoversWithoutTheSharedRegistry(t *testing.T) {
	dir := t.TempDir()
	defs := NewRegistry()
	var parts []*Partition
	for id := int32(1); id <= 2; id++ {
		p, err := Open(Config{ID: id, Count: 2, DataDir: dir, NoSync: true, Defs: defs})
		if err != nil {
			t.Fatal(err)
		}
		go p.Run()
		parts = append(parts, p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res := []Resource{{Name: "p.bpmn", Content: []byte(waitBPMN)}}
	r, err := parts[0].Submit(ctx, &Command{Op: OpDeploy, Resources: res})
	if err != nil {
		t.Fatal(err)
	}
	d := r.(*gatewaypb.DeployResourceResponse).Deployments[0].GetProcess()
	// In the shared registry already: partition 2 registers nothing new.
	if _, err := parts[1].Submit(ctx, &Command{Op: OpDistribute, Resources: res, Defs: []DefMeta{{Key: d.ProcessDefinitionKey,
		BpmnProcessID: "p", Version: d.Version, ResourceName: "p.bpmn", DeploymentKey: r.(*gatewaypb.DeployResourceResponse).Key}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := parts[1].Submit(ctx, &Command{Op: OpCreate, BpmnProcessID: "p", Version: -1}); err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		stopWithoutSnapshot(p)
	}
	live := fullImage(t, parts[1])
	p2, err := Open(Config{ID: 2, Count: 2, DataDir: dir, NoSync: true, Defs: NewRegistry()})
	if err != nil {
		t.Fatalf("partition 2 alone: %v", err)
	}
	rec := fullImage(t, p2)
	p2.log.Close()
	if !bytes.Equal(live, rec) {
		t.Fatalf("recovered state differs from the live state %s", firstDiff(live, rec))
	}
}

const miOutBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="x">
  <bpmn:process id="mi" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="each"/>
    <bpmn:serviceTask id="each"><bpmn:extensionElements><zeebe:taskDefinition type="each"/></bpmn:extensionElements>
      <bpmn:multiInstanceLoopCharacteristics><bpmn:extensionElements><zeebe:loopCharacteristics inputCollection="= items" inputElement="item" outputCollection="results" outputElement="= item * 2"/></bpmn:extensionElements></bpmn:multiInstanceLoopCharacteristics>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="each" targetRef="wait"/>
    <bpmn:serviceTask id="wait"><bpmn:extensionElements><zeebe:taskDefinition type="after"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f3" sourceRef="wait" targetRef="e"/>
    <bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`

// logOnlyPartition runs a partition that never snapshots (its log holds
// every record, for log-size tests) with bpmn deployed.
func logOnlyPartition(t *testing.T, bpmn string) (*Partition, string, context.Context) {
	t.Helper()
	old, oldTail := SnapshotEvery, SnapshotTailBytes
	SnapshotEvery, SnapshotTailBytes = 1<<40, 1<<40
	t.Cleanup(func() { SnapshotEvery, SnapshotTailBytes = old, oldTail })
	dir := t.TempDir()
	p, err := Open(Config{ID: 1, Count: 1, DataDir: dir, NoSync: true, Defs: NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	go p.Run()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	if _, err := p.Submit(ctx, &Command{Op: OpDeploy, Resources: []Resource{{Name: "p.bpmn", Content: []byte(bpmn)}}}); err != nil {
		t.Fatal(err)
	}
	return p, dir, ctx
}

// A multi-instance body of n items costs O(n) log bytes over its life:
// each inner instance's results carry the outputs it set, not the whole
// collection again (which made a 1,000-item body log 76 MB). The outputs
// rebuilt from the records are the live ones (VerifyResults, and the
// recovered state here).
func TestResultsMultiInstanceLogGrowsLinearly(t *testing.T) {
	defer withoutVerifyResults()() // compared once at the end (the state per batch is O(n))
	perItem := map[int]float64{}
	for _, n := range []int{50, 400} {
		p, dir, ctx := logOnlyPartition(t, miOutBPMN)
		items := make([]string, n)
		for i := range items {
			items[i] = fmt.Sprint(i)
		}
		before := p.log.Bytes()
		if _, err := p.Submit(ctx, &Command{Op: OpCreate, BpmnProcessID: "mi", Version: -1, Variables: `{"items":[` + strings.Join(items, ",") + `]}`}); err != nil {
			t.Fatal(err)
		}
		for done := 0; done < n; {
			r, err := p.Submit(ctx, &Command{Op: OpActivate, Type: "each", Worker: "t", MaxJobs: 64, Timeout: 60_000})
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range r.([]*gatewaypb.ActivatedJob) {
				if _, err := p.Submit(ctx, &Command{Op: OpComplete, Key: j.Key}); err != nil {
					t.Fatal(err)
				}
				done++
			}
		}
		perItem[n] = float64(p.log.Bytes()-before) / float64(n)
		stopWithoutSnapshot(p)
		live := fullImage(t, p)
		if !strings.Contains(string(live), `"results":[0,2,4,6`) {
			t.Fatalf("the outputs are not in the instance: %.400s", live)
		}
		p2, err := Open(Config{ID: 1, Count: 1, DataDir: dir, NoSync: true, Defs: NewRegistry()})
		if err != nil {
			t.Fatal(err)
		}
		rec := fullImage(t, p2)
		p2.log.Close()
		if !bytes.Equal(live, rec) {
			t.Fatalf("n=%d: recovered state differs from the live state %s", n, firstDiff(live, rec))
		}
	}
	if perItem[400] > 1.5*perItem[50] {
		t.Fatalf("log bytes per item grow with the collection: %.0f at 50 items, %.0f at 400", perItem[50], perItem[400])
	}
	t.Logf("log bytes per item: %.0f at 50 items, %.0f at 400", perItem[50], perItem[400])
}

// stepChain is a chain of n "step" service tasks t1..tn from the element
// `from` to the element `to` (sequence flows named prefix0..prefixn).
func stepChain(from, to, prefix string, n int) string {
	var b strings.Builder
	prev := from
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `<bpmn:sequenceFlow id="%s%d" sourceRef="%s" targetRef="t%d"/>`, prefix, i-1, prev, i)
		fmt.Fprintf(&b, `<bpmn:serviceTask id="t%d"><bpmn:extensionElements><zeebe:taskDefinition type="step"/></bpmn:extensionElements></bpmn:serviceTask>`, i)
		prev = fmt.Sprintf("t%d", i)
	}
	fmt.Fprintf(&b, `<bpmn:sequenceFlow id="%s%d" sourceRef="%s" targetRef="%s"/>`, prefix, n, prev, to)
	return b.String()
}

var fiveStepsBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="x">
  <bpmn:process id="five" isExecutable="true">
    <bpmn:startEvent id="s"/>` + stepChain("s", "e", "f", 5) + `
    <bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`

// An instance with a large variable document logs it once, when it is
// created: a later command logs only the variables it set (record version
// 3), not the whole document again. Before, each of these steps logged the
// 64 KiB document, so a long-lived instance with a payload cost its
// payload size per command. Recovery from the log alone gives the live
// state (variables merged from the deltas).
func TestResultsLogOnlyTheVariablesACommandSets(t *testing.T) {
	p, dir, ctx := logOnlyPartition(t, fiveStepsBPMN)
	big := strings.Repeat("x", 64<<10)
	before := p.log.Bytes()
	if _, err := p.Submit(ctx, &Command{Op: OpCreate, BpmnProcessID: "five", Version: -1, Variables: `{"big":"` + big + `","step":0}`}); err != nil {
		t.Fatal(err)
	}
	created := p.log.Bytes() - before
	if created < 64<<10 {
		t.Fatalf("the create logged %d bytes, less than its variables", created)
	}
	// the fifth step would finish the instance (logged in full for the history)
	steps := completeSteps(t, p, ctx, 4, "the whole 64 KiB document", func(i int) string { return fmt.Sprintf(`{"step":%d,"s%d":true}`, i, i) })
	t.Logf("create %d bytes; completes %v bytes", created, steps)
	p2 := recoversLiveState(t, p, dir)
	var in *Instance
	for _, x := range p2.st.Instances {
		in = x
	}
	if in == nil || string(in.Vars["step"]) != "4" || string(in.Vars["s1"]) != "true" || string(in.Vars["s4"]) != "true" || len(in.Vars["big"]) != len(big)+2 {
		t.Fatalf("recovered variables are wrong: step %s s1 %s s4 %s big %d bytes", in.Vars["step"], in.Vars["s1"], in.Vars["s4"], len(in.Vars["big"]))
	}
}

var subLocalBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="x">
  <bpmn:process id="sub" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f0" sourceRef="s" targetRef="scope"/>
    <bpmn:subProcess id="scope">
      <bpmn:extensionElements><zeebe:ioMapping><zeebe:input source="= big" target="payload"/><zeebe:input source="= 0" target="counter"/></zeebe:ioMapping></bpmn:extensionElements>
      <bpmn:startEvent id="is"/>` + stepChain("is", "ie", "g", 3) + `
      <bpmn:endEvent id="ie"/>
    </bpmn:subProcess>
    <bpmn:sequenceFlow id="f1" sourceRef="scope" targetRef="e"/>
    <bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`

// The same for an element instance's local variables: a subprocess whose
// input mapping holds a 64 KiB local variable logs it when the subprocess
// is entered, not again with every command inside it (each looks the
// scope up, and the whole element instance used to be logged then). A
// variable set on the scope (counter, defined there) is logged as a delta
// and recovered.
func TestResultsLogOnlyTheLocalVariablesACommandSets(t *testing.T) {
	p, dir, ctx := logOnlyPartition(t, subLocalBPMN)
	big := strings.Repeat("y", 64<<10)
	if _, err := p.Submit(ctx, &Command{Op: OpCreate, BpmnProcessID: "sub", Version: -1, Variables: `{"big":"` + big + `"}`}); err != nil {
		t.Fatal(err)
	}
	// t1 and t2; t3 would end the scope. "counter" is defined on the
	// scope, so a new value lands there.
	steps := completeSteps(t, p, ctx, 2, "the scope's 64 KiB local variable", func(i int) string { return fmt.Sprintf(`{"counter":%d}`, i) })
	t.Logf("completes inside the scope: %v bytes", steps)
	var scopeVars vars.Doc
	for _, e := range p.st.Elems {
		if e.Element.ID == "scope" {
			scopeVars = e.Vars
		}
	}
	if string(scopeVars["counter"]) != "2" || len(scopeVars["payload"]) != len(big)+2 {
		t.Fatalf("the scope holds counter %s and a payload of %d bytes; want 2 and %d (the test does not exercise a local delta)",
			scopeVars["counter"], len(scopeVars["payload"]), len(big)+2)
	}
	recoversLiveState(t, p, dir)
}

// completeSteps activates and completes n "step" jobs one at a time, the
// i-th with variables(i), and returns the log bytes each complete wrote;
// it fails if one wrote more than 4 KiB (what: what that would mean).
func completeSteps(t *testing.T, p *Partition, ctx context.Context, n int, what string, variables func(int) string) []int64 {
	t.Helper()
	var steps []int64
	for i := 1; i <= n; i++ {
		r, err := p.Submit(ctx, &Command{Op: OpActivate, Type: "step", Worker: "t", MaxJobs: 1, Timeout: 60_000})
		if err != nil {
			t.Fatal(err)
		}
		jobs := r.([]*gatewaypb.ActivatedJob)
		if len(jobs) != 1 {
			t.Fatalf("step %d: %d jobs activated", i, len(jobs))
		}
		at := p.log.Bytes()
		if _, err := p.Submit(ctx, &Command{Op: OpComplete, Key: jobs[0].Key, Variables: variables(i)}); err != nil {
			t.Fatal(err)
		}
		steps = append(steps, p.log.Bytes()-at)
	}
	for i, b := range steps {
		if b > 4<<10 {
			t.Fatalf("step %d's complete logged %d bytes (%s again?); all steps: %v", i+1, b, what, steps)
		}
	}
	return steps
}

// recoversLiveState stops p as a crash would leave it and checks that the
// log alone recovers its state byte for byte; returns the recovered
// partition (closed with the test).
func recoversLiveState(t *testing.T, p *Partition, dir string) *Partition {
	t.Helper()
	stopWithoutSnapshot(p)
	live := fullImage(t, p)
	p2, err := Open(Config{ID: 1, Count: 1, DataDir: dir, NoSync: true, Defs: NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p2.log.Close() })
	if rec := fullImage(t, p2); !bytes.Equal(live, rec) {
		t.Fatalf("recovered state differs from the live state %s", firstDiff(live, rec))
	}
	return p2
}
