"""Level 1 of the test kit: run a handler through the worker's own executor, no network.

:func:`run_handler` builds the worker's real parts (``Executor``, ``RetryingOutcomeSender``,
``Job``, the auto-extender) around an in-process transport that records the gateway calls
instead of sending them, so the outcome mapping is exactly the one a running worker applies."""

from __future__ import annotations

import asyncio
import concurrent.futures
import enum
import inspect
import itertools
import json
import logging
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .._executor import MSG_CLOSING, Executor, WorkerContext
from .._json import VariablesInput, parse_variables, variables_to_json
from .._ledger import Ledger
from .._options import Handler, Middleware, is_async_handler, resolve_worker_options
from .._proto import gateway_pb2
from .._state import StateMachine
from .._telemetry import Telemetry
from .._transport import LongLease, Transport, _LongConnection
from ..config import ClientConfig, Duration, to_seconds
from ..errors import JobwireError, RequestCancelledError
from ..job import Job
from ..retry import RetryPolicy

__all__ = ["HandlerResult", "Outcome", "make_job", "run_handler", "run_handler_sync"]

_LOG = logging.getLogger("jobwire.testing")
_KEYS = itertools.count(2251799813685249)
"""Keys handed to made jobs (Zeebe-shaped: partition 1), unique within the process."""


class Outcome(str, enum.Enum):
    """How the worker settled the job."""

    COMPLETED = "completed"
    """CompleteJob (auto-complete with the handler's return value, or ``job.complete``)."""
    FAILED = "failed"
    """FailJob: the handler raised (retries - 1) or called ``job.fail``."""
    BPMN_ERROR = "bpmn_error"
    """ThrowError: the handler raised or returned a :class:`jobwire.JobError`, or called ``job.throw_error``."""
    CANCELLED = "cancelled"
    """The worker closed while the handler ran: the job was handed back, retries unchanged."""

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class HandlerResult:
    """What the worker sent for the job after the handler ran."""

    outcome: Outcome
    """completed, failed, bpmn_error or cancelled."""
    variables: Dict[str, Any] = field(default_factory=dict)
    """Variables sent with the outcome (completed, bpmn_error; failed when the handler sent some)."""
    retries: Optional[int] = None
    """Retries sent with FailJob (failed, cancelled)."""
    error_message: Optional[str] = None
    """The FailJob / ThrowError message."""
    retry_backoff: Optional[float] = None
    """FailJob retry back-off, seconds (failed)."""
    error_code: Optional[str] = None
    """The BPMN error code (bpmn_error)."""
    exception: Optional[BaseException] = None
    """What the handler raised, if it raised."""
    extensions: Tuple[float, ...] = ()
    """New activation timeouts (seconds) of the UpdateJobTimeout calls made while the handler ran
    (auto-extend or ``job.extend_timeout``), in order."""
    job: Optional[Job] = None
    """The job the handler received."""


class _NotRunning:
    """Outcome sender of a job from :func:`make_job` used outside :func:`run_handler`."""

    def _refuse(self) -> JobwireError:
        return JobwireError("jobwire.testing: this job comes from make_job; run the handler with run_handler to settle it")

    async def complete(self, key: int, vars_json: str, deadline_ms: int) -> str:
        raise self._refuse()

    async def fail(self, key: int, retries: int, message: str, backoff_s: Optional[float], deadline_ms: int, vars_json: str = "") -> str:
        raise self._refuse()

    async def throw_error(self, key: int, code: str, message: str, vars_json: str, deadline_ms: int) -> str:
        raise self._refuse()

    async def extend_timeout(self, key: int, timeout_ms: int) -> None:
        raise self._refuse()

    def last_error(self, key: int) -> Optional[BaseException]:
        return None


def _raw(
    *,
    variables: VariablesInput,
    custom_headers: Optional[Mapping[str, str]],
    retries: int,
    deadline: Optional[Union[datetime, int]],
    job_type: str,
    key: Optional[int],
    process_instance_key: Optional[int],
    element_id: str,
    bpmn_process_id: str,
    element_instance_key: Optional[int],
    process_definition_key: Optional[int],
    process_definition_version: int,
    worker: str,
    tenant_id: str,
) -> gateway_pb2.ActivatedJob:
    if isinstance(deadline, datetime):
        deadline_ms = int(deadline.timestamp() * 1000)
    elif deadline is None:
        deadline_ms = int(time.time() * 1000) + 300_000
    else:
        deadline_ms = int(deadline)
    return gateway_pb2.ActivatedJob(
        key=next(_KEYS) if key is None else key,
        type=job_type,
        processInstanceKey=next(_KEYS) if process_instance_key is None else process_instance_key,
        bpmnProcessId=bpmn_process_id,
        processDefinitionVersion=process_definition_version,
        processDefinitionKey=next(_KEYS) if process_definition_key is None else process_definition_key,
        elementId=element_id,
        elementInstanceKey=next(_KEYS) if element_instance_key is None else element_instance_key,
        customHeaders=json.dumps(dict(custom_headers or {})),
        worker=worker,
        retries=retries,
        deadline=deadline_ms,
        variables=variables_to_json(variables, "make_job variables"),
        tenantId=tenant_id,
    )


def make_job(
    *,
    variables: VariablesInput = None,
    custom_headers: Optional[Mapping[str, str]] = None,
    retries: int = 3,
    deadline: Optional[Union[datetime, int]] = None,
    job_type: str = "test",
    key: Optional[int] = None,
    process_instance_key: Optional[int] = None,
    element_id: str = "task",
    bpmn_process_id: str = "test-process",
    element_instance_key: Optional[int] = None,
    process_definition_key: Optional[int] = None,
    process_definition_version: int = 1,
    worker: str = "test-worker",
    tenant_id: str = "<default>",
    activation: str = "poll",
) -> Job:
    """A :class:`jobwire.Job` as a worker receives it, built by the Job constructor the worker uses
    from an ActivatedJob. ``variables``: a mapping or JSON object text; ``deadline``: an aware
    datetime or epoch ms (default: 5 minutes from now); keys default to fresh unique keys.

    Its outcome methods refuse to run: give the job to :func:`run_handler` to see the outcome.
    Works with or without a running event loop."""
    raw = _raw(
        variables=variables,
        custom_headers=custom_headers,
        retries=retries,
        deadline=deadline,
        job_type=job_type,
        key=key,
        process_instance_key=process_instance_key,
        element_id=element_id,
        bpmn_process_id=bpmn_process_id,
        element_instance_key=element_instance_key,
        process_definition_key=process_definition_key,
        process_definition_version=process_definition_version,
        worker=worker,
        tenant_id=tenant_id,
    )

    async def build() -> Job:
        return Job(raw, activation, _NotRunning())

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(build())
        finally:
            loop.close()
    return Job(raw, activation, _NotRunning())


def _raw_of(job: Job) -> gateway_pb2.ActivatedJob:
    """The ActivatedJob a Job was built from (every field a Job carries)."""
    return gateway_pb2.ActivatedJob(
        key=job.key,
        type=job.type,
        processInstanceKey=job.process_instance_key,
        bpmnProcessId=job.bpmn_process_id,
        processDefinitionVersion=job.process_definition_version,
        processDefinitionKey=job.process_definition_key,
        elementId=job.element_id,
        elementInstanceKey=job.element_instance_key,
        customHeaders=json.dumps(job.custom_headers),
        worker=job.worker,
        retries=job.retries,
        deadline=job.deadline,
        variables=job.variables_json,
        tenantId=job.tenant_id,
    )


class _SinkTransport(Transport):
    """The worker's transport with the gateway replaced by a recorder: every unary call the
    executor, the outcome sender and the extender make is recorded and acknowledged."""

    def __init__(self) -> None:
        super().__init__(
            ClientConfig(
                addresses=["in-process"],
                insecure=True,
                ca_certificate_path=None,
                oauth=None,
                keep_alive=45.0,
                command_timeout=20.0,
                channel_options=(),
                logger=_LOG,
            )
        )
        self.calls: List[Tuple[str, Any]] = []

    async def unary(self, method: str, req: Any, *, timeout: Optional[float] = None, stubs: Optional[List[Any]] = None) -> Any:
        if self.closed:
            raise RequestCancelledError(f"{method}: client is closed")
        self.calls.append((method, req))
        return None

    def lease_long(self) -> LongLease:
        return LongLease(self, _LongConnection([]))


def _capturing(handler: Handler, raised: List[BaseException]) -> Handler:
    """The handler, recording what it raises (the executor maps the exception as usual)."""

    async def capture(aw: Any) -> Any:
        try:
            return await aw
        except Exception as e:
            raised.append(e)
            raise

    if is_async_handler(handler):

        async def run_async(job: Job) -> Any:
            return await capture(handler(job))

        return run_async

    def run_sync(job: Job) -> Any:
        try:
            r = handler(job)
        except Exception as e:
            raised.append(e)
            raise
        return capture(r) if inspect.isawaitable(r) else r

    return run_sync


def _result(calls: List[Tuple[str, Any]], raw: gateway_pb2.ActivatedJob, job: Optional[Job], raised: List[BaseException]) -> HandlerResult:
    extensions = tuple(req.timeout / 1000 for m, req in calls if m == "UpdateJobTimeout")
    outcomes = [(m, req) for m, req in calls if m in ("CompleteJob", "FailJob", "ThrowError")]
    if not outcomes:
        raise AssertionError("jobwire.testing: the worker sent no outcome for the job (its deadline passed before the handler ran?)")
    method, req = outcomes[-1]
    exc = raised[-1] if raised else None
    if method == "CompleteJob":
        return HandlerResult(Outcome.COMPLETED, parse_variables(req.variables or "{}"), exception=exc, extensions=extensions, job=job)
    if method == "ThrowError":
        return HandlerResult(
            Outcome.BPMN_ERROR,
            parse_variables(req.variables or "{}"),
            error_code=req.errorCode,
            error_message=req.errorMessage,
            exception=exc,
            extensions=extensions,
            job=job,
        )
    outcome = Outcome.CANCELLED if req.errorMessage == MSG_CLOSING and req.retries == raw.retries else Outcome.FAILED
    return HandlerResult(
        outcome,
        parse_variables(req.variables or "{}"),
        retries=req.retries,
        error_message=req.errorMessage,
        retry_backoff=req.retryBackOff / 1000,
        exception=exc,
        extensions=extensions,
        job=job,
    )


async def run_handler(
    handler: Handler,
    job: Optional[Job] = None,
    *,
    auto_complete: bool = True,
    auto_extend: bool = False,
    job_timeout: Optional[Duration] = None,
    retry_backoff: Optional[Duration] = None,
    retry_policy: Optional[RetryPolicy] = None,
    middleware: Optional[Sequence[Middleware]] = None,
    cancel_after: Optional[Duration] = None,
    timeout: Duration = 10.0,
) -> HandlerResult:
    """Runs ``handler`` on ``job`` (default: ``make_job()``) exactly as a worker with these options
    would, and returns what the worker sent. ``cancel_after``: close the worker this long after the
    handler started (its close timeout): the job's cancel signal fires as on close, and a handler
    that stops hands the job back (outcome ``cancelled``). ``timeout``: give up (AssertionError)
    when the handler has not settled the job by then."""
    if job is None:
        job = make_job()
    raw = _raw_of(job)
    raised: List[BaseException] = []
    opts = resolve_worker_options(
        raw.type,
        _capturing(handler, raised),
        worker_name=raw.worker or "jobwire-testing",
        max_jobs_active=1,
        job_timeout=job_timeout,
        auto_complete=auto_complete,
        auto_extend=auto_extend,
        retry_backoff=retry_backoff,
        retry_policy=retry_policy,
        middleware=middleware,
    )
    sink = _SinkTransport()
    ledger = Ledger(1)
    errors: List[BaseException] = []
    pool = None if opts.is_async else concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="jobwire-testing")
    telemetry = Telemetry(opts.job_type, opts.worker_name, lambda: ledger.held)
    ctx = WorkerContext(
        opts=opts,
        transport=sink,
        lease=sink.lease_long(),
        ledger=ledger,
        state=StateMachine(lambda _s: None),
        telemetry=telemetry,
        logger=_LOG,
        report_error=errors.append,
        pool=pool,
    )
    executor = Executor(ctx)
    try:
        slot = ledger.try_take()
        assert slot is not None
        executor.submit(raw, slot, job.activation)
        held = executor.held.get(raw.key)
        ran = held.job if held is not None else None
        limit = to_seconds(timeout, "timeout")
        if cancel_after is not None:
            await asyncio.wait_for(executor.close(to_seconds(cancel_after, "cancel_after")), limit)
        else:
            finished = await executor._wait_idle(limit)
            if not finished:
                await executor.close(0.0)
                raise AssertionError(f"jobwire.testing: the handler did not settle job {raw.key} within {limit:g} s")
            await executor.close(0.0)
        await executor.flush(5.0)
        return _result(sink.calls, raw, ran, raised)
    finally:
        sink.closed = True
        telemetry.detach()
        if pool is not None:
            pool.shutdown(wait=False)


def run_handler_sync(handler: Handler, job: Optional[Job] = None, **options: Any) -> HandlerResult:
    """:func:`run_handler` for sync tests (runs it on a new event loop; not from a running loop)."""
    return asyncio.run(run_handler(handler, job, **options))
