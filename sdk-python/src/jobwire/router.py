"""JobRouter: declare workers at import time, without a client; start them with
:meth:`jobwire.Client.include_router`.

Example::

    from dataclasses import dataclass
    from typing import Optional, TypedDict

    from jobwire import Client, Job, JobRouter

    @dataclass
    class Order:
        order_id: str
        amount: float

    class Headers(TypedDict, total=False):
        channel: str

    router = JobRouter(max_jobs_active=16)

    @router.job("charge")
    async def charge(order: Order, headers: Headers, job: Job) -> dict:
        return {"total": order.amount * 2, "channel": headers.get("channel", "")}

    async def main() -> None:
        async with Client() as client:
            client.include_router(router)
            await client.run_workers()
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, TypeVar

from ._options import Handler, Middleware, is_async_handler, resolve_worker_options
from ._typed import TRACEPARENT, TypedHandler, typed_invoker
from .errors import ConfigurationError

__all__ = ["JobRouter"]

F = TypeVar("F", bound=Callable[..., Any])

_OPTION_NAMES = frozenset(
    p.name for p in inspect.signature(resolve_worker_options).parameters.values() if p.kind is p.KEYWORD_ONLY
) - {"middleware"}


def _check_options(options: Dict[str, Any], where: str) -> None:
    unknown = sorted(set(options) - _OPTION_NAMES)
    if unknown:
        raise ConfigurationError(f"jobwire: {where}: unknown worker option(s) {', '.join(unknown)}; known: {', '.join(sorted(_OPTION_NAMES))}")


class _Route:
    __slots__ = ("job_type", "fn", "invoker", "derived", "options", "middleware")

    def __init__(self, job_type: str, fn: Callable[..., Any], invoker: Handler, derived: Optional[List[str]], options: Dict[str, Any], middleware: Tuple[Middleware, ...]) -> None:
        self.job_type = job_type
        self.fn = fn
        self.invoker = invoker
        self.derived = derived
        self.options = options
        self.middleware = middleware


class JobRouter:
    """A group of workers declared without a client.

    ``JobRouter(**options, middleware=[...])``: ``options`` are defaults for every worker of the
    router (the keyword options of :meth:`jobwire.Client.worker`); ``middleware`` runs around
    every handler of the router, outside the handler's own middleware.

    Handlers get their arguments by name and annotation: a parameter annotated with a dataclass,
    ``TypedDict`` or pydantic model receives the whole variables object validated into it; other
    parameters receive the variable of their name; a parameter annotated :class:`jobwire.Job`
    (or unannotated and named ``job``) the job; ``headers`` the custom headers. The variables the
    handler reads are fetched (``fetch_variables`` derived, with ``traceparent``: the job span's
    parent) unless ``fetch_variables`` is given.
    Input that does not match fails the job with :class:`jobwire.InvalidInputError`, without
    calling the handler.
    """

    def __init__(self, *, middleware: Optional[Sequence[Middleware]] = None, **options: Any) -> None:
        _check_options(options, "JobRouter")
        self._defaults = dict(options)
        self._middleware: List[Middleware] = []
        for m in middleware or ():
            self.use(m)
        self._routes: List[_Route] = []

    def use(self, middleware: Middleware) -> Middleware:
        """Adds router-level middleware (after those already added); returns it, so it also works
        as a decorator."""
        if not callable(middleware):
            raise ConfigurationError(f"jobwire: middleware must be a function (job, next) -> result, got {middleware!r}")
        self._middleware.append(middleware)
        return middleware

    def job(self, job_type: str, *, middleware: Optional[Sequence[Middleware]] = None, **options: Any) -> Callable[[F], F]:
        """Registers the decorated function as the handler of ``job_type`` with these worker
        options (over the router's defaults); returns the function unchanged.

        Example::

            @router.job("charge", max_jobs_active=8, retry_policy=exponential_backoff(initial=2.0))
            async def charge(order: Order, job: Job) -> Receipt: ...
        """
        _check_options(options, f"JobRouter.job({job_type!r})")
        mws = tuple(middleware or ())

        def deco(fn: F) -> F:
            analysis = TypedHandler(fn)
            is_async = is_async_handler(fn)
            invoker = typed_invoker(fn, analysis, is_async)
            route = _Route(job_type, fn, invoker, analysis.fetch_variables(), dict(options), mws)
            resolved = self._resolved(route)
            # the models validate the variables without the traceparent fetched for tracing only
            analysis.strip_traceparent = TRACEPARENT in (resolved.get("fetch_variables") or ())
            resolve_worker_options(job_type, invoker, **resolved)  # bad options fail at import time
            self._routes.append(route)
            return fn

        return deco

    def _resolved(self, route: _Route) -> Dict[str, Any]:
        opts = {**self._defaults, **route.options}
        if opts.get("fetch_variables") is None and route.derived is not None:
            opts["fetch_variables"] = route.derived
        opts["middleware"] = tuple(self._middleware) + route.middleware
        return opts

    def _worker_args(self) -> List[Tuple[str, Handler, Dict[str, Any]]]:
        """``(job_type, handler, options)`` for every registered handler, in registration order."""
        return [(r.job_type, r.invoker, self._resolved(r)) for r in self._routes]

