"""FastAPI / Starlette integration: workers that start with the app and close gracefully with it.

Install the extra (it adds Starlette; FastAPI is Starlette underneath)::

    pip install "jobwire[fastapi]" fastapi uvicorn

Example::

    from dataclasses import dataclass

    from fastapi import FastAPI
    from jobwire import JobRouter
    from jobwire.fastapi import JobwireLifespan, health

    @dataclass
    class Order:
        order_id: str
        amount: float

    router = JobRouter(max_jobs_active=16)

    @router.job("charge")
    async def charge(order: Order) -> dict:
        return {"charged": order.amount}

    app = FastAPI(lifespan=JobwireLifespan(router, close_timeout=20.0))
    app.add_route("/health/jobwire", health)

On startup the lifespan creates the :class:`jobwire.Client` (``**client_options``, the
``ZEEBE_*`` / ``CAMUNDA_*`` environment, or ``client_factory()``), puts it at
``app.state.jobwire``, enters the app's own ``lifespan`` (if given) and then starts the workers
of every router. On shutdown it closes the workers gracefully (each with ``close_timeout``:
running handlers finish, jobs received but not started are handed back), then leaves the app's
own lifespan, then closes the client.

This module is the only part of jobwire that imports Starlette; ``import jobwire`` does not.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, AsyncContextManager, AsyncIterator, Callable, Dict, Optional, Tuple

from starlette.requests import Request
from starlette.responses import JSONResponse

from ._state import WorkerState
from .client import Client
from .config import Duration, to_seconds
from .errors import ConfigurationError
from .router import JobRouter
from .worker import Worker

__all__ = ["JobwireLifespan", "health", "health_report"]

_UP_STATES = frozenset({WorkerState.IDLE, WorkerState.POLLING, WorkerState.STREAMING})


class JobwireLifespan:
    """An ASGI lifespan (``FastAPI(lifespan=...)``, ``Starlette(lifespan=...)``) that runs the
    workers of ``routers`` while the app runs.

    - ``routers``: :class:`jobwire.JobRouter` objects; each is registered with
      :meth:`jobwire.Client.include_router` once the app started.
    - ``client_factory``: a function returning the :class:`jobwire.Client` to use (called on
      startup). Without it the client is ``Client(**client_options)`` (the keyword options of
      :class:`jobwire.Client`; what is absent comes from the environment). Not both.
    - ``close_timeout``: seconds each worker gets on shutdown for its running handlers
      (default 30.0); then they are cancelled and their jobs handed back.
    - ``lifespan``: the app's own lifespan (``app -> async context manager``); it runs inside
      this one: entered after the client exists (``app.state.jobwire`` is set) and before the
      workers start, left after the workers closed. What it yields is the lifespan state.

    Bad configuration fails the app's startup with :class:`jobwire.ConfigurationError`.
    """

    def __init__(
        self,
        *routers: JobRouter,
        client_factory: Optional[Callable[[], Client]] = None,
        close_timeout: Duration = 30.0,
        lifespan: Optional[Callable[[Any], AsyncContextManager[Any]]] = None,
        **client_options: Any,
    ) -> None:
        for r in routers:
            if not isinstance(r, JobRouter):
                raise ConfigurationError(f"jobwire.fastapi: JobwireLifespan takes JobRouter objects, got {type(r).__name__}")
        if client_factory is not None and client_options:
            raise ConfigurationError(
                f"jobwire.fastapi: give client_factory or client options ({', '.join(sorted(client_options))}), not both"
            )
        if client_factory is not None and not callable(client_factory):
            raise ConfigurationError(f"jobwire.fastapi: client_factory must be a function returning a Client, got {client_factory!r}")
        if lifespan is not None and not callable(lifespan):
            raise ConfigurationError(f"jobwire.fastapi: lifespan must be a function app -> async context manager, got {lifespan!r}")
        self.routers: Tuple[JobRouter, ...] = routers
        """The routers whose workers run while the app runs."""
        self.close_timeout: float = to_seconds(close_timeout, "close_timeout")
        """Seconds each worker gets on shutdown for its running handlers."""
        self._client_factory = client_factory
        self._client_options: Dict[str, Any] = dict(client_options)
        self._lifespan = lifespan

    def __call__(self, app: Any) -> AsyncContextManager[Any]:
        return self._run(app)

    def _new_client(self) -> Client:
        if self._client_factory is None:
            return Client(**self._client_options)
        client = self._client_factory()
        if not isinstance(client, Client):
            raise ConfigurationError(f"jobwire.fastapi: client_factory returned {type(client).__name__}, not a jobwire.Client")
        return client

    @contextlib.asynccontextmanager
    async def _run(self, app: Any) -> AsyncIterator[Any]:
        client = self._new_client()
        try:
            app.state.jobwire = client
            async with contextlib.AsyncExitStack() as stack:
                state = None
                if self._lifespan is not None:
                    state = await stack.enter_async_context(self._lifespan(app))
                try:
                    for router in self.routers:
                        client.include_router(router)
                    yield state
                finally:
                    # Every worker of the client (the routers' and any the app added), before the
                    # app's own resources go: handlers still running may need them.
                    await asyncio.gather(*(w.close(self.close_timeout) for w in client.workers), return_exceptions=True)
        finally:
            await client.close(self.close_timeout)


def _worker_report(w: Worker) -> Dict[str, Any]:
    return {"name": w.options.worker_name, "type": w.job_type, "state": w.state.value, "heldJobs": w.held_jobs}


def health_report(app: Any) -> Dict[str, Any]:
    """The health of the app's jobwire workers:
    ``{"status": "UP", "workers": [{"name", "type", "state", "heldJobs"}, ...]}``.

    A worker is UP while ``idle``, ``polling`` or ``streaming``; DOWN in ``backoff`` (the gateway
    is unreachable or refusing), ``closing`` or ``closed``. The status is UP when every worker is
    UP (no workers: UP); DOWN when one is not, or when no client runs (``app.state.jobwire``
    absent or closed: before startup, after shutdown)."""
    client = getattr(app.state, "jobwire", None)
    if not isinstance(client, Client):
        return {"status": "DOWN", "workers": []}
    workers = list(client._workers)
    up = not client._closed and all(w.state in _UP_STATES for w in workers)
    return {"status": "UP" if up else "DOWN", "workers": [_worker_report(w) for w in workers]}


async def health(request: Request) -> JSONResponse:
    """A Starlette / FastAPI endpoint with :func:`health_report` as JSON: HTTP 200 when UP, 503
    when DOWN. ``app.add_route("/health/jobwire", health)``."""
    report = health_report(request.app)
    return JSONResponse(report, status_code=200 if report["status"] == "UP" else 503)
