"""The job worker: push + poll under one capacity ledger, graceful close, observable state."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import time
from typing import Callable, List, Optional

from ._executor import Executor, WorkerContext
from ._ledger import Ledger
from ._options import WorkerOptions
from ._poller import Poller
from ._state import StateMachine, WorkerState
from ._streamer import Streamer
from ._telemetry import Telemetry
from ._transport import Transport
from .config import Duration, to_seconds

__all__ = ["Worker", "WorkerState"]

StateListener = Callable[[WorkerState], None]
ErrorListener = Callable[[BaseException], None]


class Worker:
    """A job worker, created by :meth:`jobwire.Client.worker`.

    It starts as soon as an event loop runs it (push stream + long polling) and
    runs until :meth:`close`. Transport errors never escape as exceptions: they
    move the worker to ``backoff`` and it retries forever. Errors an application
    should see (auth, invalid requests) go to :meth:`on_error` listeners (else
    the ``jobwire`` logger).

    Example::

        worker = client.worker("email", send_email, max_jobs_active=16)
        worker.on_state(lambda s: print("worker is", s))
        ...
        await worker.close(timeout=10)
    """

    def __init__(self, transport: Transport, options: WorkerOptions, logger: logging.Logger) -> None:
        self.options = options
        """The options after defaults (durations in seconds)."""
        self._transport = transport
        self._logger = logger
        self._ledger = Ledger(options.max_jobs_active)
        self._state_listeners: List[StateListener] = []
        self._error_listeners: List[ErrorListener] = []
        self._machine = StateMachine(self._emit_state)
        self._tasks: List["asyncio.Task[None]"] = []
        self._ctx: Optional[WorkerContext] = None
        self._executor: Optional[Executor] = None
        self._poller: Optional[Poller] = None
        self._streamer: Optional[Streamer] = None
        self._close_task: Optional["asyncio.Task[None]"] = None
        self._closed_event: Optional[asyncio.Event] = None
        self._started = False
        self._closed = False

    # --- public --------------------------------------------------------------------------
    @property
    def state(self) -> WorkerState:
        """Current lifecycle state: idle, polling, streaming, backoff, closing or closed."""
        return self._machine.current

    @property
    def held_jobs(self) -> int:
        """Jobs held right now (received, not yet finished); never above max_jobs_active."""
        return self._ledger.held

    @property
    def job_type(self) -> str:
        """The job type this worker works on."""
        return self.options.job_type

    def on_state(self, listener: StateListener) -> Callable[[], None]:
        """Calls ``listener(state)`` on every lifecycle transition; returns the unsubscribe function."""
        self._state_listeners.append(listener)
        return lambda: self._state_listeners.remove(listener) if listener in self._state_listeners else None

    def on_error(self, listener: ErrorListener) -> Callable[[], None]:
        """Calls ``listener(error)`` for errors the application should see; returns the unsubscribe function."""
        self._error_listeners.append(listener)
        return lambda: self._error_listeners.remove(listener) if listener in self._error_listeners else None

    async def close(self, timeout: Duration = 30.0) -> None:
        """Stops taking jobs at once (cancels the parked long poll, drains the stream and hands back
        what it held), fails back received-but-unstarted jobs (retries unchanged, no backoff), lets
        running handlers finish until ``timeout``, then cancels them. Calling it again waits for the
        same close."""
        t = to_seconds(timeout, "timeout")
        if self._close_task is None:
            self._close_task = asyncio.get_running_loop().create_task(self._do_close(t))
        await asyncio.shield(self._close_task)

    async def wait_closed(self) -> None:
        """Returns once the worker is closed."""
        if self._closed:
            return
        if self._closed_event is None:
            self._closed_event = asyncio.Event()
        await self._closed_event.wait()

    @property
    def closed(self) -> bool:
        """True once close() finished."""
        return self._closed

    # --- internals -------------------------------------------------------------------------
    def _start(self) -> None:
        """Starts the loops on the running event loop (idempotent)."""
        if self._started or self._close_task is not None:
            return
        self._started = True
        if self._closed_event is None:
            self._closed_event = asyncio.Event()
        o = self.options
        telemetry = Telemetry(o.job_type, o.worker_name, lambda: self._ledger.held)
        pool = None
        if not o.is_async:
            pool = concurrent.futures.ThreadPoolExecutor(max_workers=o.concurrency, thread_name_prefix=f"jobwire-{o.job_type}")
        self._ctx = WorkerContext(
            opts=o,
            transport=self._transport,
            lease=self._transport.lease_long(),
            ledger=self._ledger,
            state=self._machine,
            telemetry=telemetry,
            logger=self._logger,
            report_error=self._report_error,
            pool=pool,
        )
        self._executor = Executor(self._ctx)
        self._poller = Poller(self._ctx, self._executor)
        loop = asyncio.get_running_loop()
        self._machine.start()
        if o.stream_enabled:
            self._machine.stream_active = True
            self._streamer = Streamer(self._ctx, self._executor, self._poller)
            self._tasks.append(loop.create_task(self._guard(self._streamer.run(), "stream")))
        self._tasks.append(loop.create_task(self._guard(self._poller.run(), "poll")))

    async def _guard(self, coro: "asyncio.Future[None] | object", what: str) -> None:
        try:
            await coro  # type: ignore[misc]
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - a bug must be loud, never silent
            self._logger.exception("jobwire worker %s: %s loop crashed: %s", self.options.job_type, what, e)
            self._report_error(e)

    async def _do_close(self, timeout: float) -> None:
        self._machine.closing()
        ctx = self._ctx
        if ctx is None:  # never started
            self._finish_close()
            return
        t0 = time.monotonic()
        ctx.stop.set()
        assert self._poller is not None and self._executor is not None
        self._poller.stop()
        if self._streamer is not None:
            self._streamer.close_timeout = timeout
            self._streamer.stop()
        await asyncio.gather(self._executor.close(timeout), *self._tasks, return_exceptions=True)
        await self._executor.flush(max(0.5, 5.0 - (time.monotonic() - t0)))
        ctx.lease.release()
        if ctx.pool is not None:
            ctx.pool.shutdown(wait=False)
        # The capacity gauge keeps reporting (0 once closed) while the worker object lives.
        self._finish_close()

    def _finish_close(self) -> None:
        self._closed = True
        self._machine.closed()
        if self._closed_event is not None:
            self._closed_event.set()

    def _emit_state(self, state: WorkerState) -> None:
        self._logger.debug("worker %s: %s", self.options.job_type, state.value)
        for fn in list(self._state_listeners):
            try:
                fn(state)
            except Exception as e:  # noqa: BLE001 - a throwing listener must never break the worker
                self._logger.error("a state listener raised: %r", e)

    def _report_error(self, err: BaseException) -> None:
        if not self._error_listeners:
            self._logger.error("worker %s: %s", self.options.job_type, err)
            return
        for fn in list(self._error_listeners):
            try:
                fn(err)
            except Exception as e:  # noqa: BLE001
                self._logger.error("an error listener raised: %r", e)
