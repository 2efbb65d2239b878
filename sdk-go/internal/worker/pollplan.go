package worker

import "time"

// The poller's decisions as pure functions (docs/worker-semantics.md, "Push
// and poll"), so the shared vectors (conformance-tests/vectors/poller.json)
// check the same rules in every SDK: which poll to send now, and what a
// poll's answer means for the next one.

// pollInput is what the poller knows when it decides.
type pollInput struct {
	free           int  // max − held − reserved (Ledger.PollWanted)
	below          bool // jobs held ≤ 30 % of capacity
	pushing        bool // a stream is open
	backfill       bool // the first poll, or one after the stream (re)opened
	due            bool // the last poll got all it asked for while pushing
	sinceLastEnd   time.Duration
	streamEnabled  bool
	requestTimeout time.Duration // the worker's option (0: gateway default, < 0: no long polling)
}

// pollDecision: send a poll for ask jobs, or wait for a change.
type pollDecision struct {
	send           bool
	ask            int
	requestTimeout time.Duration // of this request (−1: answer at once)
	parks          bool          // a long poll: the stream reader may borrow from its pool
	markDue        bool          // the stream reader leaves the next free slot to this poll
	fairnessIn     time.Duration // > 0: look again after this long even if nothing changes
}

// planPoll decides the next poll. A poll is sent when a slot is free and held
// is at or below the poll threshold, or a backfill or fairness poll is due
// (rule 8: pushing above the threshold, a fairness poll is due 1 s after the
// last poll ended, at once after a full one). Backfill (with streaming) and
// fairness polls do not park.
func planPoll(in pollInput) pollDecision {
	var d pollDecision
	fairness := false
	if !in.backfill && !in.below && in.pushing {
		if in.due || in.sinceLastEnd >= fairnessInterval {
			fairness = true
		} else {
			d.fairnessIn = fairnessInterval - in.sinceLastEnd
		}
	}
	special := in.backfill || fairness
	if in.free <= 0 || !(special || in.below) {
		d.markDue = special && in.free <= 0
		return d
	}
	d.send, d.ask, d.requestTimeout = true, in.free, in.requestTimeout
	if fairness || in.backfill && in.streamEnabled {
		d.requestTimeout = -1
	}
	if d.requestTimeout < 0 {
		d.requestTimeout = -1
	}
	d.parks = d.requestTimeout >= 0
	d.fairnessIn = 0
	return d
}

// pollAfter is what a poll's answer means.
type pollAfter struct {
	due   bool // the next poll is due at once: it got all it asked for while pushing
	stall bool // evidence for the stall watchdog (rule 6)
}

// afterPoll: a poll that got as many jobs as it asked for while pushing makes
// the next poll due at once. A long poll (not a backfill) whose first job came
// ≥ stallParkedMin after sending is stall evidence: its jobs became
// activatable while the stream should have been pushing them.
func afterPoll(pushing, failed bool, asked, got int, backfill, parks bool, firstJob time.Duration) pollAfter {
	if failed {
		return pollAfter{}
	}
	return pollAfter{
		due:   pushing && got > 0 && got >= asked,
		stall: got > 0 && !backfill && parks && firstJob >= stallParkedMin,
	}
}
