package engine

import (
	"testing"

	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
)

// Start instructions of CreateProcessInstance (Zeebe 8.8's
// ProcessInstanceCreation processor), with a restart in the middle.
func TestCreateWithStartInstructions(t *testing.T) {
	bothRestarts(t, func(t *testing.T, r *rig) {
		r.deploy("create-start-instructions/start-instructions.bpmn")
		create := func(vars string, ids ...string) (*pb.CreateProcessInstanceResponse, error) {
			req := &pb.CreateProcessInstanceRequest{BpmnProcessId: "corpus-start-instructions", Version: -1, Variables: vars}
			for _, id := range ids {
				req.StartInstructions = append(req.StartInstructions, &pb.ProcessInstanceCreationStartInstruction{ElementId: id})
			}
			return r.gw.CreateProcessInstance(ctx(t), req)
		}
		for what, ids := range map[string][]string{"unknown element": {"b", "nope"}, "start event": {"start"},
			"subprocess start event": {"sub-start"}, "boundary event": {"a-error"}, "sequence flow": {"f2"},
			"inside a multi-instance subprocess": {"item"}} {
			_, err := create("{}", ids...)
			wantStatus(t, what, err, codes.InvalidArgument)
		}
		r.noJob("corpus-si-b")
		// b and c are in sub: one sub instance is created (its input mapping
		// applied, its start event and fork not taken) and holds both.
		c, err := create(`{"x":1}`, "b", "c")
		if err != nil {
			t.Fatal(err)
		}
		b := r.job("corpus-si-b")
		wantVars(t, "b", b.Variables, map[string]any{"x": 1, "local": 7})
		r.noJob("corpus-si-a")
		r.restart()
		r.complete(b, `{}`)
		r.noJob("corpus-si-item") // c still runs in the same sub
		r.complete(r.job("corpus-si-c"), `{}`)
		r.noJob("corpus-si-b")
		r.complete(r.job("corpus-si-item"), `{}`)
		r.completed(c.ProcessInstanceKey, map[string]any{"x": 1, "local": absent})
		// Starting at the end event completes the instance at once.
		e, err := create(`{}`, "end")
		if err != nil {
			t.Fatal(err)
		}
		r.completed(e.ProcessInstanceKey, nil)
	})
}
