package engine

import (
	"strings"
	"testing"

	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

const formV1 = `{"id": "invoice-form", "components": [{"key": "amount", "type": "number"}], "type": "default"}`
const formV2 = `{"id": "invoice-form", "components": [{"key": "amount", "type": "number"}, {"key": "note", "type": "textfield"}], "type": "default"}`

func deployForm(t *testing.T, en *env, name, content string) (*pb.FormMetadata, error) {
	t.Helper()
	r, err := en.gw.DeployResource(ctx(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: name, Content: []byte(content)}}})
	if err != nil {
		return nil, err
	}
	if len(r.Deployments) != 1 || r.Deployments[0].GetForm() == nil {
		t.Fatalf("deployment of %s answered %v, expected one form", name, r.Deployments)
	}
	return r.Deployments[0].GetForm(), nil
}

// Forms are versioned per form id like processes (an identical redeploy
// keeps key and version), refused without an id, and survive a restart
// (snapshot on a clean shutdown); a user task is refused with a message
// that says what is supported instead.
func TestFormsDeployVersionsAndRestart(t *testing.T) {
	dir := t.TempDir()
	en := start(t, Config{DataDir: dir})
	v1, err := deployForm(t, en, "invoice.form", formV1)
	if err != nil {
		t.Fatal(err)
	}
	if v1.FormId != "invoice-form" || v1.Version != 1 || v1.FormKey <= 0 || v1.ResourceName != "invoice.form" || v1.TenantId != "<default>" {
		t.Fatalf("first deployment: %+v", v1)
	}
	again, err := deployForm(t, en, "invoice.form", formV1)
	if err != nil {
		t.Fatal(err)
	}
	if again.FormKey != v1.FormKey || again.Version != 1 {
		t.Fatalf("identical redeploy: %+v, expected key %d version 1", again, v1.FormKey)
	}
	v2, err := deployForm(t, en, "invoice.form", formV2)
	if err != nil {
		t.Fatal(err)
	}
	if v2.Version != 2 || v2.FormKey == v1.FormKey {
		t.Fatalf("changed form: %+v, expected version 2 with a new key", v2)
	}
	for _, bad := range []string{`{"components": []}`, `[1, 2]`, `{"id": ""}`, `not json`} {
		if _, err := deployForm(t, en, "bad.form", bad); status.Code(err) != codes.InvalidArgument {
			t.Errorf("form %q: %v, expected INVALID_ARGUMENT", bad, err)
		}
	}
	userTask := `<?xml version="1.0"?><bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d">
<bpmn:process id="approve" isExecutable="true"><bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="u"/>
<bpmn:userTask id="u"/><bpmn:sequenceFlow id="f2" sourceRef="u" targetRef="e"/><bpmn:endEvent id="e"/></bpmn:process></bpmn:definitions>`
	_, err = en.gw.DeployResource(ctx(t), &pb.DeployResourceRequest{Resources: []*pb.Resource{{Name: "approve.bpmn", Content: []byte(userTask)}}})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "bpmn:userTask") ||
		!strings.Contains(err.Error(), "is not supported by jobwire-engine; forms can be deployed") {
		t.Fatalf("user task: %v", err)
	}
	en.conn.Close()
	en.e.Close()

	en = start(t, Config{DataDir: dir})
	after, err := deployForm(t, en, "invoice.form", formV2)
	if err != nil {
		t.Fatal(err)
	}
	if after.FormKey != v2.FormKey || after.Version != 2 {
		t.Fatalf("after a restart, the identical redeploy answered %+v, expected key %d version 2", after, v2.FormKey)
	}
	v3, err := deployForm(t, en, "invoice.form", formV1)
	if err != nil {
		t.Fatal(err)
	}
	if v3.Version != 3 {
		t.Fatalf("after a restart, a changed form got version %d, expected 3", v3.Version)
	}
}
