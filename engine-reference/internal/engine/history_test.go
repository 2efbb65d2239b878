package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Finished instances and jobs leave the live state; the admin API keeps the
// newest History of them per partition and counts the rest. After a clean
// restart (snapshot, nothing replayed) the admin view is identical.
func TestFinishedWorkIsFreedWithBoundedHistory(t *testing.T) {
	dir := t.TempDir()
	en := start(t, Config{DataDir: dir, Partitions: 1, History: 5})
	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	for i := 0; i < 20; i++ {
		en.create("one-task", `{}`)
	}
	done := 0
	for done < 20 {
		for _, j := range en.activate("work", 20, -1) {
			if _, err := en.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: j.Key}); err != nil {
				t.Fatal(err)
			}
			done++
		}
	}
	active := en.create("one-task", `{"still":"<running & ok>"}`)
	check := func(en *env) {
		t.Helper()
		in := en.instances("one-task")
		if in.CountsByState["COMPLETED"] != 20 || in.CountsByState["ACTIVE"] != 1 || len(in.Instances) != 6 {
			t.Fatalf("instances: counts %v, %d listed (want 5 finished + 1 active)", in.CountsByState, len(in.Instances))
		}
		jobs := en.jobs("work")
		if jobs.CountsByState["COMPLETED"] != 20 || jobs.CountsByState["ACTIVATABLE"] != 1 || len(jobs.Jobs) != 6 {
			t.Fatalf("jobs: counts %v, %d listed", jobs.CountsByState, len(jobs.Jobs))
		}
		var live int
		err := en.e.local.Parts[1].Query(ctx(t), func(s *partition.State) { live = len(s.Instances) + len(s.Jobs) })
		if err != nil || live != 2 {
			t.Fatalf("live state holds %d instances+jobs, want 2 (%v)", live, err)
		}
	}
	check(en)
	// Commands on freed work answer as before: NOT_FOUND.
	if _, err := en.gw.CancelProcessInstance(ctx(t), &pb.CancelProcessInstanceRequest{ProcessInstanceKey: active - 2}); status.Code(err) != codes.NotFound {
		t.Fatalf("cancel of a finished instance: %v", err)
	}
	before := en.instances("")
	en.conn.Close()
	en.e.Close()
	if _, err := os.Stat(filepath.Join(dir, "partition-1", "snapshot")); err != nil {
		t.Fatalf("no snapshot after a clean shutdown: %v", err)
	}
	en2 := start(t, Config{DataDir: dir, Partitions: 1, History: 5})
	check(en2)
	if after := en2.instances(""); after.String() != before.String() {
		t.Fatalf("admin view differs after restart:\n%v\n%v", before, after)
	}
	for _, in := range en2.instances("one-task").Instances {
		if in.Key == active && in.Variables != `{"still":"<running & ok>"}` {
			t.Fatalf("variables changed by the snapshot: %s", in.Variables)
		}
	}
	// The still-running instance completes after the restart.
	j := en2.activate("work", 1, -1)
	if len(j) != 1 || j[0].ProcessInstanceKey != active {
		t.Fatalf("activate after restart: %v", j)
	}
	if _, err := en2.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: j[0].Key}); err != nil {
		t.Fatal(err)
	}
	r, _ := en2.admin.ListProcessInstances(ctx(t), &apb.ListProcessInstancesRequest{})
	if r.CountsByState["COMPLETED"] != 21 {
		t.Fatalf("counts %v", r.CountsByState)
	}
}
