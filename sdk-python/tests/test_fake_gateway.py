"""Edge cases on an in-process fake gateway (grpc.aio server on 127.0.0.1, free port):
RESOURCE_EXHAUSTED backoff timing and state, UNIMPLEMENTED stream fallback, outcome retries,
PERMISSION_DENIED reported loudly, the idle-poll pause without long polling."""

from __future__ import annotations

import asyncio
import time
from typing import Any, AsyncIterator, List, Optional

import grpc
import grpc.aio

import jobwire
from jobwire import Client, Job, WorkerState
from jobwire._proto import gateway_pb2 as pb
from jobwire._proto import gateway_pb2_grpc as pbg


class FakeGateway(pbg.GatewayServicer):  # type: ignore[misc]
    def __init__(self) -> None:
        self.activate_times: List[float] = []
        self.activate_errors: List[grpc.StatusCode] = []  # answered in order, then jobs
        self.jobs_left = 0
        self.complete_errors: List[grpc.StatusCode] = []
        self.fail_errors: List[grpc.StatusCode] = []
        self.throw_errors: List[grpc.StatusCode] = []
        self.lose_complete_answers = 0  # apply the next CompleteJob(s), then answer ABORTED (answer lost)
        self.completed: List[int] = []
        self.failed: List[int] = []
        self.thrown: List[int] = []
        self.outcome_calls: List[tuple[str, int, str]] = []  # (method, job key, code name)
        self.complete_times: List[float] = []
        self.streams = 0
        self.next_key = 2**60

    async def ActivateJobs(self, request: pb.ActivateJobsRequest, context: Any) -> AsyncIterator[pb.ActivateJobsResponse]:
        self.activate_times.append(time.monotonic())
        if self.activate_errors:
            code = self.activate_errors.pop(0)
            await context.abort(code, f"injected {code.name}")
        n = min(self.jobs_left, request.maxJobsToActivate)
        self.jobs_left -= n
        jobs = []
        for _ in range(n):
            self.next_key += 1
            jobs.append(pb.ActivatedJob(key=self.next_key, type=request.type, retries=3, deadline=int(time.time() * 1000) + 60_000, variables="{}"))
        if jobs:
            yield pb.ActivateJobsResponse(jobs=jobs)

    async def StreamActivatedJobs(self, request: Any, context: Any) -> AsyncIterator[pb.ActivatedJob]:
        self.streams += 1
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "no streaming here")
        yield pb.ActivatedJob()  # pragma: no cover

    async def CompleteJob(self, request: pb.CompleteJobRequest, context: Any) -> pb.CompleteJobResponse:
        self.complete_times.append(time.monotonic())
        if request.jobKey in self.completed:
            await self._answer(context, "CompleteJob", request.jobKey, grpc.StatusCode.NOT_FOUND)
        if self.complete_errors:
            await self._answer(context, "CompleteJob", request.jobKey, self.complete_errors.pop(0))
        self.completed.append(request.jobKey)
        if self.lose_complete_answers > 0:
            self.lose_complete_answers -= 1
            await self._answer(context, "CompleteJob", request.jobKey, grpc.StatusCode.ABORTED)
        self.outcome_calls.append(("CompleteJob", request.jobKey, "OK"))
        return pb.CompleteJobResponse()

    async def FailJob(self, request: pb.FailJobRequest, context: Any) -> pb.FailJobResponse:
        if self.fail_errors:
            await self._answer(context, "FailJob", request.jobKey, self.fail_errors.pop(0))
        self.failed.append(request.jobKey)
        self.outcome_calls.append(("FailJob", request.jobKey, "OK"))
        return pb.FailJobResponse()

    async def ThrowError(self, request: pb.ThrowErrorRequest, context: Any) -> pb.ThrowErrorResponse:
        if self.throw_errors:
            await self._answer(context, "ThrowError", request.jobKey, self.throw_errors.pop(0))
        self.thrown.append(request.jobKey)
        self.outcome_calls.append(("ThrowError", request.jobKey, "OK"))
        return pb.ThrowErrorResponse()

    async def _answer(self, context: Any, method: str, key: int, code: grpc.StatusCode) -> None:
        self.outcome_calls.append((method, key, code.name))
        msg = "Connection RemoteClientConnection{channel=[id: 0x1]} was closed" if code == grpc.StatusCode.ABORTED else f"injected {code.name}"
        await context.abort(code, msg)


async def serve(fake: FakeGateway) -> "tuple[grpc.aio.Server, str]":
    server = grpc.aio.server()
    pbg.add_GatewayServicer_to_server(fake, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, f"127.0.0.1:{port}"


async def wait_for(cond: Any, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, "timed out"
        await asyncio.sleep(0.01)


def test_resource_exhausted_backs_off_exponentially_then_recovers() -> None:
    async def go() -> None:
        fake = FakeGateway()
        fake.activate_errors = [grpc.StatusCode.RESOURCE_EXHAUSTED] * 5
        fake.jobs_left = 1
        server, addr = await serve(fake)
        try:
            async with Client(address=addr, env={}) as client:
                states: List[str] = []
                handled: List[int] = []

                async def h(job: Job) -> None:
                    handled.append(job.key)

                w = client.worker("t", h, stream_enabled=False, request_timeout=-1, poll_interval=0.05)
                w.on_state(lambda s: states.append(s.value))
                await wait_for(lambda: len(fake.completed) == 1)
                assert handled == [2**60 + 1] and fake.completed == handled
                gaps = [b - a for a, b in zip(fake.activate_times, fake.activate_times[1:6])]
                # 50, 80, 128, 205, 328 ms (+-10 % jitter): never a tight loop, growing
                for got, want in zip(gaps, [0.05, 0.08, 0.128, 0.2048, 0.3277]):
                    assert want * 0.85 <= got <= want * 1.1 + 0.1, (gaps, want)
                assert "backoff" in states and states[-1] == "polling"
                await w.close(1)
        finally:
            await server.stop(None)

    asyncio.run(go())


def test_stream_unimplemented_falls_back_to_polling_and_idle_polls_pause() -> None:
    async def go() -> None:
        fake = FakeGateway()
        server, addr = await serve(fake)
        try:
            async with Client(address=addr, env={}) as client:
                w = client.worker("t", lambda job: None, request_timeout=-1, poll_interval=0.1)
                await asyncio.sleep(1.0)
                assert fake.streams == 1  # tried once, then polling alone
                assert w.state == WorkerState.POLLING
                # long polling off, a gateway that answers at once: ~ one poll per poll_interval
                assert 5 <= len(fake.activate_times) <= 12, len(fake.activate_times)
                await w.close(1)
        finally:
            await server.stop(None)

    asyncio.run(go())


def test_outcome_retried_on_unavailable_and_permission_denied_reported() -> None:
    async def go() -> None:
        fake = FakeGateway()
        fake.jobs_left = 2
        fake.complete_errors = [grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.PERMISSION_DENIED]
        server, addr = await serve(fake)
        try:
            async with Client(address=addr, env={}) as client:
                errors: List[BaseException] = []
                w = client.worker("t", lambda job: {"ok": True}, stream_enabled=False, max_jobs_active=1)
                w.on_error(errors.append)
                await wait_for(lambda: len(fake.completed) == 1 and len(errors) == 1)
                assert len(fake.complete_times) == 4  # 2 retried, 1 refused (undelivered), 1 ok
                assert isinstance(errors[0], jobwire.PermissionDeniedError)
                await w.close(1)
        finally:
            await server.stop(None)

    asyncio.run(go())


def test_outcomes_answered_aborted_are_retried_and_aborted_then_not_found_is_benign() -> None:
    """Zeebe's gateway answers ABORTED ("Connection ... was closed") when its connection to the
    partition leader closes mid-request. Complete, Fail and ThrowError are sent again and land; an
    outcome that was applied but whose answer was lost is answered NOT_FOUND on the resend: benign."""

    async def go() -> None:
        fake = FakeGateway()
        fake.jobs_left = 4
        aborted = grpc.StatusCode.ABORTED
        fake.complete_errors = [aborted, aborted]
        fake.fail_errors = [aborted, aborted]
        fake.throw_errors = [aborted, aborted]
        modes = ["complete", "fail", "error", "lost"]
        server, addr = await serve(fake)
        try:
            async with Client(address=addr, env={}) as client:
                errors: List[BaseException] = []

                def handler(job: Job) -> Any:
                    mode = modes.pop(0)
                    if mode == "fail":
                        raise RuntimeError("kaboom")
                    if mode == "error":
                        raise jobwire.JobError("E1", "nope")
                    if mode == "lost":
                        fake.lose_complete_answers = 1
                    return {}

                w = client.worker("t", handler, stream_enabled=False, max_jobs_active=1)
                w.on_error(errors.append)
                await wait_for(lambda: len(fake.completed) == 2 and fake.failed and fake.thrown and len(fake.outcome_calls) == 11)
                await asyncio.sleep(0.3)  # nothing more may be sent
                by = [(m, c) for m, _, c in fake.outcome_calls]
                assert by == [
                    ("CompleteJob", "ABORTED"), ("CompleteJob", "ABORTED"), ("CompleteJob", "OK"),
                    ("FailJob", "ABORTED"), ("FailJob", "ABORTED"), ("FailJob", "OK"),
                    ("ThrowError", "ABORTED"), ("ThrowError", "ABORTED"), ("ThrowError", "OK"),
                    ("CompleteJob", "ABORTED"), ("CompleteJob", "NOT_FOUND"),
                ], by
                assert errors == []
                await w.close(1)
        finally:
            await server.stop(None)

    asyncio.run(go())


def test_activation_permission_denied_is_loud_and_at_max_backoff() -> None:
    async def go() -> None:
        fake = FakeGateway()
        fake.activate_errors = [grpc.StatusCode.PERMISSION_DENIED]
        server, addr = await serve(fake)
        try:
            async with Client(address=addr, env={}) as client:
                errors: List[BaseException] = []
                w = client.worker("t", lambda job: None, stream_enabled=False)
                w.on_error(errors.append)
                await wait_for(lambda: len(errors) == 1)
                assert errors[0].code == grpc.StatusCode.PERMISSION_DENIED  # type: ignore[attr-defined]
                await asyncio.sleep(1.0)
                assert len(fake.activate_times) == 1  # waits the maximum backoff (~5 s)
                t0 = time.monotonic()
                await w.close(1)
                assert time.monotonic() - t0 < 1.0  # close interrupts the backoff
        finally:
            await server.stop(None)

    asyncio.run(go())


_unused: Optional[Any] = None


class SlowCompleteGateway(FakeGateway):
    """Answers each CompleteJob after a pause, so the outcome is still in flight when close() begins."""

    def __init__(self, pause: float) -> None:
        super().__init__()
        self.pause = pause
        self.complete_sent: List[int] = []

    async def CompleteJob(self, request: pb.CompleteJobRequest, context: Any) -> pb.CompleteJobResponse:
        self.complete_sent.append(request.jobKey)
        await asyncio.sleep(self.pause)
        return await super().CompleteJob(request, context)


def test_close_timeout_cancels_the_handler_never_the_outcome_in_flight() -> None:
    """An async handler runs in its job's own task, and close()'s timeout cancels that task only while the
    handler runs: a CompleteJob sent before the timeout ends is still answered (the job is completed, not
    handed back with FailJob), as when handlers ran in tasks of their own."""

    async def go() -> None:
        fake = SlowCompleteGateway(0.5)
        fake.jobs_left = 1
        server, addr = await serve(fake)
        try:
            async with Client(address=addr, env={}) as client:

                async def h(job: Job) -> dict[str, bool]:
                    return {"done": True}

                w = client.worker("t", h, stream_enabled=False, request_timeout=-1, poll_interval=0.05)
                await wait_for(lambda: len(fake.complete_sent) == 1)
                t0 = time.monotonic()
                await w.close(0.05)  # the timeout ends while CompleteJob waits for its answer
                assert fake.completed == [2**60 + 1], fake.outcome_calls
                assert fake.failed == [] and fake.outcome_calls == [("CompleteJob", 2**60 + 1, "OK")]
                assert time.monotonic() - t0 < 1.0  # answered within CLOSE_GRACE_S: nothing abandoned
        finally:
            await server.stop(None)

    asyncio.run(go())
