package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"log/slog"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"github.com/jobwire/jobwire/engine-reference/internal/wal"
)

// recordStarts parses a partition log's framing ([u32 len][u32 crc][payload]).
func recordStarts(b []byte) []int64 {
	var out []int64
	for off := 0; off+8 <= len(b); {
		out = append(out, int64(off))
		off += 8 + int(binary.LittleEndian.Uint32(b[off:]))
	}
	return out
}

// crashedWithInstances writes n instances of one-task into a fresh data
// dir (3 partitions) with an engine process that is then SIGKILLed, so the
// logs are not compacted by a clean shutdown's snapshot. It returns the dir
// and partition 1's log segment.
func crashedWithInstances(t *testing.T, n int) (string, string) {
	dir := t.TempDir()
	c := startChild(t, dir)
	_, gw, _ := dial(t, c.addr)
	if _, err := gw.DeployResource(ctx(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "one-task.bpmn", Content: bpmnFile(t, "one-task.bpmn")}}}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if _, err := gw.CreateProcessInstance(ctx(t), &pb.CreateProcessInstanceRequest{BpmnProcessId: "one-task", Version: -1, Variables: `{"i":` + itoa(i) + `}`}); err != nil {
			t.Fatal(err)
		}
	}
	c.kill()
	segs, _ := filepath.Glob(filepath.Join(dir, "partition-1", "log*"))
	if len(segs) != 1 {
		t.Fatalf("partition 1 log segments: %v", segs)
	}
	return dir, segs[0]
}

// Issue 15: one byte flipped at offset 3000 of a partition log used to cut
// the file to 2,928 bytes on restart, silently, and the key counter went
// back with it. Now the engine refuses to start, names the file and the
// offset of the damaged record, and the file is left as it was.
func TestFlippedByteMidLogRefusesToStart(t *testing.T) {
	dir, path := crashedWithInstances(t, 90)
	b, _ := os.ReadFile(path)
	starts := recordStarts(b)
	target := starts[len(starts)/2] + 20 // inside a record in the middle
	b[target] ^= 0x55
	os.WriteFile(path, b, 0o644)
	_, err := Start(Config{DataDir: dir, Partitions: 3})
	var ce *wal.CorruptError
	if !errors.As(err, &ce) || ce.Offset != starts[len(starts)/2] {
		t.Fatalf("want a CorruptError at offset %d, got %v", starts[len(starts)/2], err)
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "offset "+itoa(int(ce.Offset))) {
		t.Fatalf("error does not name the file and offset: %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, b) {
		t.Fatal("the corrupt log was modified")
	}
}

// A torn last record (a crash in the middle of an append) is repaired:
// the tail is cut, a log line says so, and only the torn record is lost.
func TestTornTailRepairedWithLogLine(t *testing.T) {
	dir, path := crashedWithInstances(t, 30)
	b, _ := os.ReadFile(path)
	starts := recordStarts(b)
	last := starts[len(starts)-1]
	os.WriteFile(path, b[:last+(int64(len(b))-last)/2], 0o644)
	var logs bytes.Buffer
	var mu sync.Mutex
	h := slog.NewTextHandler(writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return logs.Write(p) }), nil)
	en := start(t, Config{DataDir: dir, Partitions: 3, Logger: slog.New(h)})
	mu.Lock()
	line := logs.String()
	mu.Unlock()
	if !strings.Contains(line, "repaired a torn log tail") || !strings.Contains(line, "offset "+itoa(int(last))) {
		t.Fatalf("no repair log line: %q", line)
	}
	r := en.instances("one-task")
	if len(r.Instances) != 29 {
		t.Fatalf("%d instances after repair, want 29 (only the torn create lost)", len(r.Instances))
	}
	// The keys of the lost create were never acknowledged; new keys are
	// fresh anyway.
	k := en.create("one-task", `{}`)
	for _, in := range r.Instances {
		if in.Key>>51 == k>>51 && in.Key >= k {
			t.Fatalf("key %d handed out again (existing %d)", k, in.Key)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// kill -9 at random points under load, 20 rounds on one data dir: every
// acknowledged instance and job completion survives, and no key handed to
// a client is ever handed out again.
func TestKillNineRounds(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 21 engine processes")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	var mu sync.Mutex
	ackedCreates := map[int64]bool{}
	ackedCompletes := map[int64]bool{}
	reused := []int64{}
	const rounds = 20
	for round := 0; round < rounds; round++ {
		c := startChild(t, dir)
		_, gw, _ := dial(t, c.addr)
		if round == 0 {
			if _, err := gw.DeployResource(ctx(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "one-task.bpmn", Content: bpmnFile(t, "one-task.bpmn")}}}); err != nil {
				t.Fatal(err)
			}
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for i := 0; i < 3; i++ {
			wg.Add(2)
			go func() { // creator
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					cc, cancel := context.WithTimeout(context.Background(), 2*time.Second)
					r, err := gw.CreateProcessInstance(cc, &pb.CreateProcessInstanceRequest{BpmnProcessId: "one-task", Version: -1})
					cancel()
					if err != nil {
						continue
					}
					mu.Lock()
					if ackedCreates[r.ProcessInstanceKey] {
						reused = append(reused, r.ProcessInstanceKey)
					}
					ackedCreates[r.ProcessInstanceKey] = true
					mu.Unlock()
				}
			}()
			go func() { // worker
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					cc, cancel := context.WithTimeout(context.Background(), 2*time.Second)
					s, err := gw.ActivateJobs(cc, &pb.ActivateJobsRequest{Type: "work", Worker: "k", Timeout: 60000, MaxJobsToActivate: 8, RequestTimeout: -1})
					if err == nil {
						for {
							r, err := s.Recv()
							if err != nil {
								break
							}
							for _, j := range r.Jobs {
								if _, err := gw.CompleteJob(cc, &pb.CompleteJobRequest{JobKey: j.Key}); err == nil {
									mu.Lock()
									ackedCompletes[j.Key] = true
									mu.Unlock()
								}
							}
						}
					}
					cancel()
				}
			}()
		}
		time.Sleep(time.Duration(20+rng.Intn(200)) * time.Millisecond)
		c.kill() // SIGKILL mid-load
		close(stop)
		wg.Wait()
	}
	if snaps, _ := filepath.Glob(filepath.Join(dir, "partition-*", "snapshot")); len(snaps) == 0 {
		t.Fatal("no snapshot was taken during the rounds: recovery from snapshot + log tail is untested")
	}
	c := startChild(t, dir)
	_, _, admin := dial(t, c.addr)
	insts, err := admin.ListProcessInstances(ctx(t), &apb.ListProcessInstancesRequest{IncludeInstances: true})
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := admin.ListJobs(ctx(t), &apb.ListJobsRequest{IncludeJobs: true})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reused) > 0 {
		t.Fatalf("instance keys handed out twice: %v", reused)
	}
	have := map[int64]bool{}
	for _, in := range insts.Instances {
		if have[in.Key] {
			t.Fatalf("instance key %d twice in the state", in.Key)
		}
		have[in.Key] = true
	}
	for k := range ackedCreates {
		if !have[k] {
			t.Errorf("acknowledged instance %d lost", k)
		}
	}
	done := map[int64]bool{}
	seenJob := map[int64]bool{}
	for _, j := range jobs.Jobs {
		if seenJob[j.Key] || have[j.Key] {
			t.Fatalf("job key %d reused", j.Key)
		}
		seenJob[j.Key] = true
		if j.State == apb.JobState_JOB_STATE_COMPLETED {
			done[j.Key] = true
		}
	}
	for k := range ackedCompletes {
		if !done[k] {
			t.Errorf("acknowledged completion of job %d lost", k)
		}
	}
	t.Logf("%d rounds: %d acknowledged instances, %d acknowledged completions, %d instances and %d jobs recovered",
		rounds, len(ackedCreates), len(ackedCompletes), len(insts.Instances), len(jobs.Jobs))
	if len(ackedCreates) < rounds || len(ackedCompletes) == 0 {
		t.Fatalf("too little load to mean anything: %d creates, %d completions", len(ackedCreates), len(ackedCompletes))
	}
}
