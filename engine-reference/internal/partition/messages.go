package partition

import (
	"encoding/json"
	"fmt"
	"github.com/jobwire/jobwire/engine-reference/internal/feel"
	"hash/fnv"
	"math/big"
	"sort"
	"sync"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/bpmn"
	"github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"github.com/jobwire/jobwire/engine-reference/internal/vars"
)

// Messages, correlated as Zeebe does it.
//
// A message lives on its *message partition*, chosen by a hash of its
// correlation key (MessagePartition; the gateway routes PublishMessage
// there). A process instance waiting for a message (intermediate message
// catch event, receive task, message boundary event) keeps a subscription
// on its own partition (ProcSub) and opens the matching subscription on
// the message partition of its correlation key (MsgSub, command
// OpSubOpen). The message partition correlates: on publish to the open
// subscriptions, on OpSubOpen to buffered messages (TTL > 0, not expired),
// and sends OpSubCorrelate to the instance's partition, which completes
// the catch event with the message's variables. When the instance's
// subscription ends it sends OpSubClose.
//
// Zeebe's rules kept here: a message correlates to at most one
// subscription per process (bpmnProcessId) — the oldest open one —, so
// one message never continues two instances of the same process; a
// buffered message correlates to a subscription opened later while its TTL
// lasts; TTL 0 means correlate now or never; a message start event starts
// one new instance per message (its variables become the instance's),
// except that while an instance started by a message with the same
// correlation key is active, no second one starts.
//
// Commands between partitions are side effects: they are sent (in order,
// per partition) only after the batch that produced them is durable, and
// each is logged by the partition that processes it. After a restart a
// partition sends them again from its state (every open ProcSub is opened
// again, every correlation a MsgSub has not seen closed is sent again);
// both sides ignore what they have already seen, so a crash between the
// two partitions loses nothing and doubles nothing.

// Inter-partition message commands (internal: never from the wire).
const (
	OpSubOpen      = "subopen"      // instance partition → message partition
	OpSubClose     = "subclose"     // instance partition → message partition
	OpSubCorrelate = "subcorrelate" // message partition → instance partition
)

func init() {
	intents[OpSubOpen] = "CREATE"
	intents[OpSubClose] = "DELETE"
	intents[OpSubCorrelate] = "CORRELATE"
}

// MessagePartition is the partition of a correlation key (1-based).
func MessagePartition(correlationKey string, count int32) int32 {
	if count <= 1 {
		return 1
	}
	h := fnv.New32a()
	h.Write([]byte(correlationKey))
	return int32(h.Sum32()%uint32(count)) + 1
}

// ProcSub is an instance's message subscription (instance partition).
type ProcSub struct {
	Key          int64          `json:"key"`
	InstanceKey  int64          `json:"inst"`
	ElemKey      int64          `json:"elem"` // the waiting catch event / receive task, or the boundary's host task
	ElementID    string         `json:"el"`   // the event (or receive task) that catches the message
	Name         string         `json:"name"`
	CorrKey      string         `json:"corr"`
	MsgPartition int32          `json:"mp"`
	Interrupting bool           `json:"int"`
	Seen         map[int64]bool `json:"seen,omitempty"` // messages correlated (non-interrupting: many)
}

// MsgSub is the message partition's copy of a subscription.
type MsgSub struct {
	Key           int64  `json:"key"`
	From          int32  `json:"from"`
	InstanceKey   int64  `json:"inst"`
	ElemKey       int64  `json:"elem"`
	BpmnProcessID string `json:"pid"`
	Name          string `json:"name"`
	CorrKey       string `json:"corr"`
	Interrupting  bool   `json:"int"`
	Seq           int64  `json:"seq"`
	// Correlations sent and not yet ended by a close (sent again after a
	// restart; the instance side ignores duplicates).
	Sent []SentCorrelation `json:"sent,omitempty"`
}

// SentCorrelation is a message handed to a subscription.
type SentCorrelation struct {
	MsgKey int64  `json:"m"`
	Vars   string `json:"v,omitempty"`
}

// BufferedMessage is a published message kept for its TTL.
type BufferedMessage struct {
	Key       int64           `json:"key"`
	Name      string          `json:"name"`
	CorrKey   string          `json:"corr"`
	Vars      string          `json:"vars,omitempty"`
	Deadline  int64           `json:"deadline"`
	Processes map[string]bool `json:"procs,omitempty"` // bpmnProcessIds it correlated to
}

// eventState is the partition's timer and message state (snapshotted).
type eventState struct {
	Timers   map[int64]*TimerInst       `json:"timers,omitempty"`
	Subs     map[int64]*ProcSub         `json:"subs,omitempty"`
	MsgSubs  map[int64]*MsgSub          `json:"msgSubs,omitempty"`
	Messages map[int64]*BufferedMessage `json:"messages,omitempty"`
	// StartedBy: bpmnProcessId + "\x00" + correlation key → the instance a
	// message start event created (only while it may still be active).
	StartedBy map[string]int64 `json:"startedBy,omitempty"`
	// StartCorr: instance → the correlation key of the message that
	// started it (while active).
	StartCorr map[int64]string `json:"startCorr,omitempty"`
	Seq       int64            `json:"seq,omitempty"`
	// ByElem indexes timers and subscriptions by element instance.
	ByElem map[int64][]int64 `json:"-"`
}

func newEventState() *eventState {
	return &eventState{Timers: map[int64]*TimerInst{}, Subs: map[int64]*ProcSub{}, MsgSubs: map[int64]*MsgSub{},
		Messages: map[int64]*BufferedMessage{}, StartedBy: map[string]int64{}, StartCorr: map[int64]string{},
		ByElem: map[int64][]int64{}}
}

// fill makes every map non-nil and rebuilds the index (after decoding).
func (ev *eventState) fill() *eventState {
	d := newEventState()
	if ev.Timers != nil {
		d.Timers = ev.Timers
	}
	if ev.Subs != nil {
		d.Subs = ev.Subs
	}
	if ev.MsgSubs != nil {
		d.MsgSubs = ev.MsgSubs
	}
	if ev.Messages != nil {
		d.Messages = ev.Messages
	}
	if ev.StartedBy != nil {
		d.StartedBy = ev.StartedBy
	}
	if ev.StartCorr != nil {
		d.StartCorr = ev.StartCorr
	}
	d.Seq = ev.Seq
	for _, t := range d.Timers {
		if t.ElemKey != 0 {
			d.ByElem[t.ElemKey] = append(d.ByElem[t.ElemKey], t.Key)
		}
	}
	for _, s := range d.Subs {
		d.ByElem[s.ElemKey] = append(d.ByElem[s.ElemKey], s.Key)
	}
	return d
}

func (s *State) evs() *eventState {
	if s.events == nil {
		s.events = newEventState()
	}
	return s.events
}

func (ev *eventState) unindex(elem, key int64) {
	ks := ev.ByElem[elem]
	for i, k := range ks {
		if k == key {
			ks = append(ks[:i:i], ks[i+1:]...)
			break
		}
	}
	if len(ks) == 0 {
		delete(ev.ByElem, elem)
	} else {
		ev.ByElem[elem] = ks
	}
}

// ---- instance side ----

// evalMessage evaluates a message definition's name and correlation key.
func evalMessage(def *bpmn.EventDef, look feel.Lookup) (name, key string, err error) {
	name = def.MessageName
	if def.MessageNameExpr != nil {
		if name, err = def.MessageNameExpr.EvalString(look); err != nil {
			return "", "", fmt.Errorf("Failed to extract the message name: %v", err)
		}
	}
	key = def.CorrelationKey
	if def.CorrelationKeyExpr != nil {
		v, err := def.CorrelationKeyExpr.Eval(look)
		if err != nil {
			return "", "", fmt.Errorf("Failed to extract the correlation key for '%s': %v", def.CorrelationKey, err)
		}
		switch x := v.(type) {
		case string:
			key = x
		case *big.Rat:
			if x.IsInt() {
				key = x.Num().String()
			} else {
				key = x.FloatString(10)
			}
		default:
			return "", "", fmt.Errorf("Failed to extract the correlation key for '%s': The value must be either a string or a number, but was %s", def.CorrelationKey, describeValue(v))
		}
	}
	return name, key, nil
}

func describeValue(v any) string {
	switch v.(type) {
	case nil:
		return "NULL"
	case bool:
		return "BOOLEAN"
	case []any:
		return "LIST"
	case map[string]any:
		return "CONTEXT"
	}
	return fmt.Sprintf("%T", v)
}

// openSubscription registers the instance's subscription for the event el
// (catch event, receive task, boundary) on element instance elemKey and
// asks the message partition to open its side.
func (p *Partition) openSubscription(c *Command, fx *effects, in *Instance, el *bpmn.Element, elemKey int64, name, key string) {
	ev := p.st.evs()
	s := &ProcSub{Key: p.st.nextKey(), InstanceKey: in.Key, ElemKey: elemKey, ElementID: el.ID, Name: name, CorrKey: key,
		MsgPartition: MessagePartition(key, p.cfg.Count), Interrupting: el.Kind != bpmn.BoundaryEvent || el.Interrupting}
	ev.Subs[s.Key] = s
	p.st.dirtyEv(evSubs, s.Key)
	ev.ByElem[elemKey] = append(ev.ByElem[elemKey], s.Key)
	fx.forward(s.MsgPartition, p.subOpenCommand(in, s))
}

func (p *Partition) subOpenCommand(in *Instance, s *ProcSub) *Command {
	pid := ""
	if in != nil {
		pid = in.BpmnProcessID
	}
	return &Command{Op: OpSubOpen, Key: s.Key, From: p.cfg.ID, Inst: s.InstanceKey, Elem: s.ElemKey, BpmnProcessID: pid,
		Name: s.Name, CorrelationKey: s.CorrKey, NonInterrupting: !s.Interrupting}
}

// eventPlan is what entering a task needs for its message/timer boundary
// events, computed before the task starts so a bad expression becomes an
// incident without side effects.
type eventPlan struct {
	el        *bpmn.Element
	name, key string
}

// planBoundaries evaluates the boundary events' messages and timers of an
// activity as seen through look; an error becomes an incident (raised by
// the caller).
func (p *Partition) planBoundaries(c *Command, look feel.Lookup, el *bpmn.Element) ([]eventPlan, error) {
	var out []eventPlan
	for _, b := range el.Boundaries {
		if b.Event == nil {
			continue
		}
		if b.Event.Type == bpmn.EventMessage {
			name, key, err := evalMessage(b.Event, look)
			if err != nil {
				return nil, err
			}
			out = append(out, eventPlan{el: b, name: name, key: key})
			continue
		}
		if _, err := timerDue(b.Event, look, c.Now); err != nil {
			return nil, fmt.Errorf("Expected a valid %s for timer event '%s', but: %v", b.Event.TimerKind, b.ID, err)
		}
		out = append(out, eventPlan{el: b})
	}
	return out, nil
}

// openBoundaries opens the planned boundary timers and subscriptions of a
// task that has just been entered.
func (p *Partition) openBoundaries(c *Command, fx *effects, in *Instance, e *ElemInst, plans []eventPlan) {
	for _, pl := range plans {
		if pl.el.Event.Type == bpmn.EventMessage {
			p.openSubscription(c, fx, in, pl.el, e.Key, pl.name, pl.key)
		} else {
			_ = p.openTimer(c, in, pl.el, e.Key) // validated by planBoundaries
		}
	}
}

// closeElemEvents ends every timer and subscription of an element instance
// that is left (completed, canceled, interrupted).
func (p *Partition) closeElemEvents(fx *effects, elemKey int64) {
	ev := p.st.events
	if ev == nil {
		return
	}
	keys := ev.ByElem[elemKey]
	if len(keys) == 0 {
		return
	}
	delete(ev.ByElem, elemKey)
	for _, k := range keys {
		if t := ev.Timers[k]; t != nil {
			delete(ev.Timers, k)
			p.st.dirtyEv(evTimers, k)
		}
		if s := ev.Subs[k]; s != nil {
			delete(ev.Subs, k)
			p.st.dirtyEv(evSubs, k)
			fx.forward(s.MsgPartition, &Command{Op: OpSubClose, Key: s.Key, From: p.cfg.ID, Consumed: s.consumed()})
		}
	}
}

// enterEventElement runs an intermediate catch event or a receive task in
// a flow scope: the token waits in an element instance until the message
// or timer.
func (p *Partition) enterEventElement(c *Command, fx *effects, in *Instance, el *bpmn.Element, scope int64) {
	var name, key string
	var plans []eventPlan
	look := p.lookupScope(in, scope)
	if el.Event.Type == bpmn.EventMessage {
		var err error
		if name, key, err = evalMessage(el.Event, look); err != nil {
			p.elementIncident(c, in, el, scope, "EXTRACT_VALUE_ERROR", err.Error())
			return
		}
	} else if _, err := timerDue(el.Event, look, c.Now); err != nil {
		p.elementIncident(c, in, el, scope, "EXTRACT_VALUE_ERROR", fmt.Sprintf("Expected a valid %s for timer event '%s', but: %v", el.Event.TimerKind, el.ID, err))
		return
	}
	if el.Kind == bpmn.ReceiveTask {
		var err error
		if plans, err = p.planBoundaries(c, look, el); err != nil {
			p.elementIncident(c, in, el, scope, "EXTRACT_VALUE_ERROR", err.Error())
			return
		}
	}
	e := &ElemInst{Key: p.st.nextKey(), InstanceKey: in.Key, Element: el, ScopeKey: scope}
	p.addElem(in, e)
	*p.tokens(in, scope)++
	if el.Event.Type == bpmn.EventMessage {
		p.openSubscription(c, fx, in, el, e.Key, name, key)
	} else {
		_ = p.openTimer(c, in, el, e.Key)
	}
	p.openBoundaries(c, fx, in, e, plans)
}

// triggerEvent continues an instance when the timer or message of element
// el fires for element instance e: a catch event / receive task completes;
// an interrupting boundary event terminates its activity (jobs canceled,
// everything inside it ended) and takes over its token; a non-interrupting
// one starts a new token in the activity's flow scope.
func (p *Partition) triggerEvent(c *Command, fx *effects, in *Instance, e *ElemInst, el *bpmn.Element) {
	if p.st.touched != nil {
		p.st.touched.instance(in.Key)
	}
	scope := e.ScopeKey
	switch {
	case el.Kind != bpmn.BoundaryEvent:
		p.removeElem(fx, in, e)
		*p.tokens(in, scope)--
		p.run(c, fx, in, p.follow(in, scope, nil, el.Outgoing))
	case el.Interrupting:
		p.terminate(c, fx, in, e)
		p.run(c, fx, in, []step{{el: el, scope: scope}}) // the boundary event takes over the activity's token
	default:
		*p.tokens(in, scope)++
		p.run(c, fx, in, []step{{el: el, scope: scope}})
	}
}

// subCorrelate processes OpSubCorrelate on the instance partition.
func (p *Partition) subCorrelate(c *Command, fx *effects) (any, error) {
	ev := p.st.evs()
	s := ev.Subs[c.Key]
	if s == nil || s.Seen[c.Msg] {
		// Closed meanwhile (the task completed, the instance was canceled)
		// or already correlated (sent again after a restart).
		return nil, reject(c.Op, RejNotFound, "Expected to correlate message '%d' to subscription '%d', but it is closed or already correlated", c.Msg, c.Key)
	}
	in := p.inst(s.InstanceKey)
	e := p.elem(s.ElemKey)
	if in == nil || e == nil || in.State != InstActive {
		return nil, reject(c.Op, RejNotFound, "Expected to correlate message '%d' to subscription '%d', but its element is no longer active", c.Msg, c.Key)
	}
	p.st.dirtyEv(evSubs, s.Key)
	el := in.proc.Elements[s.ElementID]
	doc, _ := vars.Parse(c.Variables)
	// As Zeebe without output mappings: the message variables are set on
	// the event's scope and propagated; each updates the nearest scope that
	// defines it, otherwise the process instance.
	if el.Kind != bpmn.BoundaryEvent {
		p.mergePropagate(in, e.Key, doc)
	} else {
		p.mergePropagate(in, e.ScopeKey, doc)
	}
	if s.Interrupting {
		delete(ev.Subs, s.Key)
		ev.unindex(s.ElemKey, s.Key)
		fx.forward(s.MsgPartition, &Command{Op: OpSubClose, Key: s.Key, From: p.cfg.ID, Consumed: []int64{c.Msg}})
	} else {
		if s.Seen == nil {
			s.Seen = map[int64]bool{}
		}
		s.Seen[c.Msg] = true
	}
	p.triggerEvent(c, fx, in, e, el)
	return nil, nil
}

// ---- message partition side ----

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
	in := p.newInstance(c, d, m.Vars)
	if m.CorrKey != "" {
		ev.StartedBy[active] = in.Key
		ev.StartCorr[in.Key] = m.CorrKey
		p.st.dirtyStartedBy(active)
		p.st.dirtyEv(evStartCr, in.Key)
	}
	p.run(c, fx, in, []step{{el: start}})
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

// resendAfterRestart queues what the other partitions may not have seen:
// the open side of every subscription of this partition's instances, and
// every correlation of a message subscription that is still open.
func (p *Partition) resendAfterRestart() {
	ev := p.st.events
	if ev == nil {
		return
	}
	var out []forward
	subs := make([]*ProcSub, 0, len(ev.Subs))
	for _, s := range ev.Subs {
		subs = append(subs, s)
	}
	sort.Slice(subs, func(i, k int) bool { return subs[i].Key < subs[k].Key })
	for _, s := range subs {
		out = append(out, forward{s.MsgPartition, p.subOpenCommand(p.inst(s.InstanceKey), s)})
	}
	for _, s := range ev.sortedMsgSubs() {
		for _, sc := range s.Sent {
			out = append(out, forward{s.From, &Command{Op: OpSubCorrelate, Key: s.Key, Msg: sc.MsgKey, Variables: sc.Vars, From: p.cfg.ID}})
		}
	}
	p.outbox().push(out)
}

// ---- forwarding between partitions ----

// Forwarder delivers a command to another partition (or this one). The
// partition's Hooks implement it when partitions can reach each other:
// `dev` (every partition in the process) and a broker's own partitions.
// Forward reports false when the target cannot take it yet (retried).
type Forwarder interface {
	Forward(pid int32, c *Command) bool
}

type forward struct {
	pid int32
	c   *Command
}

func (fx *effects) forward(pid int32, c *Command) {
	fx.forwards = append(fx.forwards, forward{pid, c})
}

// outbox sends forwarded commands in order, off the partition goroutine
// (a target's full queue must not stall this partition).
type outboxQ struct {
	mu   sync.Mutex
	q    []forward
	sig  chan struct{}
	once sync.Once
}

func (p *Partition) outbox() *outboxQ {
	p.outMu.Lock()
	defer p.outMu.Unlock()
	if p.out == nil {
		p.out = &outboxQ{sig: make(chan struct{}, 1)}
	}
	return p.out
}

func (o *outboxQ) push(fs []forward) {
	if len(fs) == 0 {
		return
	}
	o.mu.Lock()
	o.q = append(o.q, fs...)
	o.mu.Unlock()
	select {
	case o.sig <- struct{}{}:
	default:
	}
}

// sendForwards runs after a batch is durable.
func (p *Partition) sendForwards(fs []forward) {
	if len(fs) == 0 {
		return
	}
	o := p.outbox()
	o.once.Do(func() { go p.forwardLoop(o) })
	o.push(fs)
}

func (p *Partition) startForwarding() {
	o := p.outbox()
	o.once.Do(func() { go p.forwardLoop(o) })
	select {
	case o.sig <- struct{}{}:
	default:
	}
}

func (p *Partition) forwardLoop(o *outboxQ) {
	f, _ := p.cfg.Hooks.(Forwarder)
	for {
		select {
		case <-p.stop:
			return
		case <-o.sig:
		}
		for {
			o.mu.Lock()
			if len(o.q) == 0 {
				o.mu.Unlock()
				break
			}
			next := o.q[0]
			o.mu.Unlock()
			if f == nil {
				if p.cfg.Logger != nil {
					p.cfg.Logger.Warn("no route to another partition; message command dropped", "partition", p.cfg.ID, "to", next.pid, "op", next.c.Op)
				}
			} else if !f.Forward(next.pid, next.c) {
				select {
				case <-p.stop:
					return
				case <-time.After(50 * time.Millisecond):
				}
				continue
			}
			o.mu.Lock()
			o.q = o.q[1:]
			o.mu.Unlock()
		}
	}
}

// ---- snapshot ----

func (p *Partition) encodeEvents() json.RawMessage {
	ev := p.st.events
	if ev == nil || (len(ev.Timers) == 0 && len(ev.Subs) == 0 && len(ev.MsgSubs) == 0 && len(ev.Messages) == 0 &&
		len(ev.StartedBy) == 0 && len(ev.StartCorr) == 0 && ev.Seq == 0) {
		return nil // nothing (the same whether or not the event state was ever created)
	}
	b, err := json.Marshal(p.st.events)
	if err != nil {
		return nil
	}
	return b
}

func (p *Partition) loadEvents(b json.RawMessage) error {
	if len(b) == 0 {
		return nil
	}
	var ev eventState
	if err := json.Unmarshal(b, &ev); err != nil {
		return fmt.Errorf("snapshot events do not decode: %w", err)
	}
	p.st.events = ev.fill()
	return nil
}

// dispatchEvents handles this file's commands; ok is false for others.
func (p *Partition) dispatchEvents(c *Command, fx *effects) (resp any, err error, ok bool) {
	switch c.Op {
	case OpTimerFire:
		resp, err = p.fireTimer(c, fx)
	case OpSubOpen:
		resp, err = p.subOpen(c, fx)
	case OpSubClose:
		resp, err = p.subClose(c, fx)
	case OpSubCorrelate:
		resp, err = p.subCorrelate(c, fx)
	default:
		return nil, nil, false
	}
	return resp, err, true
}
