package corpus

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	pb "github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
)

// Steps for resource deletion, process instance modification and
// migration: a second deployment (a new version), DeleteResource,
// ModifyProcessInstance, MigrateProcessInstance, and completing a job
// activated (and named) by an earlier job step.
//
// Keys are never written in observation lines, so steps refer to them by
// name: a process definition, decision requirements graph, decision or form
// by its id and version (any deployment of the case: the first one or a
// deploy step); an instance by its create step's "as"; a job and its
// element instance by its job step's "as"; "instance" is the modified
// instance's own key; "missing" is a key that names nothing.

// DeployStep deploys more resources of the case (e.g. a new version).
type DeployStep struct {
	Resources  []string `json:"resources"`
	ExpectCode string   `json:"expectCode,omitempty"`
}

// DeleteStep deletes a resource: Process, DRG or Form (an id) at Version,
// or, with Missing, a key that names nothing.
type DeleteStep struct {
	Process    string `json:"process,omitempty"`
	DRG        string `json:"drg,omitempty"`
	Form       string `json:"form,omitempty"`
	Version    int32  `json:"version,omitempty"`
	Missing    bool   `json:"missing,omitempty"`
	ExpectCode string `json:"expectCode,omitempty"`
}

// ModifyStep modifies instance As, or (InstanceOfJob) the instance of a
// named job: a withResult instance's key is known only when it ends.
type ModifyStep struct {
	As            string           `json:"as,omitempty"`
	InstanceOfJob string           `json:"instanceOfJob,omitempty"`
	Activate      []ActivateAction `json:"activate,omitempty"`
	Terminate     []string         `json:"terminate,omitempty"` // job names (their element instances), "missing"
	ExpectCode    string           `json:"expectCode,omitempty"`
}

// ActivateAction is one activate instruction.
type ActivateAction struct {
	ElementID string `json:"elementId"`
	// Ancestor: "" (none: the engine picks the flow scope instance),
	// "instance", a job name (its element instance), "missing".
	Ancestor  string           `json:"ancestor,omitempty"`
	Variables []VariableAction `json:"variables,omitempty"`
}

// VariableAction is one variable instruction.
type VariableAction struct {
	ScopeID   string          `json:"scopeId,omitempty"`
	Variables json.RawMessage `json:"variables"`
}

// MigrateStep migrates instance As to Process at Version (or, with
// Missing, to a definition key that names nothing).
type MigrateStep struct {
	As         string          `json:"as"`
	Process    string          `json:"process,omitempty"`
	Version    int32           `json:"version,omitempty"`
	Missing    bool            `json:"missing,omitempty"`
	Mappings   []MappingAction `json:"mappings,omitempty"`
	ExpectCode string          `json:"expectCode,omitempty"`
}

// MappingAction maps a source element to a target element.
type MappingAction struct {
	Source string `json:"source"`
	Target string `json:"target"`
}

// CompleteStep completes the job named Job by an earlier job step.
type CompleteStep struct {
	Job        string          `json:"job"`
	Variables  json.RawMessage `json:"variables,omitempty"`
	ExpectCode string          `json:"expectCode,omitempty"`
}

// missingKey names no resource, instance or element instance: a key of
// partition 1 far beyond any counter a case reaches.
const missingKey = int64(1)<<51 | int64(1)<<50

type opsState struct {
	res  map[string]int64 // "process:ID:V", "drg:ID:V", "decision:ID:V", "form:ID:V" → key
	jobs map[string]*pb.ActivatedJob
}

func (d *driver) opsSt() *opsState {
	if d.ops == nil {
		d.ops = &opsState{res: map[string]int64{}, jobs: map[string]*pb.ActivatedJob{}}
	}
	return d.ops
}

func resKey(kind, id string, v int32) string { return fmt.Sprintf("%s:%s:%d", kind, id, v) }

// trackDeployment remembers the keys of a deployment's resources.
func (d *driver) trackDeployment(resp *pb.DeployResourceResponse) {
	st := d.opsSt()
	for _, dep := range resp.Deployments {
		switch {
		case dep.GetProcess() != nil:
			m := dep.GetProcess()
			st.res[resKey("process", m.BpmnProcessId, m.Version)] = m.ProcessDefinitionKey
		case dep.GetDecision() != nil:
			m := dep.GetDecision()
			st.res[resKey("decision", m.DmnDecisionId, m.Version)] = m.DecisionKey
		case dep.GetDecisionRequirements() != nil:
			m := dep.GetDecisionRequirements()
			st.res[resKey("drg", m.DmnDecisionRequirementsId, m.Version)] = m.DecisionRequirementsKey
		case dep.GetForm() != nil:
			m := dep.GetForm()
			st.res[resKey("form", m.FormId, m.Version)] = m.FormKey
		}
	}
}

// namedJob checks a job step's ops expectations and remembers the job.
func (d *driver) namedJob(n int, s *JobStep, j *pb.ActivatedJob) {
	st := d.opsSt()
	if s.ExpectKeyOf != "" {
		if before := st.jobs[s.ExpectKeyOf]; before == nil || before.Key != j.Key {
			d.run.fail("step %d job %s: not the job named %s before (key changed)", n, s.Type, s.ExpectKeyOf)
		}
	}
	if s.ExpectVersion != 0 && j.ProcessDefinitionVersion != s.ExpectVersion {
		d.run.fail("step %d job %s: process definition version %d, expected %d", n, s.Type, j.ProcessDefinitionVersion, s.ExpectVersion)
	}
	if s.ExpectVersion != 0 {
		if k := st.res[resKey("process", j.BpmnProcessId, j.ProcessDefinitionVersion)]; k == 0 || k != j.ProcessDefinitionKey {
			d.run.fail("step %d job %s: process definition key %d is not the deployed %s version %d", n, s.Type, j.ProcessDefinitionKey, j.BpmnProcessId, j.ProcessDefinitionVersion)
		}
	}
	if s.As != "" {
		st.jobs[s.As] = j
	}
}

func validateOpsStep(s Step, names, jobNames map[string]bool) error {
	if s.Job != nil && s.Job.As != "" {
		if jobNames[s.Job.As] {
			return fmt.Errorf("job name %q used twice", s.Job.As)
		}
		jobNames[s.Job.As] = true
	}
	if s.Job != nil && s.Job.ExpectKeyOf != "" && !jobNames[s.Job.ExpectKeyOf] {
		return fmt.Errorf("expectKeyOf names unknown job %q", s.Job.ExpectKeyOf)
	}
	job := func(ref string) error {
		if ref != "missing" && !jobNames[ref] {
			return fmt.Errorf("unknown job %q", ref)
		}
		return nil
	}
	switch {
	case s.Deploy != nil:
		if len(s.Deploy.Resources) == 0 {
			return fmt.Errorf("deploy: no resources")
		}
	case s.Delete != nil:
		n := 0
		for _, set := range []bool{s.Delete.Process != "", s.Delete.DRG != "", s.Delete.Form != "", s.Delete.Missing} {
			if set {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("delete: exactly one of process, drg, form, missing expected")
		}
		if !s.Delete.Missing && s.Delete.Version < 1 {
			return fmt.Errorf("delete: version ≥ 1 expected")
		}
	case s.Modify != nil:
		if s.Modify.InstanceOfJob != "" {
			if s.Modify.As != "" || !jobNames[s.Modify.InstanceOfJob] {
				return fmt.Errorf("modify: instanceOfJob names an unknown job %q (or as is given too)", s.Modify.InstanceOfJob)
			}
		} else if !names[s.Modify.As] {
			return fmt.Errorf("modify of unknown instance %q", s.Modify.As)
		}
		for _, a := range s.Modify.Activate {
			if a.Ancestor != "" && a.Ancestor != "instance" {
				if err := job(a.Ancestor); err != nil {
					return fmt.Errorf("modify ancestor: %v", err)
				}
			}
		}
		for _, t := range s.Modify.Terminate {
			if err := job(t); err != nil {
				return fmt.Errorf("modify terminate: %v", err)
			}
		}
	case s.Migrate != nil:
		if !names[s.Migrate.As] {
			return fmt.Errorf("migrate of unknown instance %q", s.Migrate.As)
		}
		if (s.Migrate.Process == "") == !s.Migrate.Missing {
			return fmt.Errorf("migrate: process (with version) or missing expected")
		}
	case s.Complete != nil:
		if err := job(s.Complete.Job); err != nil || s.Complete.Job == "missing" {
			return fmt.Errorf("complete: unknown job %q", s.Complete.Job)
		}
	}
	return nil
}

func (d *driver) opsStep(n int, s Step) bool {
	st := d.opsSt()
	ctx, cancel := call()
	defer cancel()
	jobElem := func(ref string) int64 {
		if ref == "missing" {
			return missingKey
		}
		return st.jobs[ref].ElementInstanceKey
	}
	switch {
	case s.Deploy != nil:
		req := &pb.DeployResourceRequest{}
		for _, name := range s.Deploy.Resources {
			b, err := os.ReadFile(filepath.Join(d.c.Dir, name))
			if err != nil {
				d.run.fail("step %d: read %s: %v", n, name, err)
				return false
			}
			req.Resources = append(req.Resources, &pb.Resource{Name: name, Content: b})
		}
		resp, err := d.gw.DeployResource(ctx, req)
		d.run.obs("step %d deploy: %s", n, codeOf(err))
		if !d.expectCode(n, "deploy", s.Deploy.ExpectCode, err) || err != nil {
			return err == nil || s.Deploy.ExpectCode != ""
		}
		d.run.obs("step %d deployed: %s", n, describeDeployment(resp))
		d.trackDeployment(resp)
		return true
	case s.Delete != nil:
		x := s.Delete
		what, key := "missing", missingKey
		if !x.Missing {
			kind, id := "process", x.Process
			if x.DRG != "" {
				kind, id = "drg", x.DRG
			} else if x.Form != "" {
				kind, id = "form", x.Form
			}
			what = fmt.Sprintf("%s %s version %d", kind, id, x.Version)
			var ok bool
			if key, ok = st.res[resKey(kind, id, x.Version)]; !ok {
				d.run.fail("step %d: no %s was deployed by this case", n, what)
				return false
			}
		}
		_, err := d.gw.DeleteResource(ctx, &pb.DeleteResourceRequest{ResourceKey: key})
		d.run.obs("step %d delete %s: %s", n, what, codeOf(err))
		d.expectCode(n, "delete "+what, x.ExpectCode, err)
		return true
	case s.Modify != nil:
		x := s.Modify
		name := x.As
		pi, ok := d.keys[x.As]
		if x.InstanceOfJob != "" {
			name = "instance of " + x.InstanceOfJob
			pi, ok = st.jobs[x.InstanceOfJob].ProcessInstanceKey, true
		}
		if !ok {
			d.run.fail("step %d: instance %s was not created", n, x.As)
			return false
		}
		req := &pb.ModifyProcessInstanceRequest{ProcessInstanceKey: pi}
		for _, a := range x.Activate {
			ai := &pb.ModifyProcessInstanceRequest_ActivateInstruction{ElementId: a.ElementID}
			switch a.Ancestor {
			case "":
			case "instance":
				ai.AncestorElementInstanceKey = pi
			default:
				ai.AncestorElementInstanceKey = jobElem(a.Ancestor)
			}
			for _, v := range a.Variables {
				ai.VariableInstructions = append(ai.VariableInstructions, &pb.ModifyProcessInstanceRequest_VariableInstruction{
					ScopeId: v.ScopeID, Variables: vars(v.Variables)})
			}
			req.ActivateInstructions = append(req.ActivateInstructions, ai)
		}
		for _, t := range x.Terminate {
			req.TerminateInstructions = append(req.TerminateInstructions, &pb.ModifyProcessInstanceRequest_TerminateInstruction{ElementInstanceKey: jobElem(t)})
		}
		_, err := d.gw.ModifyProcessInstance(ctx, req)
		d.run.obs("step %d modify %s: %s", n, name, codeOf(err))
		d.expectCode(n, "modify "+name, x.ExpectCode, err)
		return true
	case s.Migrate != nil:
		x := s.Migrate
		pi, ok := d.keys[x.As]
		if !ok {
			d.run.fail("step %d: instance %s was not created", n, x.As)
			return false
		}
		what, target := "missing", missingKey
		if !x.Missing {
			what = fmt.Sprintf("%s version %d", x.Process, x.Version)
			if target, ok = st.res[resKey("process", x.Process, x.Version)]; !ok {
				d.run.fail("step %d: no process %s was deployed by this case", n, what)
				return false
			}
		}
		plan := &pb.MigrateProcessInstanceRequest_MigrationPlan{TargetProcessDefinitionKey: target}
		for _, m := range x.Mappings {
			plan.MappingInstructions = append(plan.MappingInstructions, &pb.MigrateProcessInstanceRequest_MappingInstruction{
				SourceElementId: m.Source, TargetElementId: m.Target})
		}
		_, err := d.gw.MigrateProcessInstance(ctx, &pb.MigrateProcessInstanceRequest{ProcessInstanceKey: pi, MigrationPlan: plan})
		d.run.obs("step %d migrate %s to %s: %s", n, x.As, what, codeOf(err))
		d.expectCode(n, "migrate "+x.As, x.ExpectCode, err)
		return true
	case s.Complete != nil:
		x := s.Complete
		_, err := d.gw.CompleteJob(ctx, &pb.CompleteJobRequest{JobKey: st.jobs[x.Job].Key, Variables: vars(x.Variables)})
		d.run.obs("step %d complete %s: %s", n, x.Job, codeOf(err))
		d.expectCode(n, "complete "+x.Job, x.ExpectCode, err)
		return true
	}
	return false
}

// describeDeployment lists a deployment's contents as the deploy line does.
func describeDeployment(resp *pb.DeployResourceResponse) string {
	var ds []string
	for _, dep := range resp.Deployments {
		switch {
		case dep.GetProcess() != nil:
			ds = append(ds, "process "+dep.GetProcess().BpmnProcessId+" from "+dep.GetProcess().ResourceName)
		case dep.GetDecision() != nil:
			m := dep.GetDecision()
			ds = append(ds, fmt.Sprintf("decision %s %q in %s", m.DmnDecisionId, m.DmnDecisionName, m.DmnDecisionRequirementsId))
		case dep.GetDecisionRequirements() != nil:
			m := dep.GetDecisionRequirements()
			ds = append(ds, fmt.Sprintf("drg %s %q from %s", m.DmnDecisionRequirementsId, m.DmnDecisionRequirementsName, m.ResourceName))
		case dep.GetForm() != nil:
			ds = append(ds, "form "+dep.GetForm().FormId)
		}
	}
	sort.Strings(ds)
	return strings.Join(ds, "; ")
}
