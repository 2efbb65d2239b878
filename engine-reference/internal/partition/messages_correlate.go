package partition

import (
	"sort"

	"github.com/jobwire/jobwire/engine-reference/internal/bpmn"
	"github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"github.com/jobwire/jobwire/engine-reference/internal/vars"
)

// The message partition side of messages (see messages.go): the subscriptions'
// copies (MsgSub), buffered messages, publishing and correlating, message start
// events.

func (ev *eventState) sortedMsgSubs() []*MsgSub {
	out := make([]*MsgSub, 0, len(ev.MsgSubs))
	for _, s := range ev.MsgSubs {
		out = append(out, s)
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Seq < out[k].Seq })
	return out
}

// subOpen processes OpSubOpen on the message partition.
func (p *Partition) subOpen(c *Command, fx *effects) (any, error) {
	ev := p.st.evs()
	if ev.MsgSubs[c.Key] != nil {
		return nil, reject(c.Op, RejAlreadyExists, "subscription '%d' is already open", c.Key)
	}
	ev.Seq++
	p.st.dirtyEv(evMsgSubs, c.Key)
	s := &MsgSub{Key: c.Key, From: c.From, InstanceKey: c.Inst, ElemKey: c.Elem, BpmnProcessID: c.BpmnProcessID,
		Name: c.Name, CorrKey: c.CorrelationKey, Interrupting: !c.NonInterrupting, Seq: ev.Seq}
	ev.MsgSubs[s.Key] = s
	// A buffered message (oldest first) that has not correlated to this
	// process yet and is still alive.
	keys := make([]int64, 0, len(ev.Messages))
	for k := range ev.Messages {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, k int) bool { return keys[i] < keys[k] })
	for _, k := range keys {
		m := ev.Messages[k]
		if m.Deadline <= c.Now {
			delete(ev.Messages, k)
			p.st.dirtyEv(evBufMsgs, k)
			continue
		}
		if m.Name == s.Name && m.CorrKey == s.CorrKey && !m.Processes[s.BpmnProcessID] {
			p.correlateTo(fx, m, s)
			if s.Interrupting {
				break
			}
		}
	}
	return nil, nil
}

// correlateTo hands message m to subscription s.
func (p *Partition) correlateTo(fx *effects, m *BufferedMessage, s *MsgSub) {
	if m.Processes == nil {
		m.Processes = map[string]bool{}
	}
	m.Processes[s.BpmnProcessID] = true
	s.Sent = append(s.Sent, SentCorrelation{MsgKey: m.Key, Vars: m.Vars})
	p.st.dirtyEv(evBufMsgs, m.Key)
	p.st.dirtyEv(evMsgSubs, s.Key)
	fx.forward(s.From, &Command{Op: OpSubCorrelate, Key: s.Key, Msg: m.Key, Variables: m.Vars, From: p.cfg.ID})
}

// busy: an interrupting subscription takes one message only.
func (s *MsgSub) busy() bool { return s.Interrupting && len(s.Sent) > 0 }

// consumed lists the messages a subscription correlated (sorted).
func (s *ProcSub) consumed() []int64 {
	out := make([]int64, 0, len(s.Seen))
	for k := range s.Seen {
		out = append(out, k)
	}
	sort.Slice(out, func(i, k int) bool { return out[i] < out[k] })
	return out
}

// subClose processes OpSubClose on the message partition. A message it
// sent to the subscription that the instance did not consume (the element
// was left before the correlation arrived) is handed to the next open
// subscription of the same process, or stays buffered for a later one, as
// Zeebe does when a correlation is rejected; a TTL-0 message is gone.
func (p *Partition) subClose(c *Command, fx *effects) (any, error) {
	ev := p.st.evs()
	s := ev.MsgSubs[c.Key]
	if s == nil {
		return nil, reject(c.Op, RejNotFound, "subscription '%d' is not open", c.Key)
	}
	delete(ev.MsgSubs, c.Key)
	p.st.dirtyEv(evMsgSubs, c.Key)
	done := map[int64]bool{}
	for _, k := range c.Consumed {
		done[k] = true
	}
	for _, sc := range s.Sent {
		m := ev.Messages[sc.MsgKey]
		if done[sc.MsgKey] || m == nil || m.Deadline <= c.Now {
			continue
		}
		delete(m.Processes, s.BpmnProcessID)
		p.st.dirtyEv(evBufMsgs, m.Key)
		for _, o := range ev.sortedMsgSubs() {
			if o.BpmnProcessID == s.BpmnProcessID && o.Name == m.Name && o.CorrKey == m.CorrKey && !o.busy() {
				p.correlateTo(fx, m, o)
				break
			}
		}
	}
	return nil, nil
}

// publishAndCorrelate is PublishMessage on the message partition: the
// message id check and key (publish), then correlation to open
// subscriptions and message start events, then buffering for the TTL.
func (p *Partition) publishAndCorrelate(c *Command, fx *effects) (any, error) {
	resp, err := p.publish(c)
	if err != nil {
		return nil, err
	}
	ev := p.st.evs()
	key := resp.(*gatewaypb.PublishMessageResponse).Key
	m := &BufferedMessage{Key: key, Name: c.Name, CorrKey: c.CorrelationKey, Deadline: c.Now + c.TTL}
	if doc, _ := vars.Parse(c.Variables); len(doc) > 0 {
		m.Vars = vars.Encode(doc)
	}
	for _, s := range ev.sortedMsgSubs() {
		if s.Name == m.Name && s.CorrKey == m.CorrKey && !s.busy() && !m.Processes[s.BpmnProcessID] {
			p.correlateTo(fx, m, s)
		}
	}
	p.startByMessage(c, fx, m)
	if c.TTL > 0 {
		if len(ev.Messages) > 10000 {
			for k, x := range ev.Messages {
				if x.Deadline <= c.Now {
					delete(ev.Messages, k)
					p.st.dirtyEv(evBufMsgs, k)
				}
			}
		}
		ev.Messages[m.Key] = m
		p.st.dirtyEv(evBufMsgs, m.Key)
	}
	return resp, nil
}

// startByMessage creates an instance for every process whose latest
// version has a message start event for the message.
func (p *Partition) startByMessage(c *Command, fx *effects, m *BufferedMessage) {
	var ids []string
	if c.replaying {
		for id := range c.Latest {
			ids = append(ids, id)
		}
	} else {
		seen := map[string]bool{}
		for _, d := range p.st.defs.All() {
			if !seen[d.BpmnProcessID] {
				seen[d.BpmnProcessID] = true
				if l := p.st.defs.Version(d.BpmnProcessID, -1); l != nil && messageStart(l, m.Name) != nil {
					ids = append(ids, d.BpmnProcessID)
				}
			}
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		if d := p.latestDef(c, id); d != nil {
			p.startByMessageOf(c, fx, d, m)
		}
	}
}

// latestDef is the latest version of a process for a message start
// decision, pinned in the command (Latest) so that replay decides with the
// versions that existed when the command was first processed.
func (p *Partition) latestDef(c *Command, id string) *Def {
	if c.replaying {
		k := c.Latest[id]
		if k == 0 {
			return nil
		}
		return p.st.defs.ByKey(k)
	}
	if k, ok := c.Latest[id]; ok {
		return p.st.defs.ByKey(k)
	}
	d := p.st.defs.Version(id, -1)
	if c.Latest == nil {
		c.Latest = map[string]int64{}
	}
	if d == nil {
		c.Latest[id] = 0
		return nil
	}
	c.Latest[id] = d.Key
	return d
}

// messageStart returns the process's message start event for a name.
func messageStart(d *Def, name string) *bpmn.Element {
	for _, el := range d.Process.MessageStarts {
		if el.Event.MessageName == name {
			return el
		}
	}
	return nil
}

// startByMessageOf starts an instance of d for message m if d has a
// message start event for it, m has not started or continued d's process
// yet, and no instance of it started by a message with m's correlation key
// is active. It reports whether it started one.
func (p *Partition) startByMessageOf(c *Command, fx *effects, d *Def, m *BufferedMessage) bool {
	ev := p.st.evs()
	id := d.BpmnProcessID
	start := messageStart(d, m.Name)
	if start == nil || m.Processes[id] {
		return false
	}
	active := id + "\x00" + m.CorrKey
	if m.CorrKey != "" {
		if k, ok := ev.StartedBy[active]; ok {
			if in := p.inst(k); in != nil && in.State == InstActive {
				return false // Zeebe: one instance per correlation key at a time
			}
			delete(ev.StartedBy, active)
			delete(ev.StartCorr, k)
			p.st.dirtyStartedBy(active)
			p.st.dirtyEv(evStartCr, k)
		}
	}
	if m.Processes == nil {
		m.Processes = map[string]bool{}
	}
	m.Processes[id] = true
	p.st.dirtyEv(evBufMsgs, m.Key)
	// With output mappings on the start event only what they produce
	// becomes the instance's (signals.go, enterMappedEvent).
	var in *Instance
	var doc vars.Doc
	if len(start.Outputs) > 0 {
		in = p.newInstance(c, d, "")
		doc, _ = vars.Parse(m.Vars)
	} else {
		in = p.newInstance(c, d, m.Vars)
	}
	if m.CorrKey != "" {
		ev.StartedBy[active] = in.Key
		ev.StartCorr[in.Key] = m.CorrKey
		p.st.dirtyStartedBy(active)
		p.st.dirtyEv(evStartCr, in.Key)
	}
	p.run(c, fx, in, []step{{el: start, doc: doc}})
	return true
}

// instanceEnded runs when an instance completes or is canceled. If a
// message with a correlation key started it, the oldest buffered message
// with that key that could not start an instance meanwhile (one per key at
// a time) starts the next one now, as Zeebe's buffered message start
// events do.
func (p *Partition) instanceEnded(c *Command, fx *effects, in *Instance) {
	ev := p.st.events
	if ev == nil {
		return
	}
	corr, ok := ev.StartCorr[in.Key]
	if !ok {
		return
	}
	delete(ev.StartCorr, in.Key)
	p.st.dirtyEv(evStartCr, in.Key)
	active := in.BpmnProcessID + "\x00" + corr
	if ev.StartedBy[active] == in.Key {
		delete(ev.StartedBy, active)
		p.st.dirtyStartedBy(active)
	}
	d := p.latestDef(c, in.BpmnProcessID)
	if d == nil || len(d.Process.MessageStarts) == 0 {
		return
	}
	keys := make([]int64, 0, len(ev.Messages))
	for k, m := range ev.Messages {
		if m.CorrKey == corr {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, k int) bool { return keys[i] < keys[k] })
	for _, k := range keys {
		m := ev.Messages[k]
		if m.Deadline > c.Now && p.startByMessageOf(c, fx, d, m) {
			return
		}
	}
}

// newInstance creates an active instance with one token about to enter its
// start event (message and timer start events).
func (p *Partition) newInstance(c *Command, d *Def, variables string) *Instance {
	doc, _ := vars.Parse(variables)
	if doc == nil {
		doc = vars.Doc{}
	}
	in := &Instance{Key: p.st.nextKey(), DefKey: d.Key, BpmnProcessID: d.BpmnProcessID, Version: d.Version,
		State: InstActive, Vars: doc, elems: map[int64]*ElemInst{}, proc: d.Process}
	p.st.Instances[in.Key] = in
	p.st.newInst(in.Key)
	p.st.activeInstances++
	in.tokens = 1
	p.st.dirtyInst(in.Key)
	if p.st.touched != nil {
		p.st.touched.instance(in.Key)
	}
	return in
}
