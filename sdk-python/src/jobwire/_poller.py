"""The poller: reserve slots -> ActivateJobs -> hand the jobs to the executor; at most one poll in flight."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Optional, Protocol

import grpc
import grpc.aio

from ._backoff import Backoff
from ._executor import Executor, WorkerContext
from ._proto import gateway_pb2
from ._pollplan import PollInput, after_poll, empty_poll_pause, plan_poll, poll_deadline
from .errors import JobwireError, activation_decision, from_rpc_error

EOF: object = grpc.aio.EOF  # type: ignore[attr-defined]
"""End of a server stream (grpc.aio)."""


async def wait_event(ev: asyncio.Event, timeout: Optional[float]) -> None:
    """Waits until ``ev`` is set or ``timeout`` seconds passed (None: no limit)."""
    if ev.is_set():
        return
    try:
        await asyncio.wait_for(ev.wait(), timeout=timeout)
    except asyncio.TimeoutError:
        pass


class StreamPeer(Protocol):
    """What the poller tells the streamer (the streamer registers itself as ``Poller.streamer``)."""

    def poll_found_jobs(self) -> None:
        """A long poll (not a backfill) found jobs late: stall evidence for the watchdog."""
        ...


class Poller:
    """reserve (size the request by free slots) -> receive (a slot per job) -> run -> release.
    At most one ActivateJobs call in flight; what to send is decided by plan_poll, what an answer
    means by after_poll (_pollplan.py)."""

    def __init__(self, ctx: WorkerContext, executor: Executor) -> None:
        self.ctx = ctx
        self.exec = executor
        self.backfill_due = True  # the first poll collects the backlog
        self.due = False  # the last poll got all it asked for while pushing: more is waiting
        self.last_end = time.monotonic()
        self.streamer: Optional[StreamPeer] = None
        self.backoff = Backoff(settings=getattr(ctx.transport.config, "backoff", None))
        self._auth_retried = False
        self._wake = asyncio.Event()
        self._call: Optional[Any] = None
        self.first_job_after: Optional[float] = None  # seconds from sending the last poll to its first job
        ctx.ledger.on_change(self._wake.set)

    def wake(self) -> None:
        """Re-evaluates whether a poll is due."""
        self._wake.set()

    def stop(self) -> None:
        """Cancels the parked poll at once (close)."""
        if self._call is not None:
            self._call.cancel()
        self._wake.set()

    def request_backfill(self) -> None:
        """Asks for one poll even above the threshold (after a stream (re)open); the stream reader
        leaves the next free slot to it (not while the poller rests: a sleeping poller has no poll
        due, and it marks the backfill due itself when it wakes and finds no free slot)."""
        self.backfill_due = True
        self.ctx.ledger.set_poll_due(True)
        self._wake.set()

    def _input(self) -> PollInput:
        ctx = self.ctx
        free, below = ctx.ledger.poll_wanted()
        streaming = self.streamer is not None and ctx.state.stream_active
        return PollInput(
            free=free,
            below=below,
            pushing=streaming and ctx.state.stream_open,
            backfill=self.backfill_due,
            due=self.due,
            since_last_end=time.monotonic() - self.last_end,
            stream_enabled=streaming,
            request_timeout=ctx.opts.request_timeout,
        )

    async def run(self) -> None:
        """Runs until the worker stops; never raises."""
        ctx = self.ctx
        led = ctx.ledger
        while not ctx.stop.is_set():
            self._wake.clear()
            now = self._input()
            plan = plan_poll(now)
            if plan.mark_due:
                led.set_poll_due(True)  # the stream reader leaves the next free slot to this poll
            if not plan.send:
                await wait_event(self._wake, plan.fairness_in)
                continue
            asked = led.reserve_poll(plan.ask, plan.parks)
            if asked == 0:
                continue
            self.backfill_due = False
            rt = plan.request_timeout
            started = time.monotonic()
            got = 0
            err: Optional[JobwireError] = None
            try:
                got = await self._poll(asked, rt)
            except JobwireError as e:
                err = e
            finally:
                led.return_poll()
                self.last_end = time.monotonic()
            after = after_poll(now.pushing, err is not None, asked, got, now.backfill, plan.parks, self.first_job_after)
            self.due = after.due
            if ctx.stop.is_set():
                break
            if err is not None:
                await self._on_error(err)
                continue
            self.backoff.reset()
            self._auth_retried = False
            if ctx.state.poll_backoff:
                ctx.state.poll_backoff = False
                ctx.state.update()
            ctx.telemetry.poll_request("jobs" if got > 0 else "empty")
            if after.stall and self.streamer is not None:
                self.streamer.poll_found_jobs()
            if got == 0 and empty_poll_pause(rt, time.monotonic() - started):
                await self._rest(ctx.opts.poll_interval)

    async def _rest(self, delay: float) -> None:
        """Pauses the poller (poll interval after an empty answer, back-off after an error). No poll
        is due meanwhile (``Ledger.rest_poll``): the stream reader is not held back, even by a stream
        that reopens and marks its backfill poll due during a long back-off."""
        led = self.ctx.ledger
        led.rest_poll(True)
        try:
            await wait_event(self.ctx.stop, delay)
        finally:
            led.rest_poll(False)

    async def _poll(self, want: int, rt: float) -> int:
        """One ActivateJobs call; returns the number of jobs received. A parked poll is never cancelled
        because the stream filled the worker (rule 3): only close cancels it, and what it brings while
        the worker is full is handed back at once."""
        ctx = self.ctx
        o = ctx.opts
        req = gateway_pb2.ActivateJobsRequest(
            type=o.job_type,
            worker=o.worker_name,
            timeout=int(o.job_timeout * 1000),
            maxJobsToActivate=want,
            fetchVariable=list(o.fetch_variables),
            requestTimeout=int(rt * 1000) if rt >= 0 else -1,
            tenantIds=list(o.tenant_ids),
        )
        deadline = poll_deadline(rt)
        md, token = await ctx.transport.metadata()
        self.first_job_after = None
        sent = time.monotonic()
        call = ctx.lease.stub().ActivateJobs(req, timeout=deadline, metadata=md)
        self._call = call
        if ctx.stop.is_set():
            call.cancel()
        got = 0
        led = ctx.ledger
        try:
            while True:
                try:
                    resp = await call.read()
                except asyncio.CancelledError:
                    if ctx.stop.is_set():
                        return got
                    raise
                except grpc.aio.AioRpcError as e:
                    if ctx.stop.is_set():
                        return got
                    if e.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
                        return got  # an idle long poll ran out: an empty poll, not an error
                    if e.code() == grpc.StatusCode.UNAUTHENTICATED:
                        ctx.transport.invalidate_token(token)
                    raise from_rpc_error(e, "ActivateJobs") from None
                if resp is EOF:
                    return got
                if resp.jobs and self.first_job_after is None:
                    self.first_job_after = time.monotonic() - sent
                for job in resp.jobs:
                    got += 1
                    slot = led.take_poll()
                    if slot is not None:
                        self.exec.submit(job, slot, "poll")
                    else:
                        # The stream filled the capacity while this poll was parked: give the job back at once.
                        self.exec.give_back(job, "poll")
        finally:
            self._call = None

    async def _on_error(self, err: JobwireError) -> None:
        ctx = self.ctx
        ctx.telemetry.poll_request("error")
        if err.code == grpc.StatusCode.UNAUTHENTICATED and ctx.transport.has_auth and not self._auth_retried:
            self._auth_retried = True  # the token was refused: fetch a new one and retry once at once
            return
        if activation_decision("poll", err.code) == "max_backoff_report":
            ctx.report_error(err)
            delay = self.backoff.max()
        else:
            delay = self.backoff.next()
            ctx.logger.debug("poll failed (%s: %s); backing off %.0f ms", err.code_name, err.details, delay * 1000)
        ctx.state.poll_backoff = True
        ctx.state.update()
        await self._rest(delay)
        ctx.state.poll_backoff = False
        ctx.state.update()
