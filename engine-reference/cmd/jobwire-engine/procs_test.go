package main

import (
	"runtime"
	"testing"
)

func TestReserveSyncProcs(t *testing.T) {
	orig := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(orig) })
	t.Setenv("GOMAXPROCS", "")

	runtime.GOMAXPROCS(2)
	if got := reserveSyncProcs(3, false); got != 5 || runtime.GOMAXPROCS(0) != 5 {
		t.Fatalf("3 fsyncing partitions on 2 Ps: got %d (GOMAXPROCS %d), want 5", got, runtime.GOMAXPROCS(0))
	}

	runtime.GOMAXPROCS(2)
	if got := reserveSyncProcs(3, true); got != 2 || runtime.GOMAXPROCS(0) != 2 {
		t.Fatalf("--no-fsync must leave GOMAXPROCS alone: got %d", got)
	}

	t.Setenv("GOMAXPROCS", "2")
	if got := reserveSyncProcs(3, false); got != 2 || runtime.GOMAXPROCS(0) != 2 {
		t.Fatalf("an explicit GOMAXPROCS must be kept: got %d", got)
	}
}
