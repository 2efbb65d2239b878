"""The outcome sender: complete / fail / throw an error / extend a job, with retries.

The public :class:`jobwire.Job` settles itself through the :class:`OutcomeSender` protocol
it is given; it knows nothing of the executor. :class:`RetryingOutcomeSender` is the
worker's implementation, sending over the client's connection (or the long-call one)."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Dict, Optional, Protocol

from ._backoff import Backoff
from ._proto import gateway_pb2
from ._transport import LongLease, Transport
from .errors import JobwireError, outcome_decision

MAX_MESSAGE = 2000
"""Longest error message sent with FailJob / ThrowError (same in every SDK)."""


class OutcomeSender(Protocol):
    """What a job calls to settle itself. The outcome calls return ``ok``, ``not_found``
    (benign: the job timed out, was cancelled or completed elsewhere) or ``undelivered``."""

    async def complete(self, key: int, vars_json: str, deadline_ms: int) -> str:
        """CompleteJob."""
        ...

    async def fail(
        self, key: int, retries: int, message: str, backoff_s: Optional[float], deadline_ms: int, vars_json: str = ""
    ) -> str:
        """FailJob; ``backoff_s`` None means the worker's retry backoff."""
        ...

    async def throw_error(self, key: int, code: str, message: str, vars_json: str, deadline_ms: int) -> str:
        """ThrowError."""
        ...

    async def extend_timeout(self, key: int, timeout_ms: int) -> None:
        """UpdateJobTimeout, once; raises the typed error."""
        ...

    def last_error(self, key: int) -> Optional[BaseException]:
        """The last error an outcome of the job met (None if none)."""
        ...


class RetryingOutcomeSender:
    """Sends outcomes, retried on UNAVAILABLE / RESOURCE_EXHAUSTED / DEADLINE_EXCEEDED / ABORTED
    (``outcome_decision``, ``OUTCOME_RETRYABLE_CODES``) with backoff until the job's deadline."""

    def __init__(self, transport: Transport, lease: LongLease, logger: logging.Logger, retry_backoff: float) -> None:
        self.transport = transport
        self.lease = lease
        self.logger = logger
        self.retry_backoff = retry_backoff
        self.errors: Dict[int, BaseException] = {}
        """The last error per job key, until the executor forgets the job."""

    # --- OutcomeSender ---------------------------------------------------------------------
    async def complete(self, key: int, vars_json: str, deadline_ms: int) -> str:
        return await self.send("CompleteJob", gateway_pb2.CompleteJobRequest(jobKey=key, variables=vars_json), key, deadline_ms)

    async def fail(
        self, key: int, retries: int, message: str, backoff_s: Optional[float], deadline_ms: int, vars_json: str = ""
    ) -> str:
        return await self.send_fail(key, retries, message, self.retry_backoff if backoff_s is None else backoff_s, deadline_ms, vars_json)

    async def throw_error(self, key: int, code: str, message: str, vars_json: str, deadline_ms: int) -> str:
        req = gateway_pb2.ThrowErrorRequest(jobKey=key, errorCode=code, errorMessage=(message or "")[:MAX_MESSAGE], variables=vars_json)
        return await self.send("ThrowError", req, key, deadline_ms)

    async def extend_timeout(self, key: int, timeout_ms: int) -> None:
        await self.transport.unary("UpdateJobTimeout", gateway_pb2.UpdateJobTimeoutRequest(jobKey=key, timeout=timeout_ms))

    def last_error(self, key: int) -> Optional[BaseException]:
        return self.errors.get(key)

    # --- for the executor --------------------------------------------------------------------
    def forget(self, key: int) -> None:
        """Drops the job's last error (its slot was released)."""
        self.errors.pop(key, None)

    async def send(self, method: str, req: Any, key: int, deadline_ms: int, *, via_lease: bool = False) -> str:
        """Sends an outcome with retries until the job's deadline. Returns ``ok``, ``not_found``
        (benign) or ``undelivered``."""
        bo: Optional[Backoff] = None  # made at the first failure
        while True:
            remaining = deadline_ms / 1000 - time.time()
            timeout = max(0.5, min(self.transport.config.command_timeout, remaining)) if remaining > 0 else 0.5
            try:
                if via_lease:
                    await self.lease.unary(method, req, timeout=timeout)
                else:
                    await self.transport.unary(method, req, timeout=timeout)
                return "ok"
            except JobwireError as e:
                self.errors[key] = e
                # a message over the gateway's size limit is refused the same way every time: given up
                decision = outcome_decision(e.code, e.details or str(e))
                if decision == "benign":
                    self.logger.debug("%s of job %s: %s (the job timed out, was cancelled or completed elsewhere)", method, key, e.code_name)
                    return "not_found"
                if bo is None:
                    bo = Backoff(settings=getattr(self.transport.config, "backoff", None))
                delay = bo.next()
                if decision == "retry" and time.time() + delay < deadline_ms / 1000 and not self.transport.closed:
                    self.logger.debug("%s of job %s failed (%s); retrying in %.0f ms", method, key, e.code_name, delay * 1000)
                    await asyncio.sleep(delay)
                    continue
                return "undelivered"

    async def send_fail(
        self, key: int, retries: int, message: str, backoff_s: float, deadline_ms: int, vars_json: str = "", *, via_lease: bool = False
    ) -> str:
        """FailJob with the given retries, message and retry back-off."""
        req = gateway_pb2.FailJobRequest(
            jobKey=key, retries=retries, errorMessage=message[:MAX_MESSAGE], retryBackOff=int(round(backoff_s * 1000)), variables=vars_json
        )
        return await self.send("FailJob", req, key, deadline_ms, via_lease=via_lease)
