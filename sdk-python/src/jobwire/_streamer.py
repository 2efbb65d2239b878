"""The streamer: StreamActivatedJobs sessions that read only with a reserved slot; a stream that ends
is reopened with backoff, each time followed by a backfill poll."""

from __future__ import annotations

import asyncio
import functools
import time
from typing import Any, List, Optional, Set, Tuple

import grpc
import grpc.aio

from ._backoff import Backoff
from ._executor import MSG_CLOSING, MSG_RECYCLED, Executor, WorkerContext
from ._poller import EOF, Poller, wait_event
from ._proto import gateway_pb2, stream_pb2
from .errors import JobwireError, activation_decision, from_rpc_error

STALL_AFTER_S = 2.0
STALL_MIN_INTERVAL_S = 10.0
DRAIN_QUIET_S = 0.05
DRAIN_MAX_S = 0.5

#: Response header by which a jobwire gateway names a job stream for ReleaseUnread.
STREAM_ID_HEADER = "jobwire-stream-id"
#: Bound on one ReleaseUnread call (as in every SDK), seconds.
RELEASE_TIMEOUT_S = 2.0


def _retrieve(t: "asyncio.Future[Any]") -> None:
    if not t.cancelled():
        t.exception()


def _task_cancelled() -> bool:
    """The current task itself is being cancelled (Python 3.11+; before, only ``aborted`` tells)."""
    cancelling = getattr(asyncio.current_task(), "cancelling", None)
    return bool(cancelling is not None and cancelling())


def _session_done(session: "_StreamSession", t: "asyncio.Task[Tuple[str, Optional[JobwireError]]]") -> None:
    """A session's task ended: its result is what the streamer waits for (unless a recycle set it)."""
    e = session.ended
    if e.done():
        # recycled earlier: the task drained; an error there must still be seen
        if not t.cancelled() and t.exception() is not None:
            session.ctx.logger.error("job stream drain failed: %r", t.exception())
    elif t.cancelled():
        e.cancel()
    elif t.exception() is not None:
        e.set_exception(t.exception())  # type: ignore[arg-type]
    else:
        e.set_result(t.result())


class _StreamSession:
    """One StreamActivatedJobs call: reserve a slot, read, hand the job over, repeat. Runs in a task
    of its own (one per stream, none per job): the streamer waits for ``ended``, which an interrupt
    (recycle) sets at once, so the next stream opens while this one drains in its task."""

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
        loop = asyncio.get_running_loop()
        self.ended: "asyncio.Future[Tuple[str, Optional[JobwireError]]]" = loop.create_future()
        """What the streamer waits for: (reason, error), set at a recycle or when run() returns."""
        self.interrupted = False
        """Set at close or recycle: the session reads no more jobs for itself, it drains."""
        self.aborted = False
        """The streamer's task was cancelled: a CancelledError is the task's own, not the call's."""
        self._holds = False
        """This session holds the stream reader's reservation in the ledger."""
        self._reading = False
        self._drain_end = 0.0
        self._quiet: Optional[asyncio.TimerHandle] = None

    def request_recycle(self, reason: str) -> None:
        if self.recycle is None:
            self.recycle = reason
            self._interrupt()
            # the streamer opens the next stream at once; this one drains in its own task
            if not self.ended.done():
                self.ended.set_result((reason, None))

    def stop(self) -> None:
        self._interrupt()

    def _interrupt(self) -> None:
        """Close or recycle: the reservation goes back to the ledger at once (a read in progress
        lands in no slot: its job is set aside and handed back), and a read in progress is ended by
        the drain's quiet timer unless a message comes first."""
        self.wake.set()
        if self.interrupted:
            return
        self.interrupted = True
        if self._holds:
            self._holds = False
            self.ctx.ledger.drop_stream()
        self._drain_end = asyncio.get_running_loop().time() + DRAIN_MAX_S  # at close too: not cut by the close timeout (rule 7)
        if self._reading:
            self._arm_quiet()

    def _arm_quiet(self) -> bool:
        """(Re)arms the drain's timer: the call is cancelled once no message came for DRAIN_QUIET_S
        (DRAIN_MAX_S after the interrupt at the latest). False: the drain's time is up."""
        loop = asyncio.get_running_loop()
        if self._quiet is not None:
            self._quiet.cancel()
            self._quiet = None
        now = loop.time()
        if now >= self._drain_end:
            return False
        self._quiet = loop.call_at(min(now + DRAIN_QUIET_S, self._drain_end), self._cancel_call)
        return True

    def _cancel_call(self) -> None:
        self._quiet = None
        if self.call is not None:
            self.call.cancel()

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
        if self.interrupted:
            return "stop" if ctx.stop.is_set() else (self.recycle or "recycled"), None
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
        loop = asyncio.get_running_loop()
        # the recycle deadline is a timer (it interrupts the waits below), not a timeout on each wait
        timer = loop.call_at(loop.time() + max(0.0, recycle_at - time.monotonic()), self.request_recycle, "recycled")
        try:
            while True:
                # Reserve a slot before each read: a busy worker stops reading, HTTP/2 flow control
                # pushes back on the gateway, and a pushed job always finds its slot.
                while not self.interrupted and not ctx.stop.is_set():
                    self.wake.clear()
                    if time.monotonic() >= recycle_at:
                        self.request_recycle("recycled")
                        break
                    if led.reserve_stream():
                        self._holds = True
                        break
                    # woken by a ledger change, stop() or the recycle timer
                    await self.wake.wait()
                if self.interrupted or ctx.stop.is_set():
                    return await self._end()
                self.reserved_since = time.monotonic()
                # The read is awaited in this task (no task or future of its own per job); an
                # interrupt lets it run on, the drain's quiet timer ends it.
                self._reading = True
                try:
                    msg = await call.read()
                except asyncio.CancelledError:
                    if self.aborted or _task_cancelled():
                        raise
                    if self.interrupted:
                        return await self._end()  # the drain's timer cancelled the call
                    self._drop()
                    if ctx.stop.is_set():
                        return "stop", None
                    return "error", JobwireError("StreamActivatedJobs: cancelled", grpc.StatusCode.CANCELLED)
                except grpc.aio.AioRpcError as e:
                    if self.interrupted:
                        return await self._end()
                    self._drop()
                    if ctx.stop.is_set():
                        return "stop", None
                    if e.code() == grpc.StatusCode.UNAUTHENTICATED:
                        ctx.transport.invalidate_token(token)
                    return "error", from_rpc_error(e, "StreamActivatedJobs")
                finally:
                    self._reading = False
                    self.reserved_since = None
                if self.interrupted:
                    # read while (or after) the session was interrupted: its reservation is gone
                    return await self._end(msg)
                if msg is EOF:
                    self._drop()
                    return "closed", None
                self.nread += 1
                self.last_delivery = time.monotonic()
                self.s.backoff.reset()
                self.s.auth_retried = False
                self._holds = False
                slot = led.claim_stream()
                if slot is not None:
                    self.s.executor.submit(msg, slot, "push")
                else:
                    self.s.executor.give_back(msg, "push")
        finally:
            timer.cancel()
            off()
            self.reserved_since = None
            if self._quiet is not None:
                self._quiet.cancel()
                self._quiet = None

    def _drop(self) -> None:
        """Gives this session's reservation back (the read failed or the stream ended)."""
        if self._holds:
            self._holds = False
            self.ctx.ledger.drop_stream()

    async def _end(self, first: Any = None) -> Tuple[str, Optional[JobwireError]]:
        """Close or recycle: drain (keep reading, set jobs aside), cancel, then hand the jobs back.
        ``first``: a message read when the interrupt came (set aside too)."""
        self._interrupt()
        if self.ctx.stop.is_set() and self.recycle is None:
            await self.drain(first, MSG_CLOSING)
            return "stop", None
        await self.drain(first, MSG_RECYCLED)
        return self.recycle or "recycled", None

    async def drain(self, first: Any, message: str) -> None:
        call = self.call
        assert call is not None
        aside: List[gateway_pb2.ActivatedJob] = []
        msg = first
        try:
            while msg is not EOF:
                if msg is not None:
                    self.nread += 1
                    aside.append(msg)
                if call.done() or not self._arm_quiet():
                    break
                try:
                    msg = await call.read()
                except asyncio.CancelledError:
                    if self.aborted or _task_cancelled():
                        raise
                    break
                except grpc.aio.AioRpcError:
                    break
        finally:
            if self._quiet is not None:
                self._quiet.cancel()
                self._quiet = None
            call.cancel()
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
        self.backoff = Backoff(settings=getattr(ctx.transport.config, "backoff", None))
        self.auth_retried = False
        self.current: Optional[_StreamSession] = None
        self.drains: Set["asyncio.Task[Any]"] = set()
        self.last_stall = float("-inf")
        self.close_timeout = DRAIN_MAX_S
        poller.streamer = self

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
                session = _StreamSession(self)
                self.current = session
                task = asyncio.get_running_loop().create_task(session.run())
                task.add_done_callback(functools.partial(_session_done, session))
                try:
                    reason, err = await session.ended
                except asyncio.CancelledError:
                    session.aborted = True
                    task.cancel()
                    raise
                finally:
                    self.current = None
                if not task.done():
                    # recycled: it drains on while the next stream opens
                    self.drains.add(task)
                    task.add_done_callback(self.drains.discard)
                if ctx.stop.is_set() or reason == "stop":
                    break
                if reason in ("recycled", "stalled"):
                    ctx.telemetry.stream_reconnect(reason)
                    ctx.logger.debug("job stream %s; reopened", reason)
                    continue
                if err is not None and activation_decision("stream", err.code) == "polling_only":
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
                    await wait_event(ctx.stop, delay)
                    continue
                ctx.telemetry.stream_reconnect("error")
                if err.code == grpc.StatusCode.UNAUTHENTICATED and ctx.transport.has_auth and not self.auth_retried:
                    self.auth_retried = True  # a new token is fetched on reopen; retry once at once
                    continue
                if activation_decision("stream", err.code) == "max_backoff_report":
                    ctx.report_error(err)
                    delay = self.backoff.max()
                else:
                    delay = self.backoff.next()
                ctx.logger.debug("job stream failed (%s: %s); reopening in %.0f ms", err.code_name, err.details, delay * 1000)
                ctx.state.stream_open = False
                ctx.state.stream_backoff = True
                ctx.state.update()
                await wait_event(ctx.stop, delay)
                ctx.state.stream_backoff = False
                ctx.state.update()
        finally:
            ctx.state.stream_open = False
            if self.drains:
                await asyncio.wait(set(self.drains), timeout=2.0)
