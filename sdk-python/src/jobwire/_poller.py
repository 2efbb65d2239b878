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
from .errors import JobwireError, activation_decision, from_rpc_error

THRESHOLD = 0.3
"""Poll only when at most this share of the capacity is held (or a backfill / fairness poll is due)."""
DEADLINE_OFFSET_S = 10.0
"""The ActivateJobs deadline is the long-poll duration plus this."""
FAIRNESS_AFTER_S = 1.0
"""While the stream keeps held above the threshold, a fairness poll is due this long after the last poll."""
STALL_PARKED_MIN_S = 0.5
"""Stall evidence (rule 6): a parked poll whose first job came at least this long after the call was sent."""
EOF: object = grpc.aio.EOF  # type: ignore[attr-defined]
"""End of a server stream (grpc.aio)."""


def is_stall_evidence(kind: str, request_timeout_s: float, first_job_after_s: Optional[float]) -> bool:
    """Rule 6: only a parked poll (not a backfill, requestTimeout >= 0) whose first job came at least
    STALL_PARKED_MIN_S after the call was sent says the stream missed jobs. A poll answered at once
    (a backfill, a fairness or "more waiting" poll, a poll that finds a backlog) says nothing."""
    return (
        kind != "backfill"
        and request_timeout_s >= 0
        and first_job_after_s is not None
        and first_job_after_s >= STALL_PARKED_MIN_S
    )


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

    def wake(self) -> None:
        """The poll took or returned its slots: the stream reader may reserve again."""
        ...

    def poll_found_jobs(self) -> None:
        """A poll (not a backfill) found jobs: stall evidence for the watchdog."""
        ...


class Poller:
    """reserve (size the request by free slots) -> receive (a slot per job) -> run -> release.
    At most one ActivateJobs call in flight."""

    def __init__(self, ctx: WorkerContext, executor: Executor) -> None:
        self.ctx = ctx
        self.exec = executor
        self.backfill_due = True  # the first poll collects the backlog
        self.more_due = False
        self.in_flight = False
        self.last_end = time.monotonic()
        self.streamer: Optional[StreamPeer] = None
        self.backoff = Backoff()
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
        """Asks for one poll even above the threshold (after a stream (re)open)."""
        self.backfill_due = True
        self._wake.set()

    def _below(self) -> bool:
        led = self.ctx.ledger
        return led.held <= led.max * THRESHOLD

    def _streaming(self) -> bool:
        return self.streamer is not None and self.ctx.state.stream_active

    def _fairness_due(self) -> bool:
        return self._streaming() and not self._below() and time.monotonic() - self.last_end >= FAIRNESS_AFTER_S

    def wants_slot(self) -> bool:
        """A backfill, "more waiting" or fairness poll is due: the stream reader leaves the next free slot to it."""
        return not self.in_flight and (self.backfill_due or (self.more_due and self._streaming()) or self._fairness_due())

    def _kind(self) -> Optional[str]:
        if self.backfill_due:
            return "backfill"
        if self._below():
            return "normal"
        if (self.more_due and self._streaming()) or self._fairness_due():
            return "fairness"
        return None

    async def run(self) -> None:
        """Runs until the worker stops; never raises."""
        ctx = self.ctx
        while not ctx.stop.is_set():
            kind = await self._wait_turn()
            if kind is None:
                break
            self.backfill_due = False
            self.more_due = False
            # Backfill (with a stream) and fairness polls do not park: they hold the stream
            # reader back only for the moment it takes to collect what waits.
            special = kind == "fairness" or (kind == "backfill" and self._streaming())
            rt = -1.0 if special else ctx.opts.request_timeout
            want = ctx.ledger.reserve_poll(ctx.ledger.free, parks=rt >= 0)
            started = time.monotonic()
            self.in_flight = True
            if self.streamer is not None:
                self.streamer.wake()  # the poll took its slots: the stream reader may reserve again
            try:
                got = await self._poll(want, rt)
            except JobwireError as e:
                self.in_flight = False
                self.last_end = time.monotonic()
                if ctx.stop.is_set():
                    break
                await self._on_error(e)
                continue
            finally:
                ctx.ledger.return_poll()
                self.in_flight = False
                self.last_end = time.monotonic()
                if self.streamer is not None:
                    self.streamer.wake()
            if ctx.stop.is_set():
                break
            self.backoff.reset()
            self._auth_retried = False
            if ctx.state.poll_backoff:
                ctx.state.poll_backoff = False
                ctx.state.update()
            ctx.telemetry.poll_request("jobs" if got > 0 else "empty")
            if got > 0 and got >= want and self._streaming():
                self.more_due = True  # there is more waiting: poll again at once
            if got > 0 and self.streamer is not None and is_stall_evidence(kind, rt, self.first_job_after):
                self.streamer.poll_found_jobs()
            if got == 0:
                long_poll = ctx.opts.request_timeout
                parked = rt >= 0 and time.monotonic() - started >= (10.0 if long_poll == 0 else long_poll) / 2
                if not parked:
                    await wait_event(ctx.stop, ctx.opts.poll_interval)

    async def _wait_turn(self) -> Optional[str]:
        ctx = self.ctx
        while not ctx.stop.is_set():
            self._wake.clear()
            kind = self._kind()
            if kind is not None and ctx.ledger.free > 0:
                return kind
            timeout: Optional[float] = None
            if self._streaming() and not self._below():
                timeout = max(0.01, self.last_end + FAIRNESS_AFTER_S - time.monotonic())
            await wait_event(self._wake, timeout)
        return None

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
        deadline = (rt if rt > 0 else 10.0 if rt == 0 else 0.0) + DEADLINE_OFFSET_S
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
        await wait_event(ctx.stop, delay)
        ctx.state.poll_backoff = False
        ctx.state.update()
