package cluster

import (
	"os"
	"strings"
	"testing"

	"github.com/jobwire/jobwire/engine-reference/internal/engine"
	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
)

// Decisions across broker processes: deployed on partition 1 (broker 0),
// distributed to the partitions of broker 1, evaluated round-robin on all
// four partitions through the broker port, and called by a business rule
// task of an instance on either broker.
func TestDecisionsAcrossBrokers(t *testing.T) {
	conn, gw := twoBrokerGateway(t)
	var res []*pb.Resource
	for _, f := range []string{"risk.dmn", "loan.bpmn"} {
		b, err := os.ReadFile("../engine/testdata/" + f)
		if err != nil {
			t.Fatal(err)
		}
		res = append(res, &pb.Resource{Name: f, Content: b})
	}
	dep, err := gw.DeployResource(ctxT(t), &pb.DeployResourceRequest{Resources: res})
	if err != nil {
		t.Fatal(err)
	}
	var key int64
	for _, d := range dep.Deployments {
		if m := d.GetDecision(); m != nil {
			key = m.DecisionKey
		}
	}
	partitions := map[int64]bool{}
	for i := 0; i < 8; i++ {
		out := &pb.EvaluateDecisionResponse{}
		req := &pb.EvaluateDecisionRequest{DecisionId: "corpus_risk", Variables: `{"applicant":{"score":600},"amount":6000}`}
		if i%2 == 1 {
			req = &pb.EvaluateDecisionRequest{DecisionKey: key, Variables: req.Variables}
		}
		if err := conn.Invoke(ctxT(t), engine.EvaluateDecisionMethod, req, out); err != nil {
			t.Fatalf("evaluate %d: %v", i, err)
		}
		if out.DecisionOutput != `{"level":"medium","review":true}` || out.DecisionKey != key || len(out.EvaluatedDecisions) != 1 {
			t.Fatalf("evaluate %d: %v", i, out)
		}
		partitions[out.DecisionEvaluationKey>>partition.KeyBits] = true
	}
	if len(partitions) != 4 {
		t.Fatalf("evaluations ran on partitions %v, want all 4", partitions)
	}
	instParts := map[int64]bool{}
	for i := 0; i < 4; i++ { // round-robin: instances on every partition of both brokers
		r, err := gw.CreateProcessInstance(ctxT(t), &pb.CreateProcessInstanceRequest{BpmnProcessId: "loan", Version: -1,
			Variables: `{"applicant":{"score":800},"amount":10}`})
		if err != nil {
			t.Fatal(err)
		}
		instParts[r.ProcessInstanceKey>>partition.KeyBits] = true
	}
	var jobs []*pb.ActivatedJob
	waitFor(t, "4 jobs after the business rule tasks", func() bool {
		s, err := gw.ActivateJobs(ctxT(t), &pb.ActivateJobsRequest{Type: "pay", Worker: "w", Timeout: 60000, MaxJobsToActivate: 10, RequestTimeout: -1})
		if err != nil {
			return false
		}
		for {
			r, err := s.Recv()
			if err != nil {
				break
			}
			jobs = append(jobs, r.Jobs...)
		}
		return len(jobs) >= 4
	})
	for _, j := range jobs {
		if !strings.Contains(j.Variables, `"risk":{"level":"low","review":false}`) {
			t.Fatalf("job %d variables %s", j.Key, j.Variables)
		}
	}
	if len(jobs) != 4 || len(instParts) != 4 {
		t.Fatalf("%d jobs, instances on partitions %v", len(jobs), instParts)
	}
}
