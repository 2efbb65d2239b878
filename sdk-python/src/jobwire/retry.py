"""Retry policy: what a handler failure does to its job.

A handler (or middleware) that raises anything but :class:`jobwire.JobError` fails its job; the
worker's retry policy decides how: retry after a back-off (FailJob with ``retries - 1``), raise a
BPMN error (ThrowError) or open an incident now (FailJob with retries 0). The default policy is
exponential back-off with jitter, computed from the job's remaining retries; a
:class:`NonRetryableError` anywhere in the cause chain goes to an incident at once.

Example::

    from jobwire import JobRouter, RetryDecision, InvalidInputError, exponential_backoff

    def policy(job, error):
        if isinstance(error, InvalidInputError):
            return RetryDecision.incident(str(error))
        return exponential_backoff(initial=2.0)(job, error)

    router = JobRouter(retry_policy=policy)
"""

from __future__ import annotations

import builtins
import logging
import random
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Mapping, Optional, Protocol

from .config import Duration, to_seconds
from .errors import ConfigurationError

if TYPE_CHECKING:
    from .job import Job

__all__ = [
    "RetryDecision",
    "RetryPolicy",
    "NonRetryableError",
    "exponential_backoff",
    "default_retry_policy",
]


class NonRetryableError(Exception):
    """An error that retrying cannot fix: raised from a handler (or found in the cause chain of
    what it raised), the default policies open an incident at once (FailJob with retries 0,
    this message), without spending the remaining retries.

    Example::

        raise NonRetryableError("customer account closed")
    """


class RetryDecision:
    """What a retry policy decided; build one with :meth:`retry`, :meth:`bpmn_error` or
    :meth:`incident`."""

    __slots__ = ("kind", "backoff", "code", "message", "variables")

    def __init__(
        self, kind: str, *, backoff: float = 0.0, code: str = "", message: Optional[str] = None, variables: Optional[Mapping[str, Any]] = None
    ) -> None:
        self.kind = kind
        """``retry``, ``bpmn_error`` or ``incident``."""
        self.backoff = backoff
        """Retry back-off in seconds (``retry`` only)."""
        self.code = code
        """BPMN error code (``bpmn_error`` only)."""
        self.message = message
        """Message sent; ``None`` for ``retry``: the error's message."""
        self.variables = variables
        """Variables of the BPMN error, or ``None``."""

    @classmethod
    def retry(cls, after: Duration) -> "RetryDecision":
        """Fail the job with ``retries - 1`` and this retry back-off (seconds or a timedelta); the
        message is the error's."""
        return cls("retry", backoff=to_seconds(after, "retry back-off"))

    @classmethod
    def bpmn_error(cls, code: str, message: str = "", variables: Optional[Mapping[str, Any]] = None) -> "RetryDecision":
        """Throw a BPMN error with this code, message and variables instead of failing the job."""
        if not isinstance(code, str) or not code:
            raise ConfigurationError("jobwire: RetryDecision.bpmn_error needs a non-empty error code")
        return cls("bpmn_error", code=code, message=message, variables=variables)

    @classmethod
    def incident(cls, message: str) -> "RetryDecision":
        """Fail the job with retries 0 and this message: the engine opens an incident now."""
        return cls("incident", message=str(message))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RetryDecision):
            return NotImplemented
        return (self.kind, self.backoff, self.code, self.message, self.variables) == (
            other.kind, other.backoff, other.code, other.message, other.variables
        )

    def __repr__(self) -> str:
        if self.kind == "retry":
            return f"RetryDecision.retry({self.backoff!r})"
        if self.kind == "incident":
            return f"RetryDecision.incident({self.message!r})"
        return f"RetryDecision.bpmn_error({self.code!r}, {self.message!r}, {self.variables!r})"


class RetryPolicy(Protocol):
    """``policy(job, error) -> RetryDecision``: decides what a handler failure does. Any function
    with this signature is one. A policy that raises or returns anything else falls back to
    :data:`default_retry_policy` (logged at warning)."""

    def __call__(self, job: "Job", error: BaseException, /) -> RetryDecision:
        """The decision for ``job`` whose handler (or middleware) raised ``error``."""
        ...


def _non_retryable(err: BaseException) -> Optional[NonRetryableError]:
    seen = set()
    e: Optional[BaseException] = err
    while e is not None and id(e) not in seen:
        if isinstance(e, NonRetryableError):
            return e
        seen.add(id(e))
        e = e.__cause__ if e.__cause__ is not None else (None if e.__suppress_context__ else e.__context__)
    return None


def _message(err: BaseException) -> str:
    return str(err) or type(err).__name__


def _num(name: str, v: Any) -> float:
    if isinstance(v, timedelta):
        return v.total_seconds()
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or v in (float("inf"), float("-inf")):
        raise ConfigurationError(f"jobwire: exponential_backoff {name} must be a finite number, got {v!r}")
    return float(v)


def exponential_backoff(
    *,
    initial: Duration = 1.0,
    max: Duration = 60.0,  # noqa: A002 - the shared option name
    multiplier: float = 2.0,
    jitter: float = 0.1,
    max_retries: int = 3,
) -> RetryPolicy:
    """A retry policy with exponential back-off and jitter, computed from the job's remaining
    retries: ``attempt = max(0, max_retries - job.retries)``, back-off
    ``min(max, initial * multiplier ** attempt) * (1 + jitter * u)`` with ``u`` uniform in
    [-1, 1], rounded to whole milliseconds. With the defaults and a job's retries 3, 2, 1 that
    is about 1 s, 2 s, 4 s. A :class:`NonRetryableError` (also as a cause) opens an incident.
    Durations are seconds or timedeltas."""
    ini, mx, mul, jit = _num("initial", initial), _num("max", max), _num("multiplier", multiplier), _num("jitter", jitter)
    if ini < 0:
        raise ConfigurationError(f"jobwire: exponential_backoff initial must be >= 0, got {initial!r}")
    if mx < ini:
        raise ConfigurationError(f"jobwire: exponential_backoff max must be >= initial, got {max!r}")
    if mul < 1:
        raise ConfigurationError(f"jobwire: exponential_backoff multiplier must be >= 1, got {multiplier!r}")
    if not 0 <= jit <= 1:
        raise ConfigurationError(f"jobwire: exponential_backoff jitter must be between 0 and 1, got {jitter!r}")
    if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
        raise ConfigurationError(f"jobwire: exponential_backoff max_retries must be an integer >= 0, got {max_retries!r}")

    def policy(job: "Job", error: BaseException) -> RetryDecision:
        """Exponential back-off from the job's remaining retries; NonRetryableError -> incident."""
        nr = _non_retryable(error)
        if nr is not None:
            return RetryDecision.incident(_message(nr))
        attempt = builtins.max(0, max_retries - job.retries)
        try:
            b = builtins.min(mx, ini * mul**attempt)
        except OverflowError:
            b = mx
        b *= 1 + jit * random.uniform(-1.0, 1.0)
        return RetryDecision("retry", backoff=round(b * 1000) / 1000)

    policy.__qualname__ = policy.__name__ = "exponential_backoff"
    return policy


default_retry_policy: RetryPolicy = exponential_backoff()
"""The policy of a worker without ``retry_policy`` or ``retry_backoff``: exponential back-off,
1 s initial, x2, 60 s at most, +-10 % jitter, over 3 retries; NonRetryableError -> incident."""


def fixed_backoff(backoff_s: float) -> RetryPolicy:
    """The policy behind an explicit ``retry_backoff``: always that back-off; NonRetryableError ->
    incident."""

    def policy(job: "Job", error: BaseException) -> RetryDecision:
        """The fixed back-off; NonRetryableError -> incident."""
        nr = _non_retryable(error)
        if nr is not None:
            return RetryDecision.incident(_message(nr))
        return RetryDecision("retry", backoff=backoff_s)

    return policy


def decide(policy: RetryPolicy, job: "Job", error: BaseException, logger: logging.Logger) -> RetryDecision:
    """Runs the policy; one that raises or returns no RetryDecision falls back to the default."""
    try:
        d = policy(job, error)
        if isinstance(d, RetryDecision) and d.kind in ("retry", "bpmn_error", "incident"):
            return d
        logger.warning("jobwire: retry policy returned %r for job %s, not a RetryDecision; using the default policy", d, job.key)
    except Exception as e:  # noqa: BLE001 - a broken policy must not leave the job unsettled
        logger.warning("jobwire: retry policy raised %r for job %s; using the default policy", e, job.key)
    return default_retry_policy(job, error)
