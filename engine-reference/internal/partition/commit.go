package partition

import (
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/pb/gatewaypb"
	"github.com/jobwire/jobwire/engine-reference/internal/wal"
)

// Group commit: a processed batch's replies and side effects wait until its
// records are durable; one fsync covers every batch that arrived meanwhile.

type pushOut struct {
	t   PushTarget
	job *gatewaypb.ActivatedJob
}

// effects are the side effects of a batch, run only after it is durable.
type effects struct {
	pushes   []pushOut
	notify   map[string]bool
	results  []func()
	forwards []forward // commands to partitions (forward.go)
}

func (fx *effects) notifyType(t string) {
	if fx.notify == nil {
		fx.notify = map[string]bool{}
	}
	fx.notify[t] = true
}

// answer is a command's result, sent once its batch is durable.
type answer struct {
	c *Command
	r Result
}

// pendingBatch is a processed batch on its way to durability: its records
// are written to the log file, its replies and side effects wait for the
// fsync.
type pendingBatch struct {
	log     *wal.Log
	wrote   bool // the batch appended records (needs an fsync)
	answers []answer
	fx      *effects
	barrier chan struct{}   // waitCommitted: closed once everything before is committed
	snap    *snapJob        // a snapshot to write once everything before is durable
	obs     *CommittedBatch // the live view's record of the batch, or nil
	ticks   []*Command      // OpTick commands, answered after the side effects
	fired   int             // due commands the ticks processed
	more    bool            // due entries were left for the next batch
}

// commit hands a processed batch to the committer. Pipelined group commit:
// while one fsync runs, the partition goroutine already processes and
// appends the next batch; the committer makes every batch that arrived
// during an fsync durable with the next single fsync, then releases the
// batches' replies and side effects in order. Nothing a client can see
// (reply, pushed job, jobs-available notification, with-result answer)
// leaves before everything it could depend on is durable, because batches
// are released strictly in processing order.
func (p *Partition) commit(b *pendingBatch) {
	p.commits <- b
}

// waitCommitted blocks until every batch handed to commit is durable and
// released (before a snapshot switches log segments).
func (p *Partition) waitCommitted() {
	done := make(chan struct{})
	p.commits <- &pendingBatch{barrier: done}
	<-done
}

// commitLoop is the committer goroutine (one per partition).
func (p *Partition) commitLoop() {
	defer close(p.committerDone)
	defer close(p.snapJobs)
	for first := range p.commits {
		group := []*pendingBatch{first}
	more:
		for len(group) < 256 {
			select {
			case b, ok := <-p.commits:
				if !ok {
					break more
				}
				group = append(group, b)
			default:
				break more
			}
		}
		var synced *wal.Log
		for _, b := range group {
			if b.wrote && b.log != synced {
				if err := b.log.SyncFile(); err != nil {
					p.fatal(err)
				}
				synced = b.log
			}
		}
		for _, b := range group {
			p.afterCommit(b)
		}
	}
}

// afterCommit sends a durable batch's replies and runs its side effects.
func (p *Partition) afterCommit(b *pendingBatch) {
	if b.barrier != nil {
		close(b.barrier)
		return
	}
	if b.snap != nil {
		// Everything the snapshot covers is durable now. The new segment's
		// directory entry is made durable before any batch appended to it
		// is released (they come after this marker); the snapshot file is
		// written by snapLoop while the next batches commit.
		if err := syncDir(p.dir, p.cfg.NoSync); err != nil {
			p.fatal(err)
		}
		p.snapJobs <- b.snap
		return
	}
	committedAt := time.Now() // the batch is durable from here on
	for _, a := range b.answers {
		if a.c.reply != nil {
			a.c.reply <- a.r
		}
	}
	fx := b.fx
	for _, f := range fx.results {
		f()
	}
	for _, po := range fx.pushes {
		po.t.Deliver(po.job)
	}
	p.sendForwards(fx.forwards)
	if p.cfg.Hooks != nil {
		for t := range fx.notify {
			p.cfg.Hooks.JobsAvailable(t)
		}
	}
	if b.obs != nil {
		b.obs.At = committedAt.UnixNano()
		p.cfg.Observer.Committed(b.obs)
	}
	if len(b.ticks) > 0 {
		r := Result{Resp: TickResult{Fired: b.fired, Pending: p.outboxLen(), More: b.more, Processed: p.processed.Load()}}
		for _, t := range b.ticks {
			t.reply <- r
		}
	}
}
