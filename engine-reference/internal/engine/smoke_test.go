package engine

import (
	"testing"

	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
)

func TestSmokeOneTask(t *testing.T) {
	en := start(t, Config{})
	md := en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	if md.Version != 1 || md.BpmnProcessId != "one-task" {
		t.Fatalf("bad metadata %v", md)
	}
	var keys []int64
	for i := 0; i < 6; i++ {
		keys = append(keys, en.create("one-task", `{"n": 12345678901234567890123}`))
	}
	jobs := en.activate("work", 10, -1)
	if len(jobs) != 6 {
		t.Fatalf("want 6 jobs, got %d", len(jobs))
	}
	if jobs[0].Variables != `{"n":12345678901234567890123}` || jobs[0].CustomHeaders != `{"mode":"fast"}` {
		t.Fatalf("bad job %v", jobs[0])
	}
	for _, j := range jobs {
		if _, err := en.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: j.Key, Variables: `{"done":true}`}); err != nil {
			t.Fatal(err)
		}
	}
	r := en.instances("one-task")
	if r.CountsByState["COMPLETED"] != 6 {
		t.Fatalf("counts %v", r.CountsByState)
	}
}
