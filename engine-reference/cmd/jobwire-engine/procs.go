package main

import (
	"os"
	"runtime"
)

// reserveSyncProcs raises GOMAXPROCS by one per partition that fsyncs, so a
// committer blocked in fsync never holds a P that the partition goroutines
// and the gRPC handlers need.
//
// Why: a goroutine in a blocking system call keeps its P until the
// runtime's monitor takes it away, which takes from 20 µs up to 10 ms. An
// fsync here lasts 0.2–0.9 ms, so with GOMAXPROCS = 2 (this 2-core machine)
// and 3 partition committers, the Ps sat in fsync while runnable work
// waited: each fsync then carried ~1 record, and `bench` ran bimodally at
// 2,849–4,780 instances/s. With 5 Ps the same binary ran 6,620–7,628/s,
// p99 20.6–26.4 ms, every run (engine README and STATUS.md).
//
// An explicit GOMAXPROCS in the environment is left as it is. The base is
// the runtime's own value, which already follows a container's CPU limit;
// setting it stops the runtime from following later changes of that limit
// (Go 1.25+), which a restart picks up. Returns the value in effect
// afterwards. Call it once per process.
func reserveSyncProcs(partitions int, noSync bool) int {
	cur := runtime.GOMAXPROCS(0)
	if noSync || partitions <= 0 || os.Getenv("GOMAXPROCS") != "" {
		return cur
	}
	want := cur + partitions // cur already follows a container's CPU limit
	runtime.GOMAXPROCS(want)
	return want
}
