package partition

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The results verifier (tests only): a shadow state built only from results
// records, compared with the live state after every batch.

// VerifyResults (tests only) keeps a second state per partition that is
// built only by applying the partition's results records, and compares it
// with the live state after every batch: a change that processing made but
// no record carries panics the partition with both states' encodings in
// the message.
var VerifyResults = false

// startShadow creates the shadow state from a snapshot of the recovered
// state. It shares the definition registry (in a multi-partition process
// other partitions register definitions in it, as during recovery);
// TestResultsRecoveryEqualsLiveState checks definitions in full.
func (p *Partition) startShadow() error {
	cfg := p.cfg
	sh := &Partition{cfg: cfg, st: newState(cfg.ID, cfg.Defs, cfg.History)}
	es, err := p.encodeSnapshot(0, 0)
	if err != nil {
		return err
	}
	b, err := es.assemble()
	if err != nil {
		return err
	}
	if _, err := sh.loadSnapshot(b); err != nil {
		return err
	}
	p.shadow = sh
	return nil
}

func (p *Partition) verifyApply(b []byte) {
	if err := p.shadow.applyResults(b); err != nil {
		panic(fmt.Sprintf("VerifyResults: partition %d: a results record does not apply: %v", p.cfg.ID, err))
	}
}

// verifyBatch compares the live state with the shadow (between batches).
func (p *Partition) verifyBatch() {
	if p.shadow.eventsApplied {
		p.shadow.st.events = p.shadow.st.evs().fill()
		p.shadow.eventsApplied = false
	}
	live, err := p.stateImage()
	if err != nil {
		panic(err)
	}
	sh, err := p.shadow.stateImage()
	if err != nil {
		panic(err)
	}
	if !bytes.Equal(live, sh) {
		i := 0
		for i < len(live) && i < len(sh) && live[i] == sh[i] {
			i++
		}
		from := max(i-400, 0)
		panic(fmt.Sprintf("VerifyResults: partition %d: the state rebuilt from results records differs from the live state at byte %d\nlive:    …%s\nrebuilt: …%s",
			p.cfg.ID, i, live[from:min(i+200, len(live))], sh[from:min(i+200, len(sh))]))
	}
}

// stateImage is the snapshot encoding of the state without what a results
// record does not carry by design: the processing clock (lastNow, a floor
// for the next batch's time) and the definitions of a registry shared with
// other partitions (each partition logs the ones it registered).
func (p *Partition) stateImage() ([]byte, error) {
	es, err := p.encodeSnapshot(0, 0)
	if err != nil {
		return nil, err
	}
	b, err := es.assemble()
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	delete(m, "lastNow")
	delete(m, "defs")
	delete(m, "resources")
	return json.Marshal(m)
}
