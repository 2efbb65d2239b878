package worker

import "sync"

// State is the worker's lifecycle state.
type State string

// The worker states, shared by every SDK.
const (
	StateIdle      State = "idle"
	StatePolling   State = "polling"
	StateStreaming State = "streaming"
	StateBackoff   State = "backoff"
	StateClosing   State = "closing"
	StateClosed    State = "closed"
)

// stateMachine derives the worker state from a few facts reported by the
// poller and the streamer, so that every error path lands in a defined state:
//
//	idle ──start──▶ streaming | polling ◀──▶ backoff
//	any ──close──▶ closing ──▶ closed
//
// Listeners are called in order from one goroutine, never under the lock.
type stateMachine struct {
	mu        sync.Mutex
	state     State
	started   bool
	closing   bool
	closed    bool
	streamOn  bool // streaming is enabled and supported
	streamUp  bool // a stream is open
	streamErr bool // the streamer is waiting to reopen
	pollErr   bool // the last poll failed
	listeners []func(State)
	pending   []State       // transitions not yet delivered (unbounded: a slow listener never blocks the worker)
	wake      chan struct{} // capacity 1
	done      chan struct{}
}

func newStateMachine(streamOn bool) *stateMachine {
	m := &stateMachine{state: StateIdle, streamOn: streamOn, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go m.dispatch()
	return m
}

func (m *stateMachine) dispatch() {
	defer close(m.done)
	for range m.wake {
		for {
			m.mu.Lock()
			if len(m.pending) == 0 {
				final := m.closed
				m.mu.Unlock()
				if final {
					return
				}
				break
			}
			s := m.pending[0]
			m.pending = m.pending[1:]
			ls := append([]func(State){}, m.listeners...)
			m.mu.Unlock()
			for _, f := range ls {
				f(s)
			}
		}
	}
}

// Subscribe adds a listener for every later transition.
func (m *stateMachine) Subscribe(f func(State)) {
	m.mu.Lock()
	m.listeners = append(m.listeners, f)
	m.mu.Unlock()
}

// Current returns the state.
func (m *stateMachine) Current() State {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state
}

func (m *stateMachine) update(f func()) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	f()
	next := m.derive()
	changed := next != m.state
	m.state = next
	if changed {
		m.pending = append(m.pending, next)
		select {
		case m.wake <- struct{}{}:
		default:
		}
	}
	m.mu.Unlock()
}

func (m *stateMachine) derive() State {
	switch {
	case m.closed:
		return StateClosed
	case m.closing:
		return StateClosing
	case !m.started:
		return StateIdle
	case m.pollErr || (m.streamOn && m.streamErr):
		return StateBackoff
	case m.streamOn && m.streamUp:
		return StateStreaming
	case m.streamOn:
		// The stream is being (re)opened; polling carries the work meanwhile.
		return StatePolling
	default:
		return StatePolling
	}
}

func (m *stateMachine) Start()        { m.update(func() { m.started = true }) }
func (m *stateMachine) StreamUp()     { m.update(func() { m.streamUp, m.streamErr = true, false }) }
func (m *stateMachine) StreamFailed() { m.update(func() { m.streamUp, m.streamErr = false, true }) }
func (m *stateMachine) StreamUnsupported() {
	m.update(func() { m.streamOn, m.streamUp, m.streamErr = false, false, false })
}
func (m *stateMachine) PollOK()     { m.update(func() { m.pollErr = false }) }
func (m *stateMachine) PollFailed() { m.update(func() { m.pollErr = true }) }
func (m *stateMachine) Closing()    { m.update(func() { m.closing = true }) }
func (m *stateMachine) Closed()     { m.update(func() { m.closed = true }) }
func (m *stateMachine) Wait()       { <-m.done }
