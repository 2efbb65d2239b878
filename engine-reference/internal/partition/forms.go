package partition

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
)

// Forms (Zeebe 8.8's .form resources): a deployment may carry Camunda
// forms, JSON documents with an "id". Each is stored under its form id and
// versioned like a process: a new version when its content or resource
// name changes, the same key and version for an identical redeploy. The
// answer lists it as Deployment.form (FormMetadata). Forms live on partition
// 1 with the deployment and are distributed to every partition (like
// processes and decisions), kept in snapshots and logged in results
// records. jobwire-engine runs no user tasks, so nothing else reads them;
// they are there so deployments that carry forms deploy as on Zeebe.

// Form is a deployed form.
type Form struct {
	Key           int64
	FormID        string
	Version       int32
	ResourceName  string
	Checksum      string
	DeploymentKey int64
	Resource      []byte
}

// FormMeta names a form deployed on partition 1 for the other partitions.
type FormMeta struct {
	Key           int64  `json:"key"`
	FormID        string `json:"id"`
	Version       int32  `json:"ver"`
	ResourceName  string `json:"name"`
	DeploymentKey int64  `json:"dep"`
}

// snapForm is a form as snapshots and results records write it.
type snapForm struct {
	Key           int64  `json:"key"`
	FormID        string `json:"id"`
	Version       int32  `json:"ver"`
	ResourceName  string `json:"name"`
	DeploymentKey int64  `json:"dep"`
	Resource      []byte `json:"res"`
}

type formStore struct {
	byKey map[int64]*Form
	byID  map[string][]*Form // versions in order
}

func (s *State) formStore() *formStore {
	if s.forms == nil {
		s.forms = &formStore{byKey: map[int64]*Form{}, byID: map[string][]*Form{}}
	}
	return s.forms
}

func (fs *formStore) latest(id string) *Form {
	v := fs.byID[id]
	if len(v) == 0 {
		return nil
	}
	return v[len(v)-1]
}

func (fs *formStore) add(f *Form) {
	if fs.byKey[f.Key] != nil {
		return
	}
	fs.byKey[f.Key] = f
	list := append(fs.byID[f.FormID], f)
	sort.Slice(list, func(i, k int) bool { return list[i].Version < list[k].Version })
	fs.byID[f.FormID] = list
}

func isForm(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".form") }

type parsedForm struct {
	res Resource
	id  string
}

// formID reads a form's id: the document must be a JSON object with a
// non-empty string "id" (Zeebe refuses a form without one).
func formID(r Resource) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(r.Content))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return "", fmt.Errorf("'%s': a form must be a JSON object: %v", r.Name, err)
	}
	if dec.More() {
		return "", fmt.Errorf("'%s': a form must be one JSON object", r.Name)
	}
	id, _ := doc["id"].(string)
	if strings.TrimSpace(id) == "" {
		return "", fmt.Errorf("'%s': expected the form to have a non-empty string 'id'", r.Name)
	}
	return id, nil
}

// parseFormResources parses the .form resources of a deployment; errors
// are collected like the BPMN ones.
func parseFormResources(rs []Resource) ([]parsedForm, []string) {
	var out []parsedForm
	var errs []string
	seen := map[string]string{}
	for _, r := range rs {
		if !isForm(r.Name) {
			continue
		}
		id, err := formID(r)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if other, dup := seen[id]; dup {
			errs = append(errs, fmt.Sprintf("'%s': the form id '%s' is also used by '%s' of the deployment", r.Name, id, other))
			continue
		}
		seen[id] = r.Name
		out = append(out, parsedForm{r, id})
	}
	return out, errs
}

// deployForms registers the forms of a deployment on partition 1.
func (p *Partition) deployForms(all []parsedForm, depKey int64, resp *gatewaypb.DeployResourceResponse) {
	fs := p.st.formStore()
	for _, pf := range all {
		sum := sha256.Sum256(pf.res.Content)
		checksum := hex.EncodeToString(sum[:])
		f := fs.latest(pf.id)
		if f == nil || f.Checksum != checksum || f.ResourceName != pf.res.Name {
			v := int32(1)
			if f != nil {
				v = f.Version + 1
			}
			f = &Form{Key: p.st.nextKey(), FormID: pf.id, Version: v, ResourceName: pf.res.Name, Checksum: checksum,
				DeploymentKey: depKey, Resource: pf.res.Content}
			fs.add(f)
			p.trackForm(f)
		}
		resp.Deployments = append(resp.Deployments, &gatewaypb.Deployment{Metadata: &gatewaypb.Deployment_Form{
			Form: &gatewaypb.FormMetadata{FormId: f.FormID, Version: f.Version, FormKey: f.Key,
				ResourceName: f.ResourceName, TenantId: DefaultTenant}}})
	}
}

// FormMetas lists the forms of a deployment answer for distribution.
func FormMetas(out *gatewaypb.DeployResourceResponse) []FormMeta {
	var metas []FormMeta
	for _, d := range out.Deployments {
		if f := d.GetForm(); f != nil {
			metas = append(metas, FormMeta{Key: f.FormKey, FormID: f.FormId, Version: f.Version,
				ResourceName: f.ResourceName, DeploymentKey: out.Key})
		}
	}
	return metas
}

// distributeForms registers forms deployed on partition 1.
func (p *Partition) distributeForms(c *Command) {
	fs := p.st.formStore()
	for _, m := range c.Forms {
		if f := fs.byKey[m.Key]; f != nil {
			p.trackForm(f)
			continue
		}
		for _, r := range c.Resources {
			if r.Name != m.ResourceName || !isForm(r.Name) {
				continue
			}
			sum := sha256.Sum256(r.Content)
			f := &Form{Key: m.Key, FormID: m.FormID, Version: m.Version, ResourceName: r.Name,
				Checksum: hex.EncodeToString(sum[:]), DeploymentKey: m.DeploymentKey, Resource: r.Content}
			fs.add(f)
			p.trackForm(f)
		}
	}
}

func (p *Partition) trackForm(f *Form) {
	if p.st.rt != nil {
		p.st.rt.forms = append(p.st.rt.forms, f)
	}
}

func snapFormOf(f *Form) snapForm {
	return snapForm{Key: f.Key, FormID: f.FormID, Version: f.Version, ResourceName: f.ResourceName,
		DeploymentKey: f.DeploymentKey, Resource: f.Resource}
}

// snapshotForms: every form, by key.
func (p *Partition) snapshotForms() []snapForm {
	if p.st.forms == nil {
		return nil
	}
	var out []snapForm
	for _, f := range p.st.forms.byKey {
		out = append(out, snapFormOf(f))
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Key < out[k].Key })
	return out
}

// restoreForms registers forms from a snapshot or a results record.
func (p *Partition) restoreForms(fs []snapForm) {
	if len(fs) == 0 {
		return
	}
	st := p.st.formStore()
	for _, sf := range fs {
		sum := sha256.Sum256(sf.Resource)
		st.add(&Form{Key: sf.Key, FormID: sf.FormID, Version: sf.Version, ResourceName: sf.ResourceName,
			Checksum: hex.EncodeToString(sum[:]), DeploymentKey: sf.DeploymentKey, Resource: sf.Resource})
	}
}
