package worker

import (
	"testing"
	"time"
)

func TestBackoffSequence(t *testing.T) {
	b := NewBackoff()
	b.rand = func() float64 { return 0.5 } // no jitter
	want := []time.Duration{50, 80, 128, 204, 327, 524, 838, 1342, 2147, 3435, 5000, 5000}
	for i, w := range want {
		got := b.Next()
		w *= time.Millisecond
		if got < w-time.Millisecond || got > w+time.Millisecond {
			t.Fatalf("step %d: got %v, want ≈%v", i, got, w)
		}
	}
	b.Reset()
	if got := b.Next(); got != 50*time.Millisecond {
		t.Fatalf("after reset: %v", got)
	}
}

func TestBackoffJitterBounds(t *testing.T) {
	for _, r := range []float64{0, 0.999999} {
		b := NewBackoff()
		b.rand = func() float64 { return r }
		got := b.Next()
		if got < 45*time.Millisecond || got > 55*time.Millisecond {
			t.Fatalf("jitter out of ±10%%: %v", got)
		}
	}
	b := NewBackoff()
	for i := 0; i < 1000; i++ {
		if d := b.Next(); d > 5500*time.Millisecond || d < 45*time.Millisecond {
			t.Fatalf("delay %v out of bounds", d)
		}
	}
	if m := b.Max(); m < 4500*time.Millisecond || m > 5500*time.Millisecond {
		t.Fatalf("Max = %v", m)
	}
}
