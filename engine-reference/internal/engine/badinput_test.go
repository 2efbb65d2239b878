package engine

import (
	"strings"
	"testing"

	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
)

func wantCode(t *testing.T, what string, err error, code codes.Code, contains string) {
	t.Helper()
	if status.Code(err) != code {
		t.Fatalf("%s: want %v, got %v", what, code, err)
	}
	if contains != "" && !strings.Contains(err.Error(), contains) {
		t.Fatalf("%s: message %q does not mention %q", what, err.Error(), contains)
	}
}

func TestBadInputs(t *testing.T) {
	en := start(t, Config{NoSync: true})
	deploy := func(name, content string) error {
		_, err := en.gw.DeployResource(ctx(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: name, Content: []byte(content)}}})
		return err
	}
	wantCode(t, "malformed XML", deploy("bad.bpmn", "<bpmn:definitions"), codes.InvalidArgument, "malformed XML")
	wantCode(t, "not BPMN", deploy("bad.bpmn", "<html/>"), codes.InvalidArgument, "bpmn:definitions")
	wantCode(t, "not DMN", deploy("x.dmn", "<x/>"), codes.InvalidArgument, "'x.dmn': not a DMN file")
	wantCode(t, "other resource type", deploy("x.txt", "{}"), codes.InvalidArgument, "BPMN, DMN and forms only")
	wantCode(t, "form without an id", deploy("x.form", "{}"), codes.InvalidArgument, "non-empty string 'id'")
	timer := strings.Replace(string(bpmnFile(t, "one-task.bpmn")), `<bpmn:startEvent id="start"/>`,
		"<bpmn:startEvent id=\"start\"/>\n    <bpmn:userTask id=\"human\"/>", 1)
	wantCode(t, "unknown element", deploy("u.bpmn", timer), codes.InvalidArgument, "bpmn:userTask (id 'human') at line 5")
	noType := strings.Replace(string(bpmnFile(t, "one-task.bpmn")), `type="work"`, `type=""`, 1)
	wantCode(t, "empty job type", deploy("t.bpmn", noType), codes.InvalidArgument, "non-empty type")
	wantCode(t, "no resources", func() error { _, err := en.gw.DeployResource(ctx(t), &pb.DeployResourceRequest{}); return err }(), codes.InvalidArgument, "at least one resource")

	en.deploy("one-task.bpmn", bpmnFile(t, "one-task.bpmn"))
	create := func(vars string) error {
		_, err := en.gw.CreateProcessInstance(ctx(t), &pb.CreateProcessInstanceRequest{BpmnProcessId: "one-task", Version: -1, Variables: vars})
		return err
	}
	wantCode(t, "array variables", create(`[1,2]`), codes.InvalidArgument, "JSON object")
	wantCode(t, "broken JSON", create(`{"a":`), codes.InvalidArgument, "invalid JSON")
	wantCode(t, "trailing data", create(`{"a":1} {}`), codes.InvalidArgument, "unexpected data")
	_, err := en.gw.CreateProcessInstance(ctx(t), &pb.CreateProcessInstanceRequest{BpmnProcessId: "nope", Version: -1})
	wantCode(t, "unknown process", err, codes.NotFound, "nope")
	_, err = en.gw.CreateProcessInstance(ctx(t), &pb.CreateProcessInstanceRequest{ProcessDefinitionKey: 12345})
	wantCode(t, "unknown definition key", err, codes.NotFound, "")
	_, err = en.gw.CreateProcessInstance(ctx(t), &pb.CreateProcessInstanceRequest{BpmnProcessId: "one-task", TenantId: "acme"})
	wantCode(t, "tenant", err, codes.InvalidArgument, "multi-tenancy")

	// Invalid UTF-8 inside a string field: send raw bytes through a codec-free call.
	raw := protowire.AppendTag(nil, 2, protowire.BytesType)
	raw = protowire.AppendBytes(raw, []byte("one-task"))
	raw = protowire.AppendTag(raw, 3, protowire.VarintType)
	minusOne := int64(-1)
	raw = protowire.AppendVarint(raw, uint64(minusOne))
	raw = protowire.AppendTag(raw, 4, protowire.BytesType)
	raw = protowire.AppendBytes(raw, []byte("{\"a\":\"\xff\xfe\"}"))
	in := rawMsg(raw)
	err = en.conn.Invoke(ctx(t), "/gateway_protocol.Gateway/CreateProcessInstance", &in, new(rawMsg), forceRawCodec())
	wantCode(t, "invalid UTF-8", err, codes.InvalidArgument, "UTF-8")

	// Over the 4 MB max message size.
	err = create(`{"big":"` + strings.Repeat("x", 4<<20) + `"}`)
	wantCode(t, "over max message size", err, codes.ResourceExhausted, "")

	// Unknown keys, including keys that name no partition.
	for _, k := range []int64{0, -1, 1 << 51, 99 << 51, 1<<51 | 777777} {
		_, err = en.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: k})
		wantCode(t, "unknown job key", err, codes.NotFound, "Command 'COMPLETE' rejected with code 'NOT_FOUND'")
		_, err = en.gw.FailJob(ctx(t), &pb.FailJobRequest{JobKey: k, Retries: 1})
		wantCode(t, "unknown job key (fail)", err, codes.NotFound, "")
		_, err = en.gw.ThrowError(ctx(t), &pb.ThrowErrorRequest{JobKey: k, ErrorCode: "x"})
		wantCode(t, "unknown job key (throw)", err, codes.NotFound, "")
		_, err = en.gw.UpdateJobTimeout(ctx(t), &pb.UpdateJobTimeoutRequest{JobKey: k, Timeout: 100})
		wantCode(t, "unknown job key (timeout)", err, codes.NotFound, "")
		_, err = en.gw.ResolveIncident(ctx(t), &pb.ResolveIncidentRequest{IncidentKey: k})
		wantCode(t, "unknown incident", err, codes.NotFound, "")
		_, err = en.gw.SetVariables(ctx(t), &pb.SetVariablesRequest{ElementInstanceKey: k, Variables: "{}"})
		wantCode(t, "unknown scope", err, codes.NotFound, "")
		_, err = en.gw.CancelProcessInstance(ctx(t), &pb.CancelProcessInstanceRequest{ProcessInstanceKey: k})
		wantCode(t, "unknown instance", err, codes.NotFound, "")
	}
	_, err = en.gw.UpdateJobRetries(ctx(t), &pb.UpdateJobRetriesRequest{JobKey: 1 << 51, Retries: 0})
	wantCode(t, "zero retries", err, codes.InvalidArgument, "positive")

	// Activation input checks.
	for _, r := range []*pb.ActivateJobsRequest{
		{Type: "", Worker: "w", Timeout: 1000, MaxJobsToActivate: 1},
		{Type: "  ", Worker: "w", Timeout: 1000, MaxJobsToActivate: 1},
		{Type: "t", Worker: "w", Timeout: -1, MaxJobsToActivate: 1},
		{Type: "t", Worker: "w", Timeout: 1000, MaxJobsToActivate: 0},
	} {
		s, err := en.gw.ActivateJobs(ctx(t), r)
		if err == nil {
			_, err = s.Recv()
		}
		wantCode(t, "activate "+r.String(), err, codes.InvalidArgument, "")
	}
	for _, r := range []*pb.StreamActivatedJobsRequest{{Type: "", Timeout: 1000}, {Type: "t", Timeout: 0}, {Type: "t", Timeout: -5}} {
		s, err := en.gw.StreamActivatedJobs(ctx(t), r)
		if err == nil {
			_, err = s.Recv()
		}
		wantCode(t, "stream "+r.String(), err, codes.InvalidArgument, "")
	}
	// Completing a job with bad variables leaves it untouched.
	en.create("one-task", "")
	j := one(t, en, "work")
	_, err = en.gw.CompleteJob(ctx(t), &pb.CompleteJobRequest{JobKey: j.Key, Variables: `"just a string"`})
	wantCode(t, "complete with string variables", err, codes.InvalidArgument, "JSON object")
	complete(t, en, j.Key, `{"fine":1}`)

	// The engine still works after all of that.
	if _, err := en.gw.Topology(ctx(t), &pb.TopologyRequest{}); err != nil {
		t.Fatal(err)
	}
}
