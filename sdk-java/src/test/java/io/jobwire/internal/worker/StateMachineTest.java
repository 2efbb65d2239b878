package io.jobwire.internal.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jobwire.WorkerState;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StateMachineTest {
  @Test
  void derivesStatesAndReportsOnlyTransitions() {
    List<WorkerState> seen = new ArrayList<>();
    StateMachine m = new StateMachine(seen::add);
    assertEquals(WorkerState.IDLE, m.state());
    m.streamActive = true;
    m.start();
    assertEquals(WorkerState.POLLING, m.state()); // stream not open yet
    m.streamOpen = true;
    m.update();
    m.update(); // no duplicate report
    m.pollBackoff = true;
    m.update(); // an open stream wins over a poll in backoff
    assertEquals(WorkerState.STREAMING, m.state());
    m.streamOpen = false;
    m.streamBackoff = true;
    m.update();
    m.streamBackoff = false;
    m.streamOpen = true;
    m.update();
    m.streamActive = false; // fell back to polling (UNIMPLEMENTED) while the poller backs off
    m.update();
    m.closing();
    m.closed();
    assertEquals(List.of(WorkerState.POLLING, WorkerState.STREAMING, WorkerState.BACKOFF, WorkerState.STREAMING, WorkerState.BACKOFF,
        WorkerState.CLOSING, WorkerState.CLOSED), seen);
  }
}
