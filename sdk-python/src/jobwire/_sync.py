"""The synchronous facade behind the deprecated :mod:`jobwire.sync` (the test kit uses it too).

It runs the asyncio client on an event loop in a background thread. Handlers
given to :meth:`Client.worker` may be plain functions (they run in a thread
pool bounded by ``concurrency``) or ``async`` functions (they run on the
background loop)::

    from jobwire.sync import Client

    def charge(job):
        return {"charged": job.variables["amount"]}

    with Client() as client:
        client.worker("charge", charge, max_jobs_active=8)
        client.run_workers()          # blocks; Ctrl-C closes the workers gracefully
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import signal
import threading
from typing import Any, Callable, Coroutine, List, Optional, TypeVar

from . import client as _aclient
from ._options import Handler
from ._state import WorkerState
from .config import Duration
from .job import Job
from .router import JobRouter
from .results import DecisionEvaluation, Deployment, ProcessInstance, ProcessInstanceResult, Topology
from .worker import Worker as _AsyncWorker

__all__ = ["Client", "Worker"]

T = TypeVar("T")


class _Loop:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="jobwire-loop", daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: Optional[float] = None) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        if not self.thread.is_alive():
            self.loop.close()


class Worker:
    """Synchronous view of a :class:`jobwire.Worker`."""

    def __init__(self, inner: _AsyncWorker, loop: _Loop) -> None:
        self._w = inner
        self._loop = loop

    @property
    def state(self) -> WorkerState:
        """Current lifecycle state."""
        return self._w.state

    @property
    def held_jobs(self) -> int:
        """Jobs held right now."""
        return self._w.held_jobs

    def on_state(self, listener: Callable[[WorkerState], None]) -> Callable[[], None]:
        """Calls ``listener(state)`` on every transition (from the client's loop thread)."""
        return self._w.on_state(listener)

    def on_error(self, listener: Callable[[BaseException], None]) -> Callable[[], None]:
        """Calls ``listener(error)`` for errors the application should see (from the loop thread)."""
        return self._w.on_error(listener)

    def close(self, timeout: Duration = 30.0) -> None:
        """Graceful close (see :meth:`jobwire.Worker.close`); blocks until closed."""
        self._loop.run(self._w.close(timeout))


class Client:
    """Synchronous facade over :class:`jobwire.Client`; takes the same keyword options."""

    def __init__(self, **options: Any) -> None:
        self._loop = _Loop()
        try:
            self._c = _aclient.Client(**options)
        except BaseException:
            self._loop.stop()
            raise
        self._closed = False

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def async_client(self) -> _aclient.Client:
        """The asyncio client underneath (use it only on the facade's loop)."""
        return self._c

    def worker(self, job_type: str, handler: Handler, **options: Any) -> Worker:
        """Creates and starts a worker (same options as :meth:`jobwire.Client.worker`)."""

        async def make() -> _AsyncWorker:
            return self._c.worker(job_type, handler, **options)

        return Worker(self._loop.run(make()), self._loop)

    def include_router(self, router: JobRouter) -> List[Worker]:
        """Creates and starts the workers of a :class:`jobwire.JobRouter` (as
        :meth:`jobwire.Client.include_router`)."""

        async def make() -> List[_AsyncWorker]:
            return self._c.include_router(router)

        return [Worker(w, self._loop) for w in self._loop.run(make())]

    def run_workers(self, close_timeout: Duration = 30.0) -> None:
        """Blocks until every worker is closed. Ctrl-C (KeyboardInterrupt) and, on the main
        thread, SIGTERM close them gracefully (each with ``close_timeout``) and return."""
        fut = asyncio.run_coroutine_threadsafe(self._c.run_workers(handle_signals=False), self._loop.loop)
        term = threading.Event()
        old: Any = None
        on_main = threading.current_thread() is threading.main_thread()
        if on_main:
            old = signal.signal(signal.SIGTERM, lambda *_: term.set())
        try:
            while not term.is_set():
                try:
                    fut.result(timeout=0.2)
                    return
                except concurrent.futures.TimeoutError:
                    continue
        except KeyboardInterrupt:
            pass
        finally:
            if on_main:
                signal.signal(signal.SIGTERM, old)
        self.close(close_timeout)

    def close(self, timeout: Duration = 30.0) -> None:
        """Closes every worker (each with ``timeout``), the channels and the background loop."""
        if self._closed:
            return
        self._closed = True
        try:
            self._loop.run(self._c.close(timeout))
        finally:
            self._loop.stop()

    # --- commands (blocking versions of the async client's) --------------------------------
    def topology(self, **kw: Any) -> Topology:
        """See :meth:`jobwire.Client.topology`."""
        return self._loop.run(self._c.topology(**kw))

    def deploy_resource(self, *resources: Any, **kw: Any) -> Deployment:
        """See :meth:`jobwire.Client.deploy_resource`."""
        return self._loop.run(self._c.deploy_resource(*resources, **kw))

    def create_process_instance(self, *a: Any, **kw: Any) -> ProcessInstance:
        """See :meth:`jobwire.Client.create_process_instance`."""
        return self._loop.run(self._c.create_process_instance(*a, **kw))

    def create_process_instance_with_result(self, *a: Any, **kw: Any) -> ProcessInstanceResult:
        """See :meth:`jobwire.Client.create_process_instance_with_result`."""
        return self._loop.run(self._c.create_process_instance_with_result(*a, **kw))

    def cancel_process_instance(self, *a: Any, **kw: Any) -> None:
        """See :meth:`jobwire.Client.cancel_process_instance`."""
        self._loop.run(self._c.cancel_process_instance(*a, **kw))

    def publish_message(self, *a: Any, **kw: Any) -> int:
        """See :meth:`jobwire.Client.publish_message`."""
        return self._loop.run(self._c.publish_message(*a, **kw))

    def set_variables(self, *a: Any, **kw: Any) -> int:
        """See :meth:`jobwire.Client.set_variables`."""
        return self._loop.run(self._c.set_variables(*a, **kw))

    def resolve_incident(self, *a: Any, **kw: Any) -> None:
        """See :meth:`jobwire.Client.resolve_incident`."""
        self._loop.run(self._c.resolve_incident(*a, **kw))

    def update_job_retries(self, *a: Any, **kw: Any) -> None:
        """See :meth:`jobwire.Client.update_job_retries`."""
        self._loop.run(self._c.update_job_retries(*a, **kw))

    def update_job_timeout(self, *a: Any, **kw: Any) -> None:
        """See :meth:`jobwire.Client.update_job_timeout`."""
        self._loop.run(self._c.update_job_timeout(*a, **kw))

    def complete_job(self, *a: Any, **kw: Any) -> None:
        """See :meth:`jobwire.Client.complete_job`."""
        self._loop.run(self._c.complete_job(*a, **kw))

    def fail_job(self, *a: Any, **kw: Any) -> None:
        """See :meth:`jobwire.Client.fail_job`."""
        self._loop.run(self._c.fail_job(*a, **kw))

    def throw_error(self, *a: Any, **kw: Any) -> None:
        """See :meth:`jobwire.Client.throw_error`."""
        self._loop.run(self._c.throw_error(*a, **kw))

    def evaluate_decision(self, *a: Any, **kw: Any) -> DecisionEvaluation:
        """See :meth:`jobwire.Client.evaluate_decision`."""
        return self._loop.run(self._c.evaluate_decision(*a, **kw))

    def modify_process_instance(self, *a: Any, **kw: Any) -> None:
        """See :meth:`jobwire.Client.modify_process_instance`."""
        self._loop.run(self._c.modify_process_instance(*a, **kw))

    def migrate_process_instance(self, *a: Any, **kw: Any) -> None:
        """See :meth:`jobwire.Client.migrate_process_instance`."""
        self._loop.run(self._c.migrate_process_instance(*a, **kw))

    def delete_resource(self, *a: Any, **kw: Any) -> None:
        """See :meth:`jobwire.Client.delete_resource`."""
        self._loop.run(self._c.delete_resource(*a, **kw))

    def broadcast_signal(self, *a: Any, **kw: Any) -> int:
        """See :meth:`jobwire.Client.broadcast_signal`."""
        return self._loop.run(self._c.broadcast_signal(*a, **kw))

    def activate_jobs(self, *a: Any, **kw: Any) -> List[Job]:
        """See :meth:`jobwire.Client.activate_jobs`."""
        return self._loop.run(self._c.activate_jobs(*a, **kw))
