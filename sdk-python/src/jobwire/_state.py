"""The worker's lifecycle state, derived from its parts."""

from __future__ import annotations

import enum
from typing import Callable


class WorkerState(str, enum.Enum):
    """Lifecycle states of a worker: ``idle -> polling | streaming <-> backoff -> closing -> closed``."""

    IDLE = "idle"
    """Created, not yet receiving jobs."""
    POLLING = "polling"
    """Receiving jobs by polling alone: no stream is open (streaming off, or the stream is not up)."""
    STREAMING = "streaming"
    """A job stream is open; the worker still polls beside it."""
    BACKOFF = "backoff"
    """Waiting after an error before the next poll or stream."""
    CLOSING = "closing"
    """Closing: no new jobs; running handlers finish."""
    CLOSED = "closed"
    """Closed."""

    def __str__(self) -> str:
        return self.value


class StateMachine:
    """closing/closed win; then backoff when the active transport waits after an error;
    an open stream wins over a poll in backoff; else polling."""

    def __init__(self, emit: Callable[[WorkerState], None]) -> None:
        self._emit = emit
        self.current = WorkerState.IDLE
        self._lifecycle = WorkerState.IDLE
        self.stream_active = False
        self.stream_open = False
        self.stream_backoff = False
        self.poll_backoff = False

    def start(self) -> None:
        """The worker's loops started."""
        self._lifecycle = WorkerState.POLLING
        self.update()

    def closing(self) -> None:
        """close() began."""
        self._lifecycle = WorkerState.CLOSING
        self.update()

    def closed(self) -> None:
        """close() finished."""
        self._lifecycle = WorkerState.CLOSED
        self.update()

    def update(self) -> None:
        """Recomputes the state after a part changed and reports a transition."""
        nxt: WorkerState
        if self._lifecycle != WorkerState.POLLING:
            nxt = self._lifecycle
        elif self.stream_active and self.stream_open:
            nxt = WorkerState.STREAMING
        elif self.stream_active and self.stream_backoff:
            nxt = WorkerState.BACKOFF
        else:
            nxt = WorkerState.BACKOFF if self.poll_backoff else WorkerState.POLLING
        if nxt != self.current:
            self.current = nxt
            self._emit(nxt)
