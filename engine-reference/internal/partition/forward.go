package partition

import (
	"sort"
	"sync"
	"time"
)

// Forwarding between partitions: commands one partition sends another
// (OpSubOpen, OpSubClose, OpSubCorrelate) leave in order once the batch that
// produced them is durable, and again after a restart.

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
			if len(o.q) > 0 && o.q[0].c == next.c { // a reset may have emptied the queue meanwhile
				o.q = o.q[1:]
			}
			o.mu.Unlock()
		}
	}
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
	out = append(out, p.signalResends()...) // signals.go
	p.outbox().push(out)
}
