package worker

import (
	"reflect"
	"sync"
	"testing"
)

func TestStateMachineTransitions(t *testing.T) {
	m := newStateMachine(true)
	var mu sync.Mutex
	var seen []State
	m.Subscribe(func(s State) { mu.Lock(); seen = append(seen, s); mu.Unlock() })
	if m.Current() != StateIdle {
		t.Fatalf("initial %s", m.Current())
	}
	m.Start()             // stream not up yet: polling
	m.StreamUp()          // streaming
	m.PollOK()            // no change
	m.StreamFailed()      // backoff
	m.StreamUp()          // streaming
	m.PollFailed()        // backoff
	m.PollOK()            // streaming
	m.StreamUnsupported() // polling only
	m.Closing()
	m.Closed()
	m.StreamUp() // ignored after closed
	m.Wait()
	want := []State{StatePolling, StateStreaming, StateBackoff, StateStreaming, StateBackoff, StateStreaming, StatePolling, StateClosing, StateClosed}
	mu.Lock()
	defer mu.Unlock()
	if !reflect.DeepEqual(seen, want) {
		t.Fatalf("transitions\n got %v\nwant %v", seen, want)
	}
	if m.Current() != StateClosed {
		t.Fatalf("final %s", m.Current())
	}
}

func TestStateMachinePollingOnly(t *testing.T) {
	m := newStateMachine(false)
	var seen []State
	m.Subscribe(func(s State) { seen = append(seen, s) })
	m.Start()
	m.StreamUp() // irrelevant with streaming off
	m.PollFailed()
	m.PollOK()
	m.Closing()
	m.Closed()
	m.Wait()
	want := []State{StatePolling, StateBackoff, StatePolling, StateClosing, StateClosed}
	if !reflect.DeepEqual(seen, want) {
		t.Fatalf("got %v want %v", seen, want)
	}
}
