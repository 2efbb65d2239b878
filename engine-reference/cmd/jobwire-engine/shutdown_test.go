package main

import (
	"os"
	"syscall"
	"testing"
	"time"
)

func TestShutdownReturnsWhenCloseIsStuck(t *testing.T) {
	stop := make(chan os.Signal, 1)
	block := make(chan struct{})
	defer close(block)
	t0 := time.Now()
	if code := shutdown(stop, "test", 200*time.Millisecond, func() { <-block }); code != 1 {
		t.Fatalf("exit code %d", code)
	}
	if d := time.Since(t0); d > time.Second {
		t.Fatalf("took %v", d)
	}
	// A second signal ends the wait at once.
	stop <- syscall.SIGTERM
	t0 = time.Now()
	if code := shutdown(stop, "test", time.Minute, func() { <-block }); code != 1 || time.Since(t0) > time.Second {
		t.Fatalf("second signal: code %d after %v", code, time.Since(t0))
	}
	if code := shutdown(stop, "test", time.Minute, func() {}); code != 0 {
		t.Fatalf("clean close: code %d", code)
	}
}
