"""The executor: runs handlers (at most ``concurrency`` at once) and settles their jobs through
the outcome sender. Every held job ends in exactly one slot release."""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextvars
import inspect
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Deque, Dict, List, Optional, Set

from opentelemetry import context as otel_context

from ._extender import run_extender
from ._json import variables_to_json
from ._ledger import Ledger, Slot
from ._options import WorkerOptions
from ._outcome import MAX_MESSAGE, RetryingOutcomeSender
from ._proto import gateway_pb2
from ._state import StateMachine
from ._telemetry import Telemetry
from ._transport import LongLease, Transport
from ._typed import to_output
from .errors import InvalidVariablesError, JobError, JobwireError
from .job import Job
from .retry import decide

EXPIRY_MARGIN_S = 0.1
"""A job whose deadline is closer than this when its turn comes is dropped (counted ``expired``)."""
CLOSE_GRACE_S = 1.0
"""After close's timeout cancels running handlers, how long to wait before handing their jobs back."""
MSG_CLOSING = "jobwire: worker closing; job returned"
MSG_AT_CAPACITY = "jobwire: worker at capacity; job returned"
MSG_RECYCLED = "jobwire: stream recycled; job returned"


@dataclass
class WorkerContext:
    """What the parts of one worker share."""

    opts: WorkerOptions
    transport: Transport
    lease: LongLease
    ledger: Ledger
    state: StateMachine
    telemetry: Telemetry
    logger: logging.Logger
    report_error: Callable[[BaseException], None]
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    pool: Optional[concurrent.futures.ThreadPoolExecutor] = None


class _HeldJob:
    """A job this worker holds: the activated job, its slot, and its state in the executor."""

    __slots__ = ("raw", "slot", "activation", "job", "fut", "in_handler", "running", "abandoned", "redelivery")

    def __init__(self, raw: gateway_pb2.ActivatedJob, slot: Slot, activation: str, job: Job) -> None:
        self.raw = raw
        self.slot = slot
        self.activation = activation
        self.job = job
        self.fut: Optional["asyncio.Future[Any]"] = None
        """What close() cancels: the task running an async handler (inline), else the handler's future."""
        self.in_handler = False
        """True while an inline handler runs (close() cancels the task only then, never an outcome send)."""
        self.running = False
        self.abandoned = False
        self.redelivery: Optional[tuple[gateway_pb2.ActivatedJob, Slot, str]] = None


def _uncancel() -> None:
    """Clears the current task's cancellation request once it was handled (Python 3.11+), so the
    outcome sent next is not seen as cancelled by asyncio.timeout / TaskGroup."""
    t = asyncio.current_task()
    cancelling = getattr(t, "cancelling", None)  # Python 3.11+
    if cancelling is not None and cancelling():
        getattr(t, "uncancel")()


def _error_message(e: BaseException) -> str:
    msg = str(e) or type(e).__name__
    return msg[:MAX_MESSAGE]


def _traceparent(job: Job) -> Optional[str]:
    v = job.variables.get("traceparent")
    if isinstance(v, str):
        return v
    return job.custom_headers.get("traceparent")


class Executor:
    """Queues received jobs, runs handlers, settles them through the outcome sender, hands jobs back at close."""

    def __init__(self, ctx: WorkerContext) -> None:
        self.ctx = ctx
        self.outcomes = RetryingOutcomeSender(ctx.transport, ctx.lease, ctx.logger, ctx.opts.retry_backoff)
        self.held: Dict[int, _HeldJob] = {}
        self.queue: Deque[_HeldJob] = collections.deque()
        self.running = 0
        self.closing = False
        self._sends: Set["asyncio.Task[Any]"] = set()
        self._idle: List["asyncio.Future[None]"] = []

    # --- intake ------------------------------------------------------------------------------
    def submit(self, raw: gateway_pb2.ActivatedJob, slot: Slot, activation: str, counted: bool = False) -> None:
        """Hands a received job (whose slot is already taken) to the executor."""
        ctx = self.ctx
        if not counted:
            ctx.telemetry.job_activated(activation)
        prev = self.held.get(raw.key)
        if prev is not None:
            # At-least-once delivery: the engine handed us a job we still hold.
            if not prev.job.settled:
                ctx.logger.debug("job %s delivered again while its handler runs; keeping the running attempt", raw.key)
                prev.job.deadline = max(prev.job.deadline, raw.deadline)
                slot.release()
                ctx.telemetry.job_handled("duplicate")
            else:
                ctx.logger.debug("job %s delivered again while its outcome is in flight; it runs after the acknowledgement", raw.key)
                if prev.redelivery is not None:
                    prev.redelivery[1].release()
                    ctx.telemetry.job_handled("duplicate")
                prev.redelivery = (raw, slot, activation)
            return
        try:
            job = Job(raw, activation, self.outcomes)
        except JobwireError as e:
            # Unparseable variables: the handler cannot run; fail it so it surfaces as an incident.
            ctx.report_error(JobwireError(f"job {raw.key}: {e}"))
            self._track(self._fail_then_release(raw, slot, str(e)))
            return
        h = _HeldJob(raw, slot, activation, job)
        self.held[raw.key] = h
        if self.closing:
            self._track(self._fail_back(h, MSG_CLOSING, count=True, finish=True))
            return
        self.queue.append(h)
        self._pump()

    async def _fail_then_release(self, raw: gateway_pb2.ActivatedJob, slot: Slot, msg: str) -> None:
        try:
            await self.outcomes.send_fail(raw.key, max(0, raw.retries - 1), f"jobwire: {msg}", 0.0, int(time.time() * 1000) + 10_000)
        finally:
            slot.release()

    def give_back(self, raw: gateway_pb2.ActivatedJob, activation: str, message: str = MSG_AT_CAPACITY, *, via_lease: bool = False) -> None:
        """A received job that is not run (no free slot, or drained from a closing stream):
        failed back at once (retries unchanged, no backoff), counted ``returned``."""
        self.ctx.telemetry.job_activated(activation)
        self.ctx.logger.debug("job %s: %s", raw.key, message)

        async def go() -> None:
            r = await self.outcomes.send_fail(raw.key, raw.retries, message, 0.0, min(raw.deadline, int(time.time() * 1000) + 5_000), via_lease=via_lease)
            self.ctx.telemetry.job_handled("not_found" if r == "not_found" else "returned" if r == "ok" else "undelivered")

        self._track(go())

    # --- running ---------------------------------------------------------------------------------
    def _pump(self) -> None:
        while not self.closing and self.running < self.ctx.opts.concurrency and self.queue:
            h = self.queue.popleft()
            if h.job.deadline / 1000 - time.time() < EXPIRY_MARGIN_S:
                self.ctx.logger.debug("job %s expired before its handler could start; dropped", h.raw.key)
                self.ctx.telemetry.job_handled("expired")
                self._finish(h)
                continue
            self.running += 1
            h.running = True
            asyncio.get_running_loop().create_task(self._run(h))
        self._check_idle()

    async def _run(self, h: _HeldJob) -> None:
        ctx = self.ctx
        job = h.job
        t0 = time.perf_counter()
        tel = ctx.telemetry
        span: Optional[Any] = None
        span_ctx: Optional[otel_context.Context] = None
        if tel.tracing():
            attrs = {
                "jobwire.job.key": str(job.key),
                "jobwire.job.type": job.type,
                "jobwire.job.retries": job.retries,
                "jobwire.process_instance.key": str(job.process_instance_key),
                "jobwire.bpmn_process_id": job.bpmn_process_id,
                "jobwire.element_id": job.element_id,
                "jobwire.worker.name": ctx.opts.worker_name,
                "jobwire.activation": h.activation,
            }
            span, span_ctx = tel.start_job_span(job.type, attrs, _traceparent(job))
        extender = asyncio.get_running_loop().create_task(run_extender(job, ctx.opts.job_timeout, ctx.logger)) if ctx.opts.auto_extend else None
        outcome = "completed"
        failure: Optional[BaseException] = None
        try:
            try:
                if ctx.opts.is_async or ctx.opts.middleware:
                    # Async handlers and middleware chains run in this task (no task of their own per
                    # job): close() cancels this task while the handler runs (h.in_handler), and the
                    # job's span is this task's current context around the handler only.
                    h.fut = asyncio.current_task()
                    token = otel_context.attach(span_ctx) if span_ctx is not None else None
                    h.in_handler = True
                    try:
                        result = await (self._chain(job, 0) if ctx.opts.middleware else ctx.opts.handler(job))
                    finally:
                        h.in_handler = False
                        if token is not None:
                            otel_context.detach(token)
                else:
                    token = otel_context.attach(span_ctx) if span_ctx is not None else None
                    try:
                        h.fut = self._start_handler(job)
                    finally:
                        if token is not None:
                            otel_context.detach(token)
                    result = await asyncio.shield(h.fut)
                if result is not None and inspect.isawaitable(result):  # a plain function that returned a coroutine
                    result = await result
            finally:
                if extender is not None:
                    extender.cancel()
            if h.abandoned:
                return
            if isinstance(result, JobError):
                outcome = await self._throw(job, result)
            elif ctx.opts.auto_complete and not job.settled:
                try:
                    vars_json = "" if result is None else variables_to_json(to_output(result), f"variables returned by the handler of job {job.key}")
                except InvalidVariablesError as e:
                    failure = e
                    ctx.report_error(e)
                    outcome = await self._fail_by_policy(job, e)
                    return
                outcome = await job._complete(vars_json)
            elif job.settled:
                outcome = await asyncio.shield(job._settled)
            else:
                outcome = await self._await_manual(job)
        except asyncio.CancelledError as e:
            # The handler was cancelled by close(): hand the job back, retries unchanged.
            failure = e
            _uncancel()
            if h.abandoned:
                return
            if job.settled:
                outcome = job._outcome or "cancelled"
            else:
                outcome = await self._fail_back(h, MSG_CLOSING, count=False, finish=False)
        except JobError as e:
            failure = e
            if h.abandoned:
                return
            outcome = await self._throw(job, e)
        except Exception as e:  # noqa: BLE001 - any handler error fails the job
            failure = e
            if h.abandoned:
                return
            if job.settled:
                outcome = job._outcome or "failed"
            elif self.closing and job.cancelled:
                outcome = await self._fail_back(h, MSG_CLOSING, count=False, finish=False)
            else:
                ctx.logger.debug("handler of job %s raised: %r", job.key, e)
                outcome = await self._fail_by_policy(job, e)
        finally:
            if h.abandoned:
                if span is not None:
                    Telemetry.end_job_span(span, "cancelled", failure)
            else:
                if outcome == "undelivered":
                    err = self.outcomes.last_error(job.key)
                    ctx.logger.warning("outcome of job %s was not delivered: %s", job.key, err)
                    ctx.report_error(err if err is not None else JobwireError(f"jobwire: outcome of job {job.key} was not delivered"))
                tel.job_handled(outcome, time.perf_counter() - t0)
                if span is not None:
                    Telemetry.end_job_span(span, outcome, failure)
                self.running -= 1
                h.running = False
                self._finish(h)
                self._pump()

    def _start_handler(self, job: Job) -> "asyncio.Future[Any]":
        opts = self.ctx.opts
        if opts.middleware:
            return asyncio.ensure_future(self._chain(job, 0))
        loop = asyncio.get_running_loop()
        if opts.is_async:
            return asyncio.ensure_future(opts.handler(job))
        cvars = contextvars.copy_context()
        return loop.run_in_executor(self.ctx.pool, cvars.run, opts.handler, job)

    async def _chain(self, job: Job, i: int) -> Any:
        """Middleware ``i`` around the rest of the chain; past the last one, the handler. The chain
        only produces the result: the slot, the outcome and its send stay with _run."""
        mws = self.ctx.opts.middleware
        if i < len(mws):
            r = mws[i](job, lambda: self._chain(job, i + 1))
            return await r if inspect.isawaitable(r) else r
        opts = self.ctx.opts
        if opts.is_async:
            r = opts.handler(job)
        else:
            cvars = contextvars.copy_context()
            r = await asyncio.get_running_loop().run_in_executor(self.ctx.pool, cvars.run, opts.handler, job)
        return await r if inspect.isawaitable(r) else r

    async def _fail_by_policy(self, job: Job, e: BaseException) -> str:
        """A failure's outcome, as the worker's retry policy decides: FailJob with retries - 1 and
        the policy's back-off, FailJob with retries 0 (incident), or ThrowError."""
        d = decide(self.ctx.opts.retry_policy, job, e, self.ctx.logger)
        if d.kind == "bpmn_error":
            try:
                vars_json = variables_to_json(d.variables, f"error variables of job {job.key}")
            except InvalidVariablesError as err:
                self.ctx.report_error(err)
                vars_json = ""
            return await job._throw_error(d.code, d.message or "", vars_json)
        if d.kind == "incident":
            return await job._fail((d.message or _error_message(e))[:MAX_MESSAGE], 0, 0.0)
        return await job._fail(_error_message(e), max(0, job.retries - 1), d.backoff)

    async def _throw(self, job: Job, e: JobError) -> str:
        try:
            vars_json = variables_to_json(e.variables, f"error variables of job {job.key}")
        except InvalidVariablesError as err:
            self.ctx.report_error(err)
            return await self._fail_by_policy(job, err)
        if job.settled:
            return job._outcome or "error"
        return await job._throw_error(e.code, e.message, vars_json)

    async def _await_manual(self, job: Job) -> str:
        """Manual mode: the slot stays held until an outcome is acknowledged or the deadline passes."""
        while True:
            remaining = job.deadline / 1000 - time.time()
            if remaining <= 0:
                return "unsettled"
            try:
                return await asyncio.wait_for(asyncio.shield(job._settled), timeout=remaining)
            except asyncio.TimeoutError:
                continue  # the deadline may have moved (extend_timeout)

    def _finish(self, h: _HeldJob) -> None:
        """Releases a held job's slot, exactly once; runs a waiting redelivery."""
        if self.held.get(h.raw.key) is h:
            del self.held[h.raw.key]
        self.outcomes.forget(h.raw.key)
        h.slot.release()
        nxt, h.redelivery = h.redelivery, None
        if nxt is not None:
            self.submit(nxt[0], nxt[1], nxt[2], counted=True)
        self._check_idle()

    def _check_idle(self) -> None:
        if self.running == 0 and self._idle:
            waiters, self._idle = self._idle, []
            for w in waiters:
                if not w.done():
                    w.set_result(None)

    def _track(self, coro: Any) -> "asyncio.Task[Any]":
        t: "asyncio.Task[Any]" = asyncio.get_running_loop().create_task(coro)
        self._sends.add(t)
        t.add_done_callback(self._sends.discard)
        return t

    # --- handing back ------------------------------------------------------------------------
    async def _fail_back(self, h: _HeldJob, message: str, *, count: bool, finish: bool) -> str:
        """Hands a held job back: FailJob with retries unchanged and no backoff, over the long-call
        connection (so the gateway sees the parked poll cancelled first)."""
        h.job._claimed = True
        deadline = min(h.job.deadline, int(time.time() * 1000) + 5_000)
        r = await self.outcomes.send_fail(h.raw.key, h.raw.retries, message, 0.0, deadline, via_lease=True)
        o = "not_found" if r == "not_found" else "returned" if r == "ok" else "undelivered"
        h.job._done(o)
        if count:
            self.ctx.telemetry.job_handled(o)
        if finish:
            self._finish(h)
        return o

    # --- close --------------------------------------------------------------------------------
    async def close(self, timeout: float) -> None:
        """Fails back queued jobs, waits for running handlers until ``timeout``, then cancels them;
        a handler that ignores the cancellation for CLOSE_GRACE_S is abandoned and its job failed back."""
        self.closing = True
        while self.queue:
            h = self.queue.popleft()
            self._track(self._fail_back(h, MSG_CLOSING, count=True, finish=True))
        if not await self._wait_idle(timeout):
            running = [h for h in self.held.values() if h.running]
            for h in running:
                h.job._request_cancel()
                # Async handlers are cancelled; sync ones (in a thread) see job.cancelled / cancel_event.
                if self.ctx.opts.is_async and h.in_handler and h.fut is not None and not h.fut.done():
                    h.fut.cancel()
            if not await self._wait_idle(CLOSE_GRACE_S):
                for h in [x for x in self.held.values() if x.running]:
                    h.abandoned = True
                    h.running = False
                    self.running -= 1
                    self.ctx.logger.warning("handler of job %s ignored the cancellation; its job is handed back", h.raw.key)
                    self._track(self._fail_back(h, MSG_CLOSING, count=True, finish=True))
        await self.flush(5.0)

    async def flush(self, timeout: float) -> None:
        """Waits (bounded) for outcome sends in flight."""
        if self._sends:
            await asyncio.wait(set(self._sends), timeout=timeout)

    async def _wait_idle(self, timeout: float) -> bool:
        if self.running == 0:
            return True
        fut: "asyncio.Future[None]" = asyncio.get_running_loop().create_future()
        self._idle.append(fut)
        try:
            await asyncio.wait_for(fut, timeout=max(0.0, timeout))
            return True
        except asyncio.TimeoutError:
            return self.running == 0

