package cluster

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/partition"
	cpb "github.com/jobwire/jobwire/engine-reference/internal/pb/clusterpb"
	"google.golang.org/grpc"
)

// watchers is a broker's partition.Observer: it fans committed batches out
// to the gateways watching them (WatchCommitted, the live view's feed).
// Committed never blocks: a watcher whose queue is full loses the batch and
// is told so (lost) with its next message.
type watchers struct {
	mu   sync.Mutex
	subs map[*watcher]struct{}
	n    atomic.Int32
}

type watcher struct {
	ch   chan *partition.CommittedBatch
	lost atomic.Bool
}

// watchQueue bounds the batches waiting for one watching gateway.
const watchQueue = 4096

func newWatchers() *watchers { return &watchers{subs: map[*watcher]struct{}{}} }

// Watching lets the partitions skip building views nobody reads.
func (w *watchers) Watching() bool { return w.n.Load() > 0 }

func (w *watchers) Committed(b *partition.CommittedBatch) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for s := range w.subs {
		select {
		case s.ch <- b:
		default:
			s.lost.Store(true)
		}
	}
}

func (w *watchers) add() *watcher {
	s := &watcher{ch: make(chan *partition.CommittedBatch, watchQueue)}
	w.mu.Lock()
	w.subs[s] = struct{}{}
	w.n.Store(int32(len(w.subs)))
	w.mu.Unlock()
	return s
}

func (w *watchers) remove(s *watcher) {
	w.mu.Lock()
	delete(w.subs, s)
	w.n.Store(int32(len(w.subs)))
	w.mu.Unlock()
}

// WatchCommitted streams committed batches to a gateway's live view.
func (b *Broker) WatchCommitted(_ *cpb.WatchCommittedRequest, st grpc.ServerStreamingServer[cpb.WatchCommittedResponse]) error {
	s := b.watch.add()
	defer b.watch.remove(s)
	// The first message tells the gateway the feed is live (and that it must
	// load what happened before it).
	if err := st.Send(&cpb.WatchCommittedResponse{Batches: []byte("[]"), Lost: true}); err != nil {
		return err
	}
	batch := make([]*partition.CommittedBatch, 0, 512)
	for {
		select {
		case <-st.Context().Done():
			return nil
		case x := <-s.ch:
			batch = append(batch[:0], x)
		drain:
			for len(batch) < cap(batch) {
				select {
				case x := <-s.ch:
					batch = append(batch, x)
				default:
					break drain
				}
			}
			js, err := json.Marshal(batch)
			if err != nil {
				return err
			}
			if err := st.Send(&cpb.WatchCommittedResponse{Batches: js, Lost: s.lost.Swap(false)}); err != nil {
				return err
			}
		}
	}
}

// WatchCommitted feeds every broker's committed batches to committed until
// the Remote closes, reconnecting after a broker restart; lost is called
// whenever batches may have been missed (each new feed, a full queue).
func (r *Remote) WatchCommitted(committed func(*partition.CommittedBatch), lost func()) {
	for _, l := range r.links {
		go func(l *link) {
			for r.ctx.Err() == nil {
				r.watchOnce(l, committed, lost)
				select {
				case <-r.ctx.Done():
				case <-time.After(250 * time.Millisecond):
				}
			}
		}(l)
	}
}

func (r *Remote) watchOnce(l *link, committed func(*partition.CommittedBatch), lost func()) {
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	st, err := l.client.WatchCommitted(ctx, &cpb.WatchCommittedRequest{})
	if err != nil {
		return
	}
	for {
		m, err := st.Recv()
		if err != nil {
			return
		}
		if m.Lost {
			lost()
		}
		var bs []*partition.CommittedBatch
		if err := json.Unmarshal(m.Batches, &bs); err != nil {
			lost()
			continue
		}
		for _, b := range bs {
			committed(b)
		}
	}
}
