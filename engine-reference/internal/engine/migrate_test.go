package engine

import (
	"testing"

	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"google.golang.org/grpc/codes"
)

// MigrateProcessInstance (Zeebe 8.8's process instance migration), with a
// restart (snapshot, SIGKILL) in the middle.

type mapping = pb.MigrateProcessInstanceRequest_MappingInstruction

func (r *rig) migrate(pi, target int64, maps ...*mapping) error {
	_, err := r.gw.MigrateProcessInstance(ctx(r.t), &pb.MigrateProcessInstanceRequest{ProcessInstanceKey: pi,
		MigrationPlan: &pb.MigrateProcessInstanceRequest_MigrationPlan{TargetProcessDefinitionKey: target, MappingInstructions: maps}})
	return err
}

func maps(pairs ...string) []*mapping {
	var out []*mapping
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, &mapping{SourceElementId: pairs[i], TargetElementId: pairs[i+1]})
	}
	return out
}

func TestMigrateBetweenVersions(t *testing.T) {
	bothRestarts(t, func(t *testing.T, r *rig) {
		en := r.env()
		v1 := en.deploy("migrate-v1.bpmn", corpusFile(t, "migrate-between-versions/migrate-v1.bpmn"))
		v2 := en.deploy("migrate-v2.bpmn", corpusFile(t, "migrate-between-versions/migrate-v2.bpmn"))
		if v1.Version != 1 || v2.Version != 2 {
			t.Fatalf("versions %d %d", v1.Version, v2.Version)
		}
		pi, err := r.gw.CreateProcessInstance(ctx(t), &pb.CreateProcessInstanceRequest{ProcessDefinitionKey: v1.ProcessDefinitionKey, Variables: `{"x":1}`})
		if err != nil {
			t.Fatal(err)
		}
		var jobKey int64
		eventually(t, 5e9, "the job of a", func() bool {
			if js := en.jobs("corpus-mig-a").Jobs; len(js) == 1 {
				jobKey = js[0].Key
			}
			return jobKey != 0
		})
		k := pi.ProcessInstanceKey
		refuse := func(what string, err error, code codes.Code) { t.Helper(); wantStatus(t, what, err, code) }
		refuse("unknown instance", r.migrate(k+999_999, v2.ProcessDefinitionKey, maps("a", "a2")...), codes.NotFound)
		refuse("unknown target", r.migrate(k, v2.ProcessDefinitionKey+999_999, maps("a", "a2")...), codes.NotFound)
		refuse("unknown source element", r.migrate(k, v2.ProcessDefinitionKey, maps("a", "a2", "nope", "c")...), codes.InvalidArgument)
		refuse("unknown target element", r.migrate(k, v2.ProcessDefinitionKey, maps("a", "nope")...), codes.InvalidArgument)
		refuse("source mapped twice", r.migrate(k, v2.ProcessDefinitionKey, maps("a", "a2", "a", "c")...), codes.InvalidArgument)
		refuse("active element unmapped", r.migrate(k, v2.ProcessDefinitionKey, maps("b", "c")...), codes.FailedPrecondition)
		refuse("type change", r.migrate(k, v2.ProcessDefinitionKey, maps("a", "check")...), codes.FailedPrecondition)
		refuse("target with a timer boundary event", r.migrate(k, v2.ProcessDefinitionKey, maps("a", "c")...), codes.FailedPrecondition)
		if err := r.migrate(k, v2.ProcessDefinitionKey, maps("a", "a2", "b", "c")...); err != nil {
			t.Fatalf("migrate: %v", err)
		}
		r.restart()
		j := r.job("corpus-mig-a") // the job keeps its key and type
		if j.Key != jobKey || j.ProcessDefinitionKey != v2.ProcessDefinitionKey || j.BpmnProcessId != "corpus-migrate" ||
			j.ProcessDefinitionVersion != 2 || j.ElementId != "a2" || j.CustomHeaders != `{"v":"1"}` {
			t.Fatalf("migrated job: %v (want key %d, v2 key %d, element a2, headers unchanged)", j, jobKey, v2.ProcessDefinitionKey)
		}
		wantVars(t, "variables", j.Variables, map[string]any{"x": 1})
		r.complete(j, `{"y":2}`)
		c := r.job("corpus-mig-c") // the target's path, not b
		if c.ProcessDefinitionKey != v2.ProcessDefinitionKey || c.ElementId != "c" {
			t.Fatalf("job after migration: %v", c)
		}
		r.noJob("corpus-mig-b")
		r.complete(c, `{}`)
		r.completed(k, map[string]any{"x": 1, "y": 2})
		if in := r.instance(k); in.ProcessDefinitionKey != v2.ProcessDefinitionKey || in.Version != 2 {
			t.Fatalf("instance after migration: %v", in)
		}
	})
}
