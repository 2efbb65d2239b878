"""Worker options: defaults shared by every jobwire SDK, validation with clear errors."""

from __future__ import annotations

import inspect
import socket
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Awaitable, Callable, Mapping, Optional, Protocol, Sequence, Union

from .config import Duration, to_seconds
from .errors import ConfigurationError, JobError
from .retry import RetryPolicy, default_retry_policy, fixed_backoff

HandlerResult = Union[Mapping[str, Any], str, None, JobError]
"""What a handler may return: variables to complete with (auto-complete), nothing, or a JobError."""

Handler = Callable[[Any], Union[Awaitable[Any], Any]]
"""A job handler: ``async def handler(job) -> dict | None`` or a plain function (run in a thread pool)."""


class Middleware(Protocol):
    """``async def middleware(job, next) -> result``: runs around the handler, inside the job's
    span and cancellation; ``await next()`` runs the rest of the chain (the next middleware, then
    input validation and the handler) and returns the handler's result. Raising fails the job like
    a handler error (through the retry policy); returning without calling ``next`` makes the return
    value the outcome. Middleware never holds a slot or sends an outcome: the worker does."""

    def __call__(self, job: Any, next: Callable[[], Awaitable[Any]], /) -> Awaitable[Any]:
        """Runs around ``next`` for ``job``."""
        ...


def is_async_handler(fn: Callable[..., Any]) -> bool:
    """True for coroutine functions (and objects whose ``__call__`` is one)."""
    if inspect.iscoroutinefunction(fn):
        return True
    call = getattr(fn, "__call__", None)
    return call is not None and inspect.iscoroutinefunction(call)


@dataclass(frozen=True)
class WorkerOptions:
    """A worker's settings after defaults (durations in seconds)."""

    job_type: str
    """Job type the worker works on."""
    handler: Handler
    """The handler."""
    worker_name: str
    """Sent as ``worker`` on activation."""
    max_jobs_active: int
    """Capacity: jobs held at once, pushed and polled together."""
    concurrency: int
    """Handlers running at once."""
    job_timeout: float
    """Activation timeout sent to the engine, seconds."""
    request_timeout: float
    """Long-poll time, seconds; 0: the gateway's default, negative: long polling off."""
    poll_interval: float
    """Pause after an empty poll that was not parked, seconds."""
    stream_enabled: bool
    """Whether jobs are also received by push (StreamActivatedJobs)."""
    stream_timeout: float
    """A healthy stream is recycled after this long, seconds."""
    fetch_variables: Sequence[str]
    """Variables to fetch; empty: all."""
    tenant_ids: Sequence[str]
    """Tenants to activate jobs for; empty: the default tenant."""
    auto_complete: bool
    """Whether the job is completed with the handler's return value."""
    auto_extend: bool
    """Whether the job's timeout is extended while the handler runs."""
    retry_backoff: float
    """``retryBackOff`` of a ``job.fail()`` without one, seconds (and of the retry policy when set explicitly)."""
    is_async: bool
    """Whether the handler is a coroutine function (else it runs in a thread)."""
    retry_policy: RetryPolicy = default_retry_policy
    """Decides what a handler failure does (``retry_policy``, else a fixed ``retry_backoff``, else the default)."""
    middleware: Sequence[Middleware] = ()
    """Middleware around the handler, outermost first."""


def _int(name: str, v: Any, default: int) -> int:
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ConfigurationError(f"jobwire: {name} must be an integer >= 1, got {v!r}")
    return v


def _strs(name: str, v: Optional[Sequence[str]]) -> Sequence[str]:
    if v is None:
        return ()
    if isinstance(v, str) or not all(isinstance(x, str) for x in v):
        raise ConfigurationError(f"jobwire: {name} must be a list of strings, got {v!r}")
    return tuple(v)


def resolve_worker_options(
    job_type: str,
    handler: Handler,
    *,
    worker_name: Optional[str] = None,
    max_jobs_active: Optional[int] = None,
    concurrency: Optional[int] = None,
    job_timeout: Optional[Duration] = None,
    request_timeout: Optional[Duration] = None,
    poll_interval: Optional[Duration] = None,
    stream_enabled: Optional[bool] = None,
    stream_timeout: Optional[Duration] = None,
    fetch_variables: Optional[Sequence[str]] = None,
    tenant_ids: Optional[Sequence[str]] = None,
    auto_complete: Optional[bool] = None,
    auto_extend: Optional[bool] = None,
    retry_backoff: Optional[Duration] = None,
    retry_policy: Optional[RetryPolicy] = None,
    middleware: Optional[Sequence[Middleware]] = None,
) -> WorkerOptions:
    """Applies the defaults and validates; raises ConfigurationError on bad options."""
    if not isinstance(job_type, str) or not job_type.strip():
        raise ConfigurationError("jobwire: a worker needs a job_type")
    if not callable(handler):
        raise ConfigurationError("jobwire: a worker needs a handler function")
    if retry_policy is not None and not callable(retry_policy):
        raise ConfigurationError(f"jobwire: retry_policy must be a function (job, error) -> RetryDecision, got {retry_policy!r}")
    mws = tuple(middleware or ())
    for m in mws:
        if not callable(m):
            raise ConfigurationError(f"jobwire: middleware must be functions (job, next) -> result, got {m!r}")
    backoff_s = to_seconds(retry_backoff if retry_backoff is not None else 0.0, "retry_backoff")
    # precedence: retry_policy > an explicit retry_backoff > the default policy
    policy = retry_policy if retry_policy is not None else fixed_backoff(backoff_s) if retry_backoff is not None else default_retry_policy
    mja = _int("max_jobs_active", max_jobs_active, 32)
    conc = min(mja, _int("concurrency", concurrency, mja))  # capped at max_jobs_active, as in every SDK
    return WorkerOptions(
        job_type=job_type,
        handler=handler,
        worker_name=worker_name if worker_name else socket.gethostname(),
        max_jobs_active=mja,
        concurrency=conc,
        job_timeout=to_seconds(job_timeout if job_timeout is not None else timedelta(minutes=5), "job_timeout", minimum=0.001),
        request_timeout=to_seconds(request_timeout if request_timeout is not None else 10.0, "request_timeout", allow_negative=True),
        poll_interval=to_seconds(poll_interval if poll_interval is not None else 0.1, "poll_interval"),
        stream_enabled=True if stream_enabled is None else bool(stream_enabled),
        stream_timeout=to_seconds(stream_timeout if stream_timeout is not None else timedelta(hours=1), "stream_timeout", minimum=0.001),
        fetch_variables=_strs("fetch_variables", fetch_variables),
        tenant_ids=_strs("tenant_ids", tenant_ids),
        auto_complete=True if auto_complete is None else bool(auto_complete),
        auto_extend=bool(auto_extend),
        retry_backoff=backoff_s,
        is_async=is_async_handler(handler),
        retry_policy=policy,
        middleware=mws,
    )
