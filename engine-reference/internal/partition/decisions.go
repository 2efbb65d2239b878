package partition

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/jobwire/jobwire/engine-reference/internal/dmn"
	"github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"github.com/jobwire/jobwire/engine-reference/internal/vars"
)

// Decisions: DMN resources deployed on partition 1 and distributed to the
// others (like processes), EvaluateDecision, and business rule tasks.

// OpEvaluate evaluates a decision (EvaluateDecision). Logged: it takes keys.
const OpEvaluate = "evaluate"

// Incident types of business rule tasks (Zeebe's names).
const (
	IncidentDecisionEvaluation = "DECISION_EVALUATION_ERROR"
	IncidentCalledDecision     = "CALLED_DECISION_ERROR"
)

func init() {
	WireOps[OpEvaluate] = true
	intents[OpEvaluate] = "EVALUATE"
}

// DecisionMeta names a decision requirements graph and its decisions as
// partition 1 registered them, so other partitions register them under the
// same keys and versions.
type DecisionMeta struct {
	DRGKey        int64            `json:"drg"`
	DRGID         string           `json:"drgId"`
	Version       int32            `json:"ver"`
	ResourceName  string           `json:"name"`
	DeploymentKey int64            `json:"dep"`
	Decisions     []DecisionKeyVer `json:"decs"`
	// Deleted: a graph DeleteResource removed (no resource; its id and
	// decisions are kept so versions are not reused).
	Deleted bool   `json:"deleted,omitempty"`
	ID      string `json:"id,omitempty"`
}

// DecisionKeyVer is one decision's key and version.
type DecisionKeyVer struct {
	ID      string `json:"id"`
	Key     int64  `json:"key"`
	Version int32  `json:"ver"`
}

// DRG is a deployed decision requirements graph (one DMN resource).
type DRG struct {
	Deleted       bool             // DeleteResource removed it (deletion.go)
	goneDecs      []DecisionKeyVer // its decisions, once deleted
	Key           int64
	ID, Name      string
	Version       int32
	ResourceName  string
	Checksum      string
	DeploymentKey int64
	Resource      []byte
	Defs          *dmn.Definitions
}

// DecisionDef is a deployed decision.
type DecisionDef struct {
	Key      int64
	ID, Name string
	Version  int32
	DRG      *DRG
	Decision *dmn.Decision
}

type decisionStore struct {
	drgs    map[int64]*DRG
	drgByID map[string][]*DRG // versions in order
	decs    map[int64]*DecisionDef
	decByID map[string][]*DecisionDef
	gone    map[int64]*DRG // deleted graphs (deletion.go)
}

func (s *State) decisions() *decisionStore {
	if s.dmn == nil {
		s.dmn = &decisionStore{drgs: map[int64]*DRG{}, drgByID: map[string][]*DRG{}, decs: map[int64]*DecisionDef{}, decByID: map[string][]*DecisionDef{}}
	}
	return s.dmn
}

func (ds *decisionStore) latestDRG(id string) *DRG {
	v := ds.drgByID[id]
	if len(v) == 0 {
		return nil
	}
	return v[len(v)-1]
}

func (ds *decisionStore) latest(id string) *DecisionDef {
	v := ds.decByID[id]
	if len(v) == 0 {
		return nil
	}
	return v[len(v)-1]
}

// register adds a graph and its decisions (keys from meta).
func (ds *decisionStore) register(g *DRG, decs []DecisionKeyVer) {
	if ds.drgs[g.Key] != nil || ds.gone[g.Key] != nil {
		return
	}
	ds.drgs[g.Key] = g
	ds.drgByID[g.ID] = insertByVersion(ds.drgByID[g.ID], g, func(x *DRG) int32 { return x.Version })
	for _, kv := range decs {
		d := g.Defs.Decision(kv.ID)
		if d == nil || ds.decs[kv.Key] != nil {
			continue
		}
		def := &DecisionDef{Key: kv.Key, ID: d.ID, Name: d.Name, Version: kv.Version, DRG: g, Decision: d}
		ds.decs[kv.Key] = def
		ds.decByID[d.ID] = insertByVersion(ds.decByID[d.ID], def, func(x *DecisionDef) int32 { return x.Version })
	}
}

func insertByVersion[T any](l []T, x T, ver func(T) int32) []T {
	l = append(l, x)
	sort.SliceStable(l, func(i, k int) bool { return ver(l[i]) < ver(l[k]) })
	return l
}

// isDMN reports whether a resource is deployed as DMN.
func isDMN(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".dmn") }

type parsedDMN struct {
	res  Resource
	defs *dmn.Definitions
}

// parseDMNResources parses the .dmn resources of a deployment; errors are
// collected like the BPMN ones.
func parseDMNResources(rs []Resource) ([]parsedDMN, []string) {
	var out []parsedDMN
	var errs []string
	seenDRG := map[string]bool{}
	seenDec := map[string]string{}
	for _, r := range rs {
		if !isDMN(r.Name) {
			continue
		}
		defs, err := dmn.Parse(r.Name, r.Content)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if seenDRG[defs.ID] {
			errs = append(errs, fmt.Sprintf("'%s': the decision requirements id '%s' is used by another resource of the deployment", r.Name, defs.ID))
		}
		seenDRG[defs.ID] = true
		for _, d := range defs.Decisions {
			if other, ok := seenDec[d.ID]; ok {
				errs = append(errs, fmt.Sprintf("'%s': the decision id '%s' is also used in '%s' of the deployment", r.Name, d.ID, other))
			}
			seenDec[d.ID] = r.Name
		}
		out = append(out, parsedDMN{r, defs})
	}
	return out, errs
}

// deployDMN registers the parsed graphs on partition 1 and adds their
// metadata to the response. A graph deployed again unchanged (same id,
// resource name and content) keeps its keys and versions, as in Zeebe.
func (p *Partition) deployDMN(all []parsedDMN, depKey int64, resp *gatewaypb.DeployResourceResponse) {
	ds := p.st.decisions()
	var decs, drgs []*gatewaypb.Deployment
	for _, pd := range all {
		sum := sha256.Sum256(pd.res.Content)
		checksum := hex.EncodeToString(sum[:])
		g := ds.latestDRG(pd.defs.ID)
		var kvs []DecisionKeyVer
		if g != nil && g.Checksum == checksum && g.ResourceName == pd.res.Name {
			for _, d := range pd.defs.Decisions {
				for _, def := range ds.decByID[d.ID] {
					if def.DRG == g {
						kvs = append(kvs, DecisionKeyVer{ID: def.ID, Key: def.Key, Version: def.Version})
					}
				}
			}
		} else {
			v := ds.nextDRGVersion(pd.defs.ID)
			g = &DRG{Key: p.st.nextKey(), ID: pd.defs.ID, Name: pd.defs.Name, Version: v, ResourceName: pd.res.Name,
				Checksum: checksum, DeploymentKey: depKey, Resource: pd.res.Content, Defs: pd.defs}
			for _, d := range pd.defs.Decisions {
				dv := ds.nextDecisionVersion(d.ID)
				kvs = append(kvs, DecisionKeyVer{ID: d.ID, Key: p.st.nextKey(), Version: dv})
			}
			ds.register(g, kvs)
			p.trackDRG(g)
		}
		for _, kv := range kvs {
			def := ds.decs[kv.Key]
			decs = append(decs, &gatewaypb.Deployment{Metadata: &gatewaypb.Deployment_Decision{Decision: &gatewaypb.DecisionMetadata{
				DmnDecisionId: def.ID, DmnDecisionName: def.Name, Version: def.Version, DecisionKey: def.Key,
				DmnDecisionRequirementsId: g.ID, DecisionRequirementsKey: g.Key, TenantId: DefaultTenant}}})
		}
		drgs = append(drgs, &gatewaypb.Deployment{Metadata: &gatewaypb.Deployment_DecisionRequirements{DecisionRequirements: &gatewaypb.DecisionRequirementsMetadata{
			DmnDecisionRequirementsId: g.ID, DmnDecisionRequirementsName: g.Name, Version: g.Version,
			DecisionRequirementsKey: g.Key, ResourceName: g.ResourceName, TenantId: DefaultTenant}}})
	}
	resp.Deployments = append(resp.Deployments, decs...)
	resp.Deployments = append(resp.Deployments, drgs...)
}

// DecisionMetas describes the graphs of a deployment response for the
// distribution to the other partitions.
func DecisionMetas(out *gatewaypb.DeployResourceResponse) []DecisionMeta {
	var metas []DecisionMeta
	idx := map[int64]int{}
	for _, d := range out.Deployments {
		if g := d.GetDecisionRequirements(); g != nil {
			idx[g.DecisionRequirementsKey] = len(metas)
			metas = append(metas, DecisionMeta{DRGKey: g.DecisionRequirementsKey, DRGID: g.DmnDecisionRequirementsId,
				Version: g.Version, ResourceName: g.ResourceName, DeploymentKey: out.Key})
		}
	}
	for _, d := range out.Deployments {
		if m := d.GetDecision(); m != nil {
			if i, ok := idx[m.DecisionRequirementsKey]; ok {
				metas[i].Decisions = append(metas[i].Decisions, DecisionKeyVer{ID: m.DmnDecisionId, Key: m.DecisionKey, Version: m.Version})
			}
		}
	}
	return metas
}

// distributeDMN registers graphs deployed on partition 1.
func (p *Partition) distributeDMN(c *Command) error {
	ds := p.st.decisions()
	for _, m := range c.DMN {
		if ds.drgs[m.DRGKey] != nil {
			continue
		}
		for _, r := range c.Resources {
			if r.Name != m.ResourceName || !isDMN(r.Name) {
				continue
			}
			defs, err := dmn.Parse(r.Name, r.Content)
			if err != nil {
				return reject(c.Op, RejInvalidArgument, "distributed resource '%s' does not parse: %v", r.Name, err)
			}
			if defs.ID != m.DRGID {
				continue
			}
			sum := sha256.Sum256(r.Content)
			g := &DRG{Key: m.DRGKey, ID: defs.ID, Name: defs.Name, Version: m.Version, ResourceName: r.Name,
				Checksum: hex.EncodeToString(sum[:]), DeploymentKey: m.DeploymentKey, Resource: r.Content, Defs: defs}
			ds.register(g, m.Decisions)
			p.trackDRG(g)
		}
	}
	return nil
}

// evaluate serves EvaluateDecision: by key, or by id (latest version).
// A failed evaluation is an answer (failedDecisionId, failureMessage),
// not an error, as in Zeebe.
func (p *Partition) evaluate(c *Command) (any, error) {
	ds := p.st.decisions()
	var def *DecisionDef
	switch {
	case c.Key > 0:
		if def = ds.decs[c.Key]; def == nil {
			return nil, reject(c.Op, RejNotFound, "Expected to evaluate decision with key '%d', but no such decision was found", c.Key)
		}
	case c.DecisionID != "":
		if def = ds.latest(c.DecisionID); def == nil {
			return nil, reject(c.Op, RejNotFound, "Expected to evaluate decision '%s', but no decision found for id '%s'", c.DecisionID, c.DecisionID)
		}
	default:
		return nil, reject(c.Op, RejInvalidArgument, "Expected either a decision id or a valid decision key, but none provided")
	}
	doc, err := vars.Parse(c.Variables)
	if err != nil {
		return nil, reject(c.Op, RejInvalidArgument, "Property 'variables' is invalid: %v", err)
	}
	r := def.DRG.Defs.Evaluate(def.ID, func(n string) (json.RawMessage, bool) { v, ok := doc[n]; return v, ok })
	evalKey := p.st.nextKey()
	out := &gatewaypb.EvaluateDecisionResponse{DecisionKey: def.Key, DecisionId: def.ID, DecisionName: def.Name,
		DecisionVersion: def.Version, DecisionRequirementsId: def.DRG.ID, DecisionRequirementsKey: def.DRG.Key,
		DecisionOutput: string(r.Output), FailedDecisionId: r.FailedDecisionID, FailureMessage: r.Failure,
		TenantId: DefaultTenant, DecisionInstanceKey: evalKey, DecisionEvaluationKey: evalKey}
	for i, ev := range r.Evaluated {
		// Required decisions are in the same graph (same version).
		ed := &gatewaypb.EvaluatedDecision{DecisionId: ev.Decision.ID, DecisionName: ev.Decision.Name,
			DecisionType: ev.Decision.Type(), DecisionOutput: string(ev.Output), TenantId: DefaultTenant,
			DecisionEvaluationInstanceKey: fmt.Sprintf("%d-%d", evalKey, i+1)}
		for _, x := range ds.decByID[ev.Decision.ID] {
			if x.DRG == def.DRG {
				ed.DecisionKey, ed.DecisionVersion = x.Key, x.Version
			}
		}
		for _, in := range ev.Inputs {
			ed.EvaluatedInputs = append(ed.EvaluatedInputs, &gatewaypb.EvaluatedDecisionInput{InputId: in.ID, InputName: in.Name, InputValue: string(in.Value)})
		}
		for _, mr := range ev.Rules {
			m := &gatewaypb.MatchedDecisionRule{RuleId: mr.ID, RuleIndex: int32(mr.Index)}
			for _, o := range mr.Outputs {
				m.EvaluatedOutputs = append(m.EvaluatedOutputs, &gatewaypb.EvaluatedDecisionOutput{OutputId: o.ID, OutputName: o.Name, OutputValue: string(o.Value)})
			}
			ed.MatchedRules = append(ed.MatchedRules, m)
		}
		out.EvaluatedDecisions = append(out.EvaluatedDecisions, ed)
	}
	return out, nil
}

// evaluateCalledDecision runs a business rule task instance (input
// mappings applied): it evaluates the called decision (latest version) with
// the variables the task sees and completes the task with the result
// variable, which goes through the output mappings like a job's variables
// (without any: to the nearest scope defining it, else the process
// instance). A decision that is not deployed or fails holds the task with
// an incident (CALLED_DECISION_ERROR / DECISION_EVALUATION_ERROR);
// resolving it evaluates again.
func (p *Partition) evaluateCalledDecision(c *Command, fx *effects, in *Instance, e *ElemInst, steps []step) []step {
	el := e.Element
	cd := el.Decision
	look := p.lookupAt(in, e)
	id := cd.DecisionID
	if cd.DecisionIDExpr != nil {
		s, err := cd.DecisionIDExpr.EvalString(look)
		if err != nil {
			e.Stage = stageStart
			p.st.dirtyElem(e.Key)
			p.incidentOn(in, e, "EXTRACT_VALUE_ERROR", fmt.Sprintf("Expected the decision id of '%s' to be a string: %v", el.ID, err))
			return steps
		}
		id = s
	}
	def := p.st.decisions().latest(id)
	if def == nil {
		e.Stage = stageStart
		p.st.dirtyElem(e.Key)
		p.incidentOn(in, e, IncidentCalledDecision, fmt.Sprintf("Expected to evaluate decision '%s', but no decision found for id '%s'", id, id))
		return steps
	}
	r := def.DRG.Defs.Evaluate(def.ID, look)
	if r.Failed() {
		e.Stage = stageStart
		p.st.dirtyElem(e.Key)
		p.incidentOn(in, e, IncidentDecisionEvaluation, r.Failure)
		return steps
	}
	e.Stage = 0
	p.st.dirtyElem(e.Key)
	return p.completeActivity(c, fx, in, e, vars.Doc{cd.ResultVariable: r.Output}, steps)
}

// ---- snapshot ----

type snapDRG struct {
	Key           int64            `json:"key"`
	Version       int32            `json:"ver"`
	ResourceName  string           `json:"name"`
	DeploymentKey int64            `json:"dep"`
	Resource      []byte           `json:"res"`
	Decisions     []DecisionKeyVer `json:"decs"`
	// Deleted: a graph DeleteResource removed (no resource; its id and
	// decisions are kept so versions are not reused).
	Deleted bool   `json:"deleted,omitempty"`
	ID      string `json:"id,omitempty"`
}

func (p *Partition) snapshotDMN() []snapDRG {
	ds := p.st.dmn
	if ds == nil {
		return nil
	}
	var out []snapDRG
	for _, g := range ds.drgs {
		out = append(out, p.snapDRGOf(g))
	}
	for _, g := range ds.gone {
		out = append(out, p.snapDRGOf(g))
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Key < out[k].Key })
	return out
}

// snapDRGOf is a decision graph with its decisions, as snapshots and
// results records write it.
func (p *Partition) snapDRGOf(g *DRG) snapDRG {
	if g.Deleted {
		return p.snapGoneDRG(g)
	}
	sg := snapDRG{Key: g.Key, Version: g.Version, ResourceName: g.ResourceName, DeploymentKey: g.DeploymentKey, Resource: g.Resource}
	for _, d := range p.st.dmn.decs {
		if d.DRG == g {
			sg.Decisions = append(sg.Decisions, DecisionKeyVer{ID: d.ID, Key: d.Key, Version: d.Version})
		}
	}
	sort.Slice(sg.Decisions, func(i, k int) bool { return sg.Decisions[i].Key < sg.Decisions[k].Key })
	return sg
}

func (p *Partition) restoreDMN(gs []snapDRG) error {
	ds := p.st.decisions()
	for _, sg := range gs {
		if sg.Deleted {
			ds.markGone(sg)
			continue
		}
		defs, err := dmn.Parse(sg.ResourceName, sg.Resource)
		if err != nil {
			return fmt.Errorf("snapshot resource '%s' does not parse: %w", sg.ResourceName, err)
		}
		sum := sha256.Sum256(sg.Resource)
		ds.register(&DRG{Key: sg.Key, ID: defs.ID, Name: defs.Name, Version: sg.Version, ResourceName: sg.ResourceName,
			Checksum: hex.EncodeToString(sum[:]), DeploymentKey: sg.DeploymentKey, Resource: sg.Resource, Defs: defs}, sg.Decisions)
	}
	return nil
}
