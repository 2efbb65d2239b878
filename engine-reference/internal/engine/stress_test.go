package engine

import (
	"bytes"
	"context"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/stress"
)

// goroutines returns every goroutine's stack (the in-process hang dump).
func goroutines() string {
	var b bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&b, 2)
	return b.String()
}

// TestStressNoHang runs the hang hunter (package stress) against an
// in-process dev engine, under the race detector in scripts/test.sh.
// JOBWIRE_STRESS_DURATION=5m runs it longer.
func TestStressNoHang(t *testing.T) {
	e, err := Start(Config{Port: 0, DataDir: t.TempDir(), Partitions: 3})
	if err != nil {
		t.Fatalf("engine start: %v", err)
	}
	defer e.Close()
	d := stress.DurationFromEnv(8 * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), d+3*time.Minute)
	defer cancel()
	res, err := stress.Run(ctx, stress.Config{Gateways: []string{e.Addr()}, Duration: d, Logf: t.Logf, Dump: goroutines})
	t.Logf("stress (dev, in-process): %s", res)
	if err != nil {
		t.Fatal(err)
	}
	if res.Instances == 0 || res.Pushed == 0 || res.Polled == 0 {
		t.Fatalf("the workload did not exercise push and poll: %s", res)
	}
	closed := make(chan struct{})
	go func() { e.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatalf("engine Close did not return within 5 s\n%s", goroutines())
	}
}
