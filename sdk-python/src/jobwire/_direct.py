"""Outcomes of jobs the application activated itself (:meth:`Client.activate_jobs`,
:meth:`Client.stream_activated_jobs`): each outcome is one command through the client,
sent once (no worker, no resend), so those jobs are the same :class:`jobwire.Job` a
handler gets."""

from __future__ import annotations

from typing import Any, Awaitable, Dict, Optional, Protocol

from .errors import JobwireError, NotFoundError


class JobCommands(Protocol):
    """The job commands of :class:`jobwire.Client` this module uses."""

    def complete_job(self, job_key: Any, variables: Any = None) -> Awaitable[None]: ...

    def fail_job(self, job_key: Any, retries: int, message: str = "", *, retry_backoff: Any = None, variables: Any = None) -> Awaitable[None]: ...

    def throw_error(self, job_key: Any, code: str, message: str = "", *, variables: Any = None) -> Awaitable[None]: ...

    def update_job_timeout(self, job_key: Any, job_timeout: Any) -> Awaitable[None]: ...


class DirectOutcomes:
    """An ``OutcomeSender`` over the client's job commands."""

    def __init__(self, client: JobCommands) -> None:
        self._client = client
        self._errors: Dict[int, BaseException] = {}

    async def _send(self, key: int, call: Awaitable[Any]) -> str:
        try:
            await call
        except NotFoundError as e:
            self._errors[key] = e
            return "not_found"
        except JobwireError as e:
            self._errors[key] = e
            return "undelivered"
        self._errors.pop(key, None)
        return "ok"

    async def complete(self, key: int, vars_json: str, deadline_ms: int) -> str:
        return await self._send(key, self._client.complete_job(key, vars_json or None))

    async def fail(self, key: int, retries: int, message: str, backoff_s: Optional[float], deadline_ms: int, vars_json: str = "") -> str:
        return await self._send(key, self._client.fail_job(key, retries, message, retry_backoff=backoff_s, variables=vars_json or None))

    async def throw_error(self, key: int, code: str, message: str, vars_json: str, deadline_ms: int) -> str:
        return await self._send(key, self._client.throw_error(key, code, message, variables=vars_json or None))

    async def extend_timeout(self, key: int, timeout_ms: int) -> None:
        await self._client.update_job_timeout(key, timeout_ms / 1000)

    def last_error(self, key: int) -> Optional[BaseException]:
        return self._errors.get(key)
