package partition

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
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
	// Signals (signals.go): instances' subscriptions, signals this
	// partition distributes and has not seen acknowledged, and signals
	// from other partitions it processed (key → sending partition).
	SignalSubs map[int64]*SignalSub `json:"signalSubs,omitempty"`
	SignalOut  map[int64]*SignalOut `json:"signalOut,omitempty"`
	SignalSeen map[int64]int32      `json:"signalSeen,omitempty"`
	// ByElem indexes timers and subscriptions by element instance.
	ByElem map[int64][]int64 `json:"-"`
}

func newEventState() *eventState {
	return &eventState{Timers: map[int64]*TimerInst{}, Subs: map[int64]*ProcSub{}, MsgSubs: map[int64]*MsgSub{},
		Messages: map[int64]*BufferedMessage{}, StartedBy: map[string]int64{}, StartCorr: map[int64]string{},
		ByElem: map[int64][]int64{}, SignalSubs: map[int64]*SignalSub{}, SignalOut: map[int64]*SignalOut{},
		SignalSeen: map[int64]int32{}}
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
	if ev.SignalSubs != nil {
		d.SignalSubs = ev.SignalSubs
	}
	if ev.SignalOut != nil {
		d.SignalOut = ev.SignalOut
	}
	if ev.SignalSeen != nil {
		d.SignalSeen = ev.SignalSeen
	}
	for _, s := range d.SignalSubs {
		d.ByElem[s.ElemKey] = append(d.ByElem[s.ElemKey], s.Key)
	}
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

// ---- snapshot ----

func (p *Partition) encodeEvents() json.RawMessage {
	ev := p.st.events
	if ev == nil || (len(ev.Timers) == 0 && len(ev.Subs) == 0 && len(ev.MsgSubs) == 0 && len(ev.Messages) == 0 &&
		len(ev.StartedBy) == 0 && len(ev.StartCorr) == 0 && ev.Seq == 0 && len(ev.SignalSubs) == 0 &&
		len(ev.SignalOut) == 0 && len(ev.SignalSeen) == 0) {
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

// dispatchEvents handles the event commands (timers.go, messages_*.go); ok
// is false for others.
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
		return p.dispatchSignals(c, fx) // signals.go
	}
	return resp, err, true
}
