package engine

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
)

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// testdata/format1 is a data dir written by the engine before snapshots
// (commit 9089f90: one command log file per partition, no snapshot, no key
// marks): one-task deployed, 6 instances, 2 completed, 1 failed into an
// incident, 1 activated (1 h timeout), 2 activatable. This engine opens it,
// recovers exactly that, compacts it into a snapshot on the first clean
// shutdown, and opens the result again.
func TestOpensPreviousFormatDataDir(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, "testdata/format1", dir)
	check := func(en *env) {
		t.Helper()
		in := en.instances("one-task")
		if in.CountsByState["COMPLETED"] != 2 || in.CountsByState["ACTIVE"] != 3 || in.CountsByState["INCIDENT"] != 1 || len(in.Instances) != 6 {
			t.Fatalf("instances %v (%d listed)", in.CountsByState, len(in.Instances))
		}
		for _, i := range in.Instances {
			if i.Variables == "" || !contains(i.Variables, `"big":123456789012345678901234567890`) {
				t.Fatalf("variables %s", i.Variables)
			}
		}
		jobs := en.jobs("work")
		// The activated job's 1 h deadline may have passed since the
		// fixture was written: then it is activatable again.
		if jobs.CountsByState["COMPLETED"] != 2 || jobs.CountsByState["INCIDENT"] != 1 ||
			jobs.CountsByState["ACTIVATABLE"]+jobs.CountsByState["ACTIVATED"] != 3 {
			t.Fatalf("jobs %v", jobs.CountsByState)
		}
	}
	en := start(t, Config{DataDir: dir})
	check(en)
	// Work goes on, with fresh keys.
	k := en.create("one-task", `{"big":123456789012345678901234567890}`)
	for _, i := range en.instances("one-task").Instances {
		if i.Key == k && i.CompletionCount != 0 {
			t.Fatal("new instance key collides with an old one")
		}
	}
	en.conn.Close()
	en.e.Close()
	for p := 1; p <= 3; p++ {
		d := filepath.Join(dir, "partition-"+itoa(p))
		if _, err := os.Stat(filepath.Join(d, "log")); !os.IsNotExist(err) {
			t.Fatalf("partition %d: the format-1 log was not compacted away (%v)", p, err)
		}
		if _, err := os.Stat(filepath.Join(d, "snapshot")); err != nil {
			t.Fatalf("partition %d: no snapshot: %v", p, err)
		}
	}
	en2 := start(t, Config{DataDir: dir})
	in := en2.instances("one-task")
	if len(in.Instances) != 7 || in.CountsByState["ACTIVE"] != 4 {
		t.Fatalf("after compaction: %v (%d listed)", in.CountsByState, len(in.Instances))
	}
	if _, err := en2.gw.CreateProcessInstance(ctx(t), &pb.CreateProcessInstanceRequest{BpmnProcessId: "one-task", Version: -1}); err != nil {
		t.Fatal(err)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// A snapshot written by a future format is refused with a clear message,
// never guessed at.
func TestRefusesUnknownSnapshotFormat(t *testing.T) {
	dir := t.TempDir()
	en := start(t, Config{DataDir: dir, Partitions: 1})
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	en.conn.Close()
	en.e.Close()
	path := filepath.Join(dir, "partition-1", "snapshot")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	payload := strings.Replace(string(b[8:]), `"format":3`, `"format":9`, 1)
	frame := make([]byte, 8)
	binary.LittleEndian.PutUint32(frame[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(frame[4:8], crc32.Checksum([]byte(payload), crc32.MakeTable(crc32.Castagnoli)))
	os.WriteFile(path, append(frame, payload...), 0o644)
	_, err = Start(Config{DataDir: dir, Partitions: 1})
	if err == nil || !strings.Contains(err.Error(), "snapshot format 9 is not supported") {
		t.Fatalf("want a refusal naming the format, got %v", err)
	}
	// A damaged snapshot is refused too (it is only ever renamed into place whole).
	b2, _ := os.ReadFile(path)
	b2[len(b2)/2] ^= 1
	os.WriteFile(path, b2, 0o644)
	if _, err := Start(Config{DataDir: dir, Partitions: 1}); err == nil || !strings.Contains(err.Error(), "is damaged") {
		t.Fatalf("damaged snapshot: %v", err)
	}
}
