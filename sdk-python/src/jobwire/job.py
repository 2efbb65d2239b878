"""The activated job handed to a worker's handler."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Dict, Optional

from ._json import VariablesInput, parse_variables, variables_to_json
from ._outcome import MAX_MESSAGE as MAX_MESSAGE  # re-exported: jobwire.job.MAX_MESSAGE
from ._outcome import OutcomeSender
from .config import Duration, to_seconds
from .errors import JobwireError, NotFoundError

if TYPE_CHECKING:  # pragma: no cover
    from ._proto.gateway_pb2 import ActivatedJob

__all__ = ["Job"]


_cancel_lock = threading.Lock()


def _headers(raw: str) -> Dict[str, str]:
    if not raw or raw == "{}":
        return {}
    try:
        v = json.loads(raw)
    except ValueError:
        return {}  # headers are informational: tolerate garbage
    return {str(k): str(x) for k, x in v.items()} if isinstance(v, dict) else {}


class Job:
    """An activated job.

    Attributes are read-only. ``key`` and the other keys are exact Python ints
    (int64 beyond 2**53 included); ``variables`` is the parsed JSON object
    (integers exact), ``variables_json`` the text exactly as received.

    The outcome methods (``complete``, ``fail``, ``throw_error``) return once the
    engine acknowledged the command and otherwise raise the typed error
    (``NotFoundError`` when the job timed out or was cancelled, ...). A second
    outcome on a settled job raises :class:`JobwireError` and sends nothing. In the
    default auto-complete mode you never call them: return variables (complete),
    raise :class:`JobError` (BPMN error) or any other exception (fail).

    From a *sync* handler (it runs in a worker thread) use the ``*_sync`` variants.
    """

    def __init__(self, raw: "ActivatedJob", activation: str, outcomes: OutcomeSender) -> None:
        self.key: int = raw.key
        """Job key."""
        self.type: str = raw.type
        """Job type."""
        self.retries: int = raw.retries
        """Retries left, as activated."""
        self.deadline: int = raw.deadline
        """When the activation lapses, epoch milliseconds (moves when the timeout is extended)."""
        self.process_instance_key: int = raw.processInstanceKey
        """Key of the process instance."""
        self.bpmn_process_id: str = raw.bpmnProcessId
        """The process id from the BPMN file."""
        self.process_definition_version: int = raw.processDefinitionVersion
        """Version of the process definition."""
        self.process_definition_key: int = raw.processDefinitionKey
        """Key of the process definition."""
        self.element_id: str = raw.elementId
        """Element id of the service task."""
        self.element_instance_key: int = raw.elementInstanceKey
        """Key of the element instance."""
        self.custom_headers: Dict[str, str] = _headers(raw.customHeaders)
        """The task's custom headers."""
        self.worker: str = raw.worker
        """The worker name recorded on activation."""
        self.tenant_id: str = raw.tenantId
        """Tenant of the job."""
        self.variables_json: str = raw.variables or "{}"
        """The variables, JSON object text exactly as received."""
        self.variables: Dict[str, Any] = parse_variables(self.variables_json)
        """The variables, parsed (integers exact)."""
        self.activation: str = activation
        """How the job arrived: ``"push"`` (stream) or ``"poll"``."""
        self._outcomes = outcomes
        self._loop = asyncio.get_running_loop()
        # made on first use (cancel_event, or close asking the handler to stop): most jobs never need one
        self._cancel: Optional[threading.Event] = None
        self._cancel_requested = False
        self._claimed = False
        self._settled: "asyncio.Future[str]" = self._loop.create_future()
        self._outcome: Optional[str] = None

    @property
    def deadline_at(self) -> datetime:
        """The deadline as an aware UTC datetime."""
        return datetime.fromtimestamp(self.deadline / 1000, tz=timezone.utc)

    @property
    def cancelled(self) -> bool:
        """True once the worker's close timeout asked this handler to stop (check it in long sync handlers)."""
        return self._cancel_requested

    @property
    def cancel_event(self) -> threading.Event:
        """Set when the worker's close timeout asks this handler to stop; usable from any thread."""
        with _cancel_lock:
            if self._cancel is None:
                self._cancel = threading.Event()
                if self._cancel_requested:
                    self._cancel.set()
            return self._cancel

    def _request_cancel(self) -> None:
        """close() asks the handler to stop: ``cancelled`` turns True and ``cancel_event`` is set."""
        with _cancel_lock:
            self._cancel_requested = True
            if self._cancel is not None:
                self._cancel.set()

    def __repr__(self) -> str:
        return f"Job(key={self.key}, type={self.type!r}, retries={self.retries}, activation={self.activation!r})"

    # --- outcome methods (async) ------------------------------------------------------
    async def complete(self, variables: VariablesInput = None) -> None:
        """Completes the job, merging ``variables`` (a mapping or JSON object text) into its scope."""
        vars_json = variables_to_json(variables, f"complete of job {self.key}")
        self._raise(await self._complete(vars_json))

    async def fail(
        self,
        message: str = "",
        *,
        retries: Optional[int] = None,
        retry_backoff: Optional[Duration] = None,
        variables: VariablesInput = None,
    ) -> None:
        """Fails the job (default ``retries - 1``; ``retry_backoff`` defaults to the worker's)."""
        vars_json = variables_to_json(variables, f"fail of job {self.key}")
        backoff = None if retry_backoff is None else to_seconds(retry_backoff, "retry_backoff")
        self._raise(await self._fail(message, retries, backoff, vars_json))

    async def throw_error(self, code: str, message: str = "", *, variables: VariablesInput = None) -> None:
        """Throws a BPMN error from the job (caught by a matching error event)."""
        if not isinstance(code, str) or not code:
            raise TypeError("jobwire: throw_error needs a non-empty error code")
        vars_json = variables_to_json(variables, f"throw_error of job {self.key}")
        self._raise(await self._throw_error(code, message, vars_json))

    async def extend_timeout(self, timeout: Duration) -> None:
        """Sets a new activation timeout, counted from now (UpdateJobTimeout); raises typed errors."""
        s = to_seconds(timeout, "timeout", minimum=0.001)
        sent = time.time()
        await self._outcomes.extend_timeout(self.key, int(round(s * 1000)))
        self.deadline = int((sent + s) * 1000)

    # --- the same from a sync handler's thread ------------------------------------------------
    def complete_sync(self, variables: VariablesInput = None) -> None:
        """:meth:`complete` for sync handlers (blocks the calling thread; never call it on the event loop)."""
        self._blocking(self.complete(variables))

    def fail_sync(
        self,
        message: str = "",
        *,
        retries: Optional[int] = None,
        retry_backoff: Optional[Duration] = None,
        variables: VariablesInput = None,
    ) -> None:
        """:meth:`fail` for sync handlers."""
        self._blocking(self.fail(message, retries=retries, retry_backoff=retry_backoff, variables=variables))

    def throw_error_sync(self, code: str, message: str = "", *, variables: VariablesInput = None) -> None:
        """:meth:`throw_error` for sync handlers."""
        self._blocking(self.throw_error(code, message, variables=variables))

    def extend_timeout_sync(self, timeout: Duration) -> None:
        """:meth:`extend_timeout` for sync handlers."""
        self._blocking(self.extend_timeout(timeout))

    def _blocking(self, coro: Any) -> None:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            coro.close()
            raise RuntimeError("jobwire: the *_sync job methods block; call the async ones on the event loop")
        asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    # --- internals -----------------------------------------------------------------------------
    @property
    def settled(self) -> bool:
        """True once an outcome was sent (acknowledged or not)."""
        return self._claimed

    def _claim(self, what: str) -> None:
        if self._claimed:
            raise JobwireError(f"jobwire: {what} on job {self.key}: an outcome was already sent")
        self._claimed = True

    def _done(self, outcome: str) -> str:
        self._outcome = outcome
        if not self._settled.done():
            self._settled.set_result(outcome)
        return outcome

    def _raise(self, outcome: str) -> None:
        err = self._outcomes.last_error(self.key)
        if outcome in ("completed", "failed", "error"):
            return
        if outcome == "not_found":
            raise err if isinstance(err, NotFoundError) else (err or NotFoundError(f"job {self.key} not found"))
        raise err or JobwireError(f"jobwire: outcome of job {self.key} was not delivered")

    async def _complete(self, vars_json: str) -> str:
        self._claim("complete")
        r = await self._outcomes.complete(self.key, vars_json, self.deadline)
        return self._done("completed" if r == "ok" else r)

    async def _fail(self, message: str, retries: Optional[int], backoff_s: Optional[float], vars_json: str = "") -> str:
        self._claim("fail")
        r = await self._outcomes.fail(
            self.key,
            max(0, self.retries - 1) if retries is None else retries,
            message or "job failed",
            backoff_s,
            self.deadline,
            vars_json,
        )
        return self._done("failed" if r == "ok" else r)

    async def _throw_error(self, code: str, message: str, vars_json: str) -> str:
        self._claim("throw_error")
        r = await self._outcomes.throw_error(self.key, code, message, vars_json, self.deadline)
        return self._done("error" if r == "ok" else r)

