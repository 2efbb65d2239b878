package engine

import (
	"strings"
	"testing"
	"time"

	apb "github.com/jobwire/jobwire/engine-reference/internal/pb/adminpb"
	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func evaluate(t *testing.T, conn grpc.ClientConnInterface, req *pb.EvaluateDecisionRequest) (*pb.EvaluateDecisionResponse, error) {
	t.Helper()
	resp := &pb.EvaluateDecisionResponse{}
	err := conn.Invoke(ctx(t), EvaluateDecisionMethod, req, resp)
	return resp, err
}

type decisionDeployment struct {
	drgKey, decisionKey int64
	drgVersion, version int32
}

func deployDMN(t *testing.T, gw pb.GatewayClient, name string, content []byte) decisionDeployment {
	t.Helper()
	r, err := gw.DeployResource(ctx(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: name, Content: content}}})
	if err != nil {
		t.Fatalf("deploy %s: %v", name, err)
	}
	var d decisionDeployment
	for _, dep := range r.Deployments {
		if m := dep.GetDecision(); m != nil {
			if m.DmnDecisionId != "corpus_risk" || m.DmnDecisionRequirementsId != "risk_drg" || m.TenantId != "<default>" {
				t.Fatalf("decision metadata %v", m)
			}
			d.decisionKey, d.version = m.DecisionKey, m.Version
			if m.DecisionRequirementsKey == 0 {
				t.Fatalf("no DRG key in %v", m)
			}
		}
		if m := dep.GetDecisionRequirements(); m != nil {
			if m.ResourceName != name || m.DmnDecisionRequirementsName != "Risk" {
				t.Fatalf("DRG metadata %v", m)
			}
			d.drgKey, d.drgVersion = m.DecisionRequirementsKey, m.Version
		}
	}
	if d.decisionKey == 0 || d.drgKey == 0 {
		t.Fatalf("deployment %v lacks decision or DRG metadata", r)
	}
	return d
}

// riskV2 is the risk table with another output for low scores.
func riskV2(v1 []byte) []byte {
	return []byte(strings.Replace(string(v1), `<outputEntry id="r3o"><text>"high"</text>`, `<outputEntry id="r3o"><text>"very high"</text>`, 1))
}

// TestDecisionsSurviveRestart: deployed decisions (versions, keys), a
// business rule task held by a DECISION_EVALUATION_ERROR incident, and
// evaluation by id and key survive a clean restart (snapshot) and a
// SIGKILL (log replay), on every partition (evaluations go round-robin).
func TestDecisionsSurviveRestart(t *testing.T) {
	for _, mode := range []string{"clean", "crash"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			var addr string
			var stop func()
			if mode == "clean" {
				e, err := Start(Config{DataDir: dir})
				if err != nil {
					t.Fatal(err)
				}
				addr, stop = e.Addr(), e.Close
			} else {
				c := startChild(t, dir)
				addr, stop = c.addr, c.kill
			}
			_, gw, admin := dial(t, addr)
			v1 := bpmnFile(t, "risk.dmn")
			d1 := deployDMN(t, gw, "risk.dmn", v1)
			d2 := deployDMN(t, gw, "risk.dmn", riskV2(v1))
			d2again := deployDMN(t, gw, "risk.dmn", riskV2(v1))
			if d1.version != 1 || d1.drgVersion != 1 || d2.version != 2 || d2.drgVersion != 2 || d2again != d2 || d2.decisionKey == d1.decisionKey {
				t.Fatalf("versions: %+v %+v %+v (an identical redeploy keeps keys and versions)", d1, d2, d2again)
			}
			if _, err := gw.DeployResource(ctx(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "loan.bpmn", Content: bpmnFile(t, "loan.bpmn")}}}); err != nil {
				t.Fatal(err)
			}
			// Score 720 and amount 6000 match two UNIQUE rules: incident.
			c, err := gw.CreateProcessInstance(ctx(t), &pb.CreateProcessInstanceRequest{BpmnProcessId: "loan", Version: -1,
				Variables: `{"applicant":{"score":720},"amount":6000}`})
			if err != nil {
				t.Fatal(err)
			}
			var inc *apb.IncidentInfo
			eventually(t, 5*time.Second, "decision incident", func() bool {
				r, err := admin.ListIncidents(ctx(t), &apb.ListIncidentsRequest{ProcessInstanceKey: c.ProcessInstanceKey})
				if err == nil && len(r.Incidents) == 1 {
					inc = r.Incidents[0]
				}
				return inc != nil
			})
			if inc.Type != "DECISION_EVALUATION_ERROR" || !strings.Contains(inc.Message, "UNIQUE") || !strings.Contains(inc.Message, "r_low") {
				t.Fatalf("incident %v", inc)
			}
			if mode == "crash" {
				// Make sure the incident is on disk before the kill: the
				// create was acknowledged after its fsync.
				time.Sleep(50 * time.Millisecond)
			}
			stop()

			var conn2 *grpc.ClientConn
			var gw2 pb.GatewayClient
			if mode == "clean" {
				e, err := Start(Config{DataDir: dir})
				if err != nil {
					t.Fatal(err)
				}
				defer e.Close()
				conn2, gw2, _ = dial(t, e.Addr())
			} else {
				c := startChild(t, dir)
				conn2, gw2, _ = dial(t, c.addr)
			}
			for i := 0; i < 6; i++ { // every partition answers twice
				r, err := evaluate(t, conn2, &pb.EvaluateDecisionRequest{DecisionId: "corpus_risk", Variables: `{"applicant":{"score":100}}`})
				if err != nil || r.DecisionOutput != `{"level":"very high","review":true}` || r.DecisionVersion != 2 || r.DecisionKey != d2.decisionKey {
					t.Fatalf("by id after restart: %v %v", r, err)
				}
				r, err = evaluate(t, conn2, &pb.EvaluateDecisionRequest{DecisionKey: d1.decisionKey, Variables: `{"applicant":{"score":100}}`})
				if err != nil || r.DecisionOutput != `{"level":"high","review":true}` || r.DecisionVersion != 1 {
					t.Fatalf("by key after restart: %v %v", r, err)
				}
			}
			d3 := deployDMN(t, gw2, "risk.dmn", v1)
			if d3.version != 3 || d3.decisionKey <= d2.decisionKey {
				t.Fatalf("deploy after restart: %+v (version 3, a new key expected)", d3)
			}
			// Fix the input and resolve: the task evaluates again (now the
			// latest version) and the instance goes on to its job.
			if _, err := gw2.SetVariables(ctx(t), &pb.SetVariablesRequest{ElementInstanceKey: c.ProcessInstanceKey, Variables: `{"amount":100}`}); err != nil {
				t.Fatal(err)
			}
			if _, err := gw2.ResolveIncident(ctx(t), &pb.ResolveIncidentRequest{IncidentKey: inc.Key}); err != nil {
				t.Fatal(err)
			}
			var jobs []*pb.ActivatedJob
			eventually(t, 5*time.Second, "job after the resolved decision", func() bool {
				s, err := gw2.ActivateJobs(ctx(t), &pb.ActivateJobsRequest{Type: "pay", Worker: "w", Timeout: 60000, MaxJobsToActivate: 5, RequestTimeout: -1})
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
				return len(jobs) > 0
			})
			if len(jobs) != 1 || !strings.Contains(jobs[0].Variables, `"risk":{"level":"low","review":false}`) {
				t.Fatalf("jobs %v", jobs)
			}
		})
	}
}

func TestEvaluateDecisionErrors(t *testing.T) {
	en := start(t, Config{})
	deployDMN(t, en.gw, "risk.dmn", bpmnFile(t, "risk.dmn"))
	cases := []struct {
		req  *pb.EvaluateDecisionRequest
		code codes.Code
		msg  string
	}{
		{&pb.EvaluateDecisionRequest{DecisionId: "nope"}, codes.NotFound, "no decision found for id 'nope'"},
		{&pb.EvaluateDecisionRequest{DecisionKey: 12345}, codes.NotFound, "no such decision"},
		{&pb.EvaluateDecisionRequest{}, codes.InvalidArgument, "decision id or a valid decision key"},
		{&pb.EvaluateDecisionRequest{DecisionId: "corpus_risk", Variables: `[1]`}, codes.InvalidArgument, "variables"},
		{&pb.EvaluateDecisionRequest{DecisionId: "corpus_risk", TenantId: "other"}, codes.InvalidArgument, "multi-tenancy"},
	}
	for _, c := range cases {
		_, err := evaluate(t, en.conn, c.req)
		if status.Code(err) != c.code || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%v: got %v, want %v containing %q", c.req, err, c.code, c.msg)
		}
	}
	// A failed evaluation is an answer naming the failed decision, with
	// the matched rules that made it fail.
	r, err := evaluate(t, en.conn, &pb.EvaluateDecisionRequest{DecisionId: "corpus_risk", Variables: `{"applicant":{"score":720},"amount":6000}`})
	if err != nil || r.FailedDecisionId != "corpus_risk" || !strings.Contains(r.FailureMessage, "UNIQUE") || r.DecisionOutput != "null" ||
		len(r.EvaluatedDecisions) != 1 || len(r.EvaluatedDecisions[0].MatchedRules) != 2 {
		t.Fatalf("failure answer: %v %v", r, err)
	}
	// A broken DMN is refused at deploy, naming the resource, the decision and the line.
	bad := strings.Replace(string(bpmnFile(t, "risk.dmn")), "&lt;= 10000", "&lt;= (", 1)
	_, err = en.gw.DeployResource(ctx(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "bad.dmn", Content: []byte(bad)}}})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "'bad.dmn'") || !strings.Contains(err.Error(), "decision 'corpus_risk'") || !strings.Contains(err.Error(), "line 9") {
		t.Fatalf("bad DMN: %v", err)
	}
}
