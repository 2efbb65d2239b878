package partition

import (
	"sort"

	"github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
)

// DeleteResource, as Zeebe 8.8 processes it (facts from its
// ResourceDeletion processor and the resource deletion docs):
//
//   - the key names a process definition, a decision requirements graph or
//     a form; anything else is NOT_FOUND;
//   - a process definition with a running instance is refused
//     (INVALID_STATE: FAILED_PRECONDITION); otherwise it is gone: creating
//     an instance by its key is NOT_FOUND, by its id uses the latest version
//     left (none left: NOT_FOUND), and its version number is never given
//     again. Deleting the latest version moves the timer start events to
//     the version before it (message start events follow the latest
//     version anyway);
//   - a graph goes with all its decisions; evaluating by id then uses the
//     latest version left;
//   - the command is processed on partition 1 and then distributed to every
//     other partition. The gateway first asks every partition whether an
//     instance of the definition runs there (CheckOnly), so a definition
//     with instances on any partition is refused before anything changes.
//
// Deleted definitions and graphs stay in the registry as tombstones (no
// resource): snapshots and results records carry them, so a restart
// neither reuses their versions nor brings them back when an older record
// that registered them is replayed.

func (p *Partition) deleteResource(c *Command, fx *effects) (any, error) {
	args := c.Ops
	if args == nil {
		args = &OpsArgs{}
	}
	if d := p.st.defs.ByKey(c.Key); d != nil {
		if p.runsInstancesOf(d.Key) {
			return nil, reject(c.Op, RejInvalidState, "Expected to delete resource with key '%d' but there are still running instances", c.Key)
		}
		if args.CheckOnly {
			return &gatewaypb.DeleteResourceResponse{}, nil
		}
		p.deleteDef(c, d)
		return &gatewaypb.DeleteResourceResponse{}, nil
	}
	if args.CheckOnly {
		return &gatewaypb.DeleteResourceResponse{}, nil
	}
	if g := p.st.decisions().drgs[c.Key]; g != nil {
		p.deleteDRG(g)
		return &gatewaypb.DeleteResourceResponse{}, nil
	}
	if ok := p.deleteOtherResource(c); ok {
		return &gatewaypb.DeleteResourceResponse{}, nil
	}
	if args.Distributed {
		// Another partition of this process removed it from the shared
		// registry already: log the tombstone here too.
		if d := p.st.defs.goneDef(c.Key); d != nil {
			p.trackDef(d)
		}
		return &gatewaypb.DeleteResourceResponse{}, nil
	}
	return nil, reject(c.Op, RejNotFound, "Expected to delete resource but no resource found with key `%d`", c.Key)
}

// deleteOtherResource deletes a resource of another kind (forms, once
// deployed): none yet.
func (p *Partition) deleteOtherResource(c *Command) bool { return false }

// runsInstancesOf reports whether an instance of the definition is active
// on this partition.
func (p *Partition) runsInstancesOf(defKey int64) bool {
	for _, in := range p.st.Instances {
		if in.DefKey == defKey && in.State == InstActive {
			return true
		}
	}
	return false
}

func (p *Partition) deleteDef(c *Command, d *Def) {
	latest := p.st.defs.Version(d.BpmnProcessID, -1) == d
	if p.cfg.ID == 1 {
		ev := p.st.evs()
		for _, k := range sortedKeys(timerKeysOf(ev.Timers, d.Key)) {
			p.dropTimer(ev.Timers[k])
		}
	}
	p.st.defs.remove(d)
	p.trackDef(d)
	if latest {
		if prev := p.st.defs.Version(d.BpmnProcessID, -1); prev != nil {
			p.scheduleStartTimers(c, prev)
		}
	}
}

func timerKeysOf(ts map[int64]*TimerInst, defKey int64) map[int64]struct{} {
	out := map[int64]struct{}{}
	for k, t := range ts {
		if t.InstanceKey == 0 && t.DefKey == defKey {
			out[k] = struct{}{}
		}
	}
	return out
}

func (p *Partition) deleteDRG(g *DRG) {
	ds := p.st.decisions()
	delete(ds.drgs, g.Key)
	ds.drgByID[g.ID] = without(ds.drgByID[g.ID], func(x *DRG) bool { return x == g })
	if len(ds.drgByID[g.ID]) == 0 {
		delete(ds.drgByID, g.ID)
	}
	for k, d := range ds.decs {
		if d.DRG != g {
			continue
		}
		g.goneDecs = append(g.goneDecs, DecisionKeyVer{ID: d.ID, Key: d.Key, Version: d.Version})
		delete(ds.decs, k)
		ds.decByID[d.ID] = without(ds.decByID[d.ID], func(x *DecisionDef) bool { return x == d })
		if len(ds.decByID[d.ID]) == 0 {
			delete(ds.decByID, d.ID)
		}
	}
	sort.Slice(g.goneDecs, func(i, k int) bool { return g.goneDecs[i].Key < g.goneDecs[k].Key })
	g.Deleted, g.Resource, g.Defs = true, nil, nil
	if ds.gone == nil {
		ds.gone = map[int64]*DRG{}
	}
	ds.gone[g.Key] = g
	p.trackDRG(g)
}

func without[T any](l []T, drop func(T) bool) []T {
	out := l[:0:0]
	for _, x := range l {
		if !drop(x) {
			out = append(out, x)
		}
	}
	return out
}

// ---- registry tombstones ----

func snapDefOf(d *Def) snapDef {
	return snapDef{Key: d.Key, BpmnProcessID: d.BpmnProcessID, Version: d.Version, ResourceName: d.ResourceName,
		DeploymentKey: d.DeploymentKey, Checksum: d.Checksum, Deleted: d.Deleted}
}

// remove moves a definition to the tombstones.
func (r *Registry) remove(d *Def) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.removeLocked(d)
}

func (r *Registry) removeLocked(d *Def) {
	delete(r.byKey, d.Key)
	r.byID[d.BpmnProcessID] = without(r.byID[d.BpmnProcessID], func(x *Def) bool { return x.Key == d.Key })
	if len(r.byID[d.BpmnProcessID]) == 0 {
		delete(r.byID, d.BpmnProcessID)
	}
	d.Deleted = true
	if r.gone == nil {
		r.gone = map[int64]*Def{}
	}
	r.gone[d.Key] = d
}

// markGone applies a tombstone from a snapshot or results record.
func (r *Registry) markGone(sd snapDef) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gone[sd.Key] != nil {
		return
	}
	d := r.byKey[sd.Key]
	if d == nil {
		d = &Def{Key: sd.Key, BpmnProcessID: sd.BpmnProcessID, Version: sd.Version, ResourceName: sd.ResourceName,
			DeploymentKey: sd.DeploymentKey, Checksum: sd.Checksum}
	}
	r.removeLocked(d)
}

func (r *Registry) goneDef(k int64) *Def {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.gone[k]
}

// deletedDefs lists the tombstones, ordered by key.
func (r *Registry) deletedDefs() []snapDef {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]snapDef, 0, len(r.gone))
	for _, d := range r.gone {
		out = append(out, snapDefOf(d))
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Key < out[k].Key })
	return out
}

// nextVersion is the version a new definition of the process gets: one
// above every version ever deployed, deleted ones included.
func (r *Registry) nextVersion(id string) int32 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var v int32
	if l := r.byID[id]; len(l) > 0 {
		v = l[len(l)-1].Version
	}
	for _, d := range r.gone {
		if d.BpmnProcessID == id {
			v = max(v, d.Version)
		}
	}
	return v + 1
}

// ---- decision tombstones ----

func (ds *decisionStore) nextDRGVersion(id string) int32 {
	var v int32
	if g := ds.latestDRG(id); g != nil {
		v = g.Version
	}
	for _, g := range ds.gone {
		if g.ID == id {
			v = max(v, g.Version)
		}
	}
	return v + 1
}

func (ds *decisionStore) nextDecisionVersion(id string) int32 {
	var v int32
	if d := ds.latest(id); d != nil {
		v = d.Version
	}
	for _, g := range ds.gone {
		for _, d := range g.goneDecs {
			if d.ID == id {
				v = max(v, d.Version)
			}
		}
	}
	return v + 1
}

func (p *Partition) snapGoneDRG(g *DRG) snapDRG {
	return snapDRG{Key: g.Key, Version: g.Version, ResourceName: g.ResourceName, DeploymentKey: g.DeploymentKey,
		Decisions: g.goneDecs, Deleted: true, ID: g.ID}
}

// markGone applies a graph's tombstone from a snapshot or results record.
func (ds *decisionStore) markGone(sg snapDRG) {
	if ds.gone[sg.Key] != nil {
		return
	}
	if g := ds.drgs[sg.Key]; g != nil {
		delete(ds.drgs, g.Key)
		ds.drgByID[g.ID] = without(ds.drgByID[g.ID], func(x *DRG) bool { return x == g })
		if len(ds.drgByID[g.ID]) == 0 {
			delete(ds.drgByID, g.ID)
		}
		for k, d := range ds.decs {
			if d.DRG == g {
				delete(ds.decs, k)
				ds.decByID[d.ID] = without(ds.decByID[d.ID], func(x *DecisionDef) bool { return x == d })
				if len(ds.decByID[d.ID]) == 0 {
					delete(ds.decByID, d.ID)
				}
			}
		}
	}
	if ds.gone == nil {
		ds.gone = map[int64]*DRG{}
	}
	ds.gone[sg.Key] = &DRG{Key: sg.Key, ID: sg.ID, Version: sg.Version, ResourceName: sg.ResourceName,
		DeploymentKey: sg.DeploymentKey, Deleted: true, goneDecs: sg.Decisions}
}

// withDeleted finds a definition by key, a deleted one too if its process
// is known: recovery replays an instance's records from before the
// deletion (its partition's log) after the deletion (partition 1's log)
// when the partitions share the registry.
func (r *Registry) withDeleted(k int64) *Def {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if d := r.byKey[k]; d != nil {
		return d
	}
	if d := r.gone[k]; d != nil && d.Process != nil {
		return d
	}
	return nil
}
