package partition

import (
	"context"
	"testing"
	"time"
)

// A partition goroutine that never returns (a bug, a stuck disk) must not
// keep Close, and so the process, from finishing.
func TestCloseIsBoundedWhenThePartitionIsStuck(t *testing.T) {
	p, err := Open(Config{ID: 1, Count: 1, DataDir: t.TempDir(), NoSync: true, Defs: NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	go p.Run()
	release := make(chan struct{})
	defer close(release)
	entered := make(chan struct{})
	go p.Query(context.Background(), func(*State) { close(entered); <-release })
	<-entered
	t0 := time.Now()
	err = p.Close()
	if err == nil {
		t.Fatal("Close of a stuck partition reported success")
	}
	if d := time.Since(t0); d > CloseTimeout+500*time.Millisecond {
		t.Fatalf("Close took %v", d)
	}
	// Commands after Close fail fast instead of queueing forever.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := p.Submit(ctx, &Command{Op: OpQuery, Query: func(*State) {}}); err == nil {
		t.Fatal("Submit after Close succeeded")
	}
}
