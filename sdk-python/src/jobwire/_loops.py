"""The poll loop and the push stream of a worker."""

from __future__ import annotations

import asyncio
import time
from typing import Any, List, Optional, Set, Tuple

import grpc
import grpc.aio

from ._backoff import Backoff
from ._executor import MSG_CLOSING, MSG_RECYCLED, Executor, WorkerContext
from ._proto import gateway_pb2, stream_pb2
from .errors import JobwireError, from_rpc_error

THRESHOLD = 0.3
"""Poll only when at most this share of the capacity is held (or a backfill / fairness poll is due)."""
CANCEL_DELAY_S = 0.1
"""Held must stay above the threshold this long before a parked poll is cancelled."""
CANCEL_PARKED_POLL = False
"""A parked poll is not cancelled when the stream fills the worker (push and poll, rule 3, the same
in every SDK): a cancel drops whatever the gateway had already sent for the poll (measured under
overload in Go and Node: 1-15 jobs per cancel, each waiting out its activation timeout). What a
parked poll brings while the worker is full is handed back at once (overflow)."""
DEADLINE_OFFSET_S = 10.0
"""The ActivateJobs deadline is the long-poll duration plus this."""
FAIRNESS_AFTER_S = 1.0
"""While the stream keeps held above the threshold, a fairness poll is due this long after the last poll."""
STALL_AFTER_S = 2.0
STALL_MIN_INTERVAL_S = 10.0
DRAIN_QUIET_S = 0.05
DRAIN_MAX_S = 0.5
EOF: object = grpc.aio.EOF  # type: ignore[attr-defined]

#: Response header by which a jobwire gateway names a job stream for ReleaseUnread.
STREAM_ID_HEADER = "jobwire-stream-id"
#: Bound on one ReleaseUnread call (as in every SDK), seconds.
RELEASE_TIMEOUT_S = 2.0
"""End of a server stream (grpc.aio)."""
LOUD = frozenset({grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED})


async def _wait_event(ev: asyncio.Event, timeout: Optional[float]) -> None:
    if ev.is_set():
        return
    try:
        await asyncio.wait_for(ev.wait(), timeout=timeout)
    except asyncio.TimeoutError:
        pass


def _retrieve(t: "asyncio.Future[Any]") -> None:
    if not t.cancelled():
        t.exception()


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
        self.streamer: Optional["Streamer"] = None
        self.backoff = Backoff()
        self._auth_retried = False
        self._wake = asyncio.Event()
        self._call: Optional[Any] = None
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
                got, cancelled = await self._poll(want, rt)
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
            if cancelled:
                ctx.logger.debug("parked poll cancelled: the stream filled the worker past the poll threshold")
                ctx.telemetry.poll_request("cancelled")
                continue
            self.backoff.reset()
            self._auth_retried = False
            if ctx.state.poll_backoff:
                ctx.state.poll_backoff = False
                ctx.state.update()
            ctx.telemetry.poll_request("jobs" if got > 0 else "empty")
            if got > 0 and got >= want and self._streaming():
                self.more_due = True  # there is more waiting: poll again at once
            if got > 0 and kind != "backfill" and self.streamer is not None:
                self.streamer.poll_found_jobs()
            if got == 0:
                long_poll = ctx.opts.request_timeout
                parked = rt >= 0 and time.monotonic() - started >= (10.0 if long_poll == 0 else long_poll) / 2
                if not parked:
                    await _wait_event(ctx.stop, ctx.opts.poll_interval)

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
            await _wait_event(self._wake, timeout)
        return None

    async def _poll(self, want: int, rt: float) -> Tuple[int, bool]:
        """One ActivateJobs call; returns (jobs received, cancelled because the stream filled the worker)."""
        ctx = self.ctx
        o = ctx.opts
        # Held as the poll was decided: the awaits below (a token fetch) let the stream deliver
        # meanwhile, and a rise above the threshold in that moment must still cancel a parked poll.
        below_at_send = self._below()
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
        call = ctx.lease.stub().ActivateJobs(req, timeout=deadline, metadata=md)
        self._call = call
        if ctx.stop.is_set():
            call.cancel()
        got = 0
        state = {"cancelled": False, "below": below_at_send}
        timer: List[Optional[asyncio.TimerHandle]] = [None]
        loop = asyncio.get_running_loop()
        led = ctx.ledger

        def above() -> bool:
            return led.held > led.max * THRESHOLD

        def fire() -> None:
            timer[0] = None
            if above() and got == 0 and not state["cancelled"]:
                state["cancelled"] = True
                call.cancel()

        def on_change() -> None:
            if not above():
                state["below"] = True
                if timer[0] is not None:
                    timer[0].cancel()
                    timer[0] = None
            elif state["below"] and got == 0 and not state["cancelled"] and timer[0] is None:
                timer[0] = loop.call_later(CANCEL_DELAY_S, fire)

        off = led.on_change(on_change) if CANCEL_PARKED_POLL else (lambda: None)
        try:
            while True:
                try:
                    resp = await call.read()
                except asyncio.CancelledError:
                    if state["cancelled"] or ctx.stop.is_set():
                        return got, state["cancelled"] and got == 0
                    raise
                except grpc.aio.AioRpcError as e:
                    if state["cancelled"] or ctx.stop.is_set():
                        return got, state["cancelled"] and got == 0
                    if e.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
                        return got, False  # an idle long poll ran out: an empty poll, not an error
                    if e.code() == grpc.StatusCode.UNAUTHENTICATED:
                        ctx.transport.invalidate_token(token)
                    raise from_rpc_error(e, "ActivateJobs") from None
                if resp is EOF:
                    return got, False
                for job in resp.jobs:
                    got += 1
                    slot = led.take_poll()
                    if slot is not None:
                        self.exec.submit(job, slot, "poll")
                    else:
                        # The stream filled the capacity while this poll was parked: give the job back at once.
                        self.exec.give_back(job, "poll")
        finally:
            off()
            if timer[0] is not None:
                timer[0].cancel()
            self._call = None

    async def _on_error(self, err: JobwireError) -> None:
        ctx = self.ctx
        ctx.telemetry.poll_request("error")
        if err.code == grpc.StatusCode.UNAUTHENTICATED and ctx.transport.has_auth and not self._auth_retried:
            self._auth_retried = True  # the token was refused: fetch a new one and retry once at once
            return
        if err.code in LOUD:
            ctx.report_error(err)
            delay = self.backoff.max()
        else:
            delay = self.backoff.next()
            ctx.logger.debug("poll failed (%s: %s); backing off %.0f ms", err.code_name, err.details, delay * 1000)
        ctx.state.poll_backoff = True
        ctx.state.update()
        await _wait_event(ctx.stop, delay)
        ctx.state.poll_backoff = False
        ctx.state.update()


class _Session:
    """One StreamActivatedJobs call: reserve a slot, read, hand the job over, repeat."""

    def __init__(self, streamer: "Streamer") -> None:
        self.s = streamer
        self.ctx = streamer.ctx
        self.call: Optional[Any] = None
        self.stub: Optional[Any] = None
        # jobs taken from the stream (each is run or handed back by this worker); the gateway's
        # jobwire-stream-id response header (absent on Zeebe)
        self.nread = 0
        self.headers: Optional["asyncio.Future[Any]"] = None
        self.opened_at = time.monotonic()
        self.last_delivery = self.opened_at
        self.reserved_since: Optional[float] = None
        self.recycle: Optional[str] = None
        self.wake = asyncio.Event()
        # Set at close or recycle: ends the wait for the next message (a read never waits on
        # ledger changes, only on these).
        self.interrupt: "asyncio.Future[None]" = asyncio.get_running_loop().create_future()

    def request_recycle(self, reason: str) -> None:
        if self.recycle is None:
            self.recycle = reason
            self.wake.set()
            self.stop()

    def stop(self) -> None:
        self.wake.set()
        if not self.interrupt.done():
            self.interrupt.set_result(None)

    async def run(self) -> Tuple[str, Optional[JobwireError]]:
        """Returns (reason, error): reason is ``stop``, ``recycled``, ``stalled``, ``closed`` or ``error``."""
        ctx = self.ctx
        o = ctx.opts
        req = gateway_pb2.StreamActivatedJobsRequest(
            type=o.job_type,
            worker=o.worker_name,
            timeout=int(o.job_timeout * 1000),
            fetchVariable=list(o.fetch_variables),
            tenantIds=list(o.tenant_ids),
        )
        try:
            md, token = await ctx.transport.metadata()
        except JobwireError as e:
            return "error", e
        self.stub = ctx.lease.stub()
        call = self.stub.StreamActivatedJobs(req, metadata=md)
        self.call = call
        self.headers = asyncio.ensure_future(call.initial_metadata())
        self.headers.add_done_callback(_retrieve)
        self.opened_at = time.monotonic()
        self.last_delivery = self.opened_at
        recycle_at = self.opened_at + o.stream_timeout
        ctx.state.stream_open = True
        ctx.state.update()
        # Jobs created before the stream opened (or while it was away) are not pushed: poll for them.
        self.s.poller.request_backfill()
        led = ctx.ledger
        off = led.on_change(self.wake.set)
        read: Optional["asyncio.Task[Any]"] = None
        try:
            while True:
                # Reserve a slot before each read: a busy worker stops reading, HTTP/2 flow control
                # pushes back on the gateway, and a pushed job always finds its slot.
                while not ctx.stop.is_set() and self.recycle is None:
                    self.wake.clear()
                    if time.monotonic() >= recycle_at:
                        self.request_recycle("recycled")
                        break
                    if not self.s.poller.wants_slot() and led.try_reserve():
                        break
                    await _wait_event(self.wake, max(0.01, recycle_at - time.monotonic()))
                if ctx.stop.is_set() or self.recycle is not None:
                    return await self._end(None)
                self.reserved_since = time.monotonic()
                read = asyncio.ensure_future(call.read())
                while not read.done():
                    if ctx.stop.is_set() or self.recycle is not None:
                        break
                    if time.monotonic() >= recycle_at:
                        self.request_recycle("recycled")
                        break
                    await asyncio.wait(
                        {read, self.interrupt}, timeout=max(0.01, recycle_at - time.monotonic()), return_when=asyncio.FIRST_COMPLETED
                    )
                if not read.done():
                    return await self._end(read)
                self.reserved_since = None
                try:
                    msg = read.result()
                except asyncio.CancelledError:
                    led.drop_reservation()
                    if ctx.stop.is_set():
                        return "stop", None
                    return "error", JobwireError("StreamActivatedJobs: cancelled", grpc.StatusCode.CANCELLED)
                except grpc.aio.AioRpcError as e:
                    led.drop_reservation()
                    if ctx.stop.is_set():
                        return "stop", None
                    if e.code() == grpc.StatusCode.UNAUTHENTICATED:
                        ctx.transport.invalidate_token(token)
                    return "error", from_rpc_error(e, "StreamActivatedJobs")
                finally:
                    read = None
                if msg is EOF:
                    led.drop_reservation()
                    return "closed", None
                self.nread += 1
                self.last_delivery = time.monotonic()
                self.s.backoff.reset()
                self.s.auth_retried = False
                slot = led.claim_reserved()
                if slot is not None:
                    self.s.executor.submit(msg, slot, "push")
                else:
                    self.s.executor.give_back(msg, "push")
        finally:
            off()
            self.reserved_since = None

    async def _end(self, read: Optional["asyncio.Task[Any]"]) -> Tuple[str, Optional[JobwireError]]:
        """Close or recycle: drain (keep reading, set jobs aside), cancel, then hand the jobs back."""
        self.ctx.ledger.drop_reservation()
        if self.ctx.stop.is_set():
            await self.drain(read, MSG_CLOSING)
            return "stop", None
        reason = self.recycle or "recycled"
        t = asyncio.get_running_loop().create_task(self.drain(read, MSG_RECYCLED))
        self.s.drains.add(t)
        t.add_done_callback(self.s.drains.discard)
        return reason, None

    async def drain(self, read: Optional["asyncio.Task[Any]"], message: str) -> None:
        call = self.call
        assert call is not None
        aside: List[gateway_pb2.ActivatedJob] = []
        end = time.monotonic() + DRAIN_MAX_S  # at close too: not cut by the close timeout (rule 7)
        try:
            while True:
                remaining = min(DRAIN_QUIET_S, end - time.monotonic())
                if remaining <= 0:
                    break
                if read is None:
                    read = asyncio.ensure_future(call.read())
                done, _ = await asyncio.wait({read}, timeout=remaining)
                if not done:
                    break
                r, read = read, None
                if r.cancelled() or r.exception() is not None:
                    break
                msg = r.result()
                if msg is EOF:
                    break
                self.nread += 1
                aside.append(msg)
        finally:
            call.cancel()
            if read is not None:
                read.add_done_callback(_retrieve)
        await self.release_unread()
        # Handing back after the cancel keeps the engine from pushing the same jobs into this stream.
        for job in aside:
            self.s.executor.give_back(job, "push", message, via_lease=True)
        if aside:
            self.ctx.logger.debug("stream drained: %d job(s) handed back", len(aside))


    async def release_unread(self) -> None:
        """Asks a jobwire gateway to hand back what the (cancelled) stream sent and this worker never
        read: jobs still in transport when the drain ended (docs/worker-semantics.md, push and poll
        rule 7). The count is final: the call is cancelled and a read still pending is never run. A
        gateway without the stream id header (Zeebe) is not asked; an error is logged at debug level
        (those jobs return after their activation timeout)."""
        read = self.nread
        h = self.headers
        if h is None or self.stub is None:
            return
        if not h.done():
            await asyncio.wait({h}, timeout=RELEASE_TIMEOUT_S)
        if not h.done() or h.cancelled() or h.exception() is not None:
            return
        ids = [v for k, v in (h.result() or ()) if k == STREAM_ID_HEADER]
        if len(ids) != 1 or not isinstance(ids[0], str):
            return
        ctx = self.ctx
        try:
            md, _ = await ctx.transport.metadata()
            r = await ctx.lease.control_for(self.stub).ReleaseUnread(
                stream_pb2.ReleaseUnreadRequest(stream_id=ids[0], messages_read=read), metadata=md, timeout=RELEASE_TIMEOUT_S
            )
            if r.released > 0:
                ctx.logger.debug("released %d unread job(s) of the job stream (sent %d, read %d)", r.released, r.messages_sent, read)
        except (grpc.aio.AioRpcError, JobwireError) as e:
            ctx.logger.debug("could not release the job stream's unread jobs; they return after their activation timeout: %s", e)


class Streamer:
    """The push loop over StreamActivatedJobs. A stream that fails is reopened with backoff, forever,
    each time followed by a backfill poll; a clean close reopens at once; UNIMPLEMENTED turns streaming
    off (polling alone), logged once."""

    def __init__(self, ctx: WorkerContext, executor: Executor, poller: Poller) -> None:
        self.ctx = ctx
        self.executor = executor
        self.poller = poller
        self.backoff = Backoff()
        self.auth_retried = False
        self.current: Optional[_Session] = None
        self.drains: Set["asyncio.Task[None]"] = set()
        self.last_stall = float("-inf")
        self.close_timeout = DRAIN_MAX_S
        poller.streamer = self

    def wake(self) -> None:
        """Re-evaluates whether the reader may reserve a slot."""
        if self.current is not None:
            self.current.wake.set()

    def stop(self) -> None:
        """Close began: the current session drains."""
        if self.current is not None:
            self.current.stop()

    def poll_found_jobs(self) -> None:
        """Stall watchdog: a poll found jobs while the stream, holding a reserved slot, delivered nothing for 2 s."""
        s = self.current
        now = time.monotonic()
        if (
            s is not None
            and s.reserved_since is not None
            and now - s.reserved_since >= STALL_AFTER_S
            and now - s.last_delivery >= STALL_AFTER_S
            and now - self.last_stall >= STALL_MIN_INTERVAL_S
        ):
            self.last_stall = now
            self.ctx.logger.info("job stream of %s delivered nothing while polls found jobs; recycling it", self.ctx.opts.job_type)
            s.request_recycle("stalled")

    async def run(self) -> None:
        """Runs until the worker stops or the gateway lacks streaming; never raises."""
        ctx = self.ctx
        ctx.state.stream_active = True
        try:
            while not ctx.stop.is_set():
                session = _Session(self)
                self.current = session
                try:
                    reason, err = await session.run()
                finally:
                    self.current = None
                if ctx.stop.is_set() or reason == "stop":
                    break
                if reason in ("recycled", "stalled"):
                    ctx.telemetry.stream_reconnect(reason)
                    ctx.logger.debug("job stream %s; reopened", reason)
                    continue
                if err is not None and err.code == grpc.StatusCode.UNIMPLEMENTED:
                    ctx.logger.warning("the gateway does not implement StreamActivatedJobs; worker %s polls only", ctx.opts.job_type)
                    ctx.state.stream_active = False
                    ctx.state.stream_open = False
                    ctx.state.update()
                    return
                if err is None:
                    # A clean server-side close is expected: reopen at once (debug), unless the stream
                    # lived less than 1 s, then after the shared backoff so we never hammer the gateway.
                    ctx.telemetry.stream_reconnect("closed")
                    if time.monotonic() - session.opened_at >= 1.0:
                        self.backoff.reset()
                        ctx.logger.debug("job stream closed by the gateway; reopening")
                        continue
                    delay = self.backoff.next()
                    ctx.logger.debug("job stream closed right after opening; reopening in %.0f ms", delay * 1000)
                    await _wait_event(ctx.stop, delay)
                    continue
                ctx.telemetry.stream_reconnect("error")
                if err.code == grpc.StatusCode.UNAUTHENTICATED and ctx.transport.has_auth and not self.auth_retried:
                    self.auth_retried = True  # a new token is fetched on reopen; retry once at once
                    continue
                if err.code in LOUD:
                    ctx.report_error(err)
                    delay = self.backoff.max()
                else:
                    delay = self.backoff.next()
                ctx.logger.debug("job stream failed (%s: %s); reopening in %.0f ms", err.code_name, err.details, delay * 1000)
                ctx.state.stream_open = False
                ctx.state.stream_backoff = True
                ctx.state.update()
                await _wait_event(ctx.stop, delay)
                ctx.state.stream_backoff = False
                ctx.state.update()
        finally:
            ctx.state.stream_open = False
            if self.drains:
                await asyncio.wait(set(self.drains), timeout=2.0)
