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
        self.completed: List[int] = []
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
        if self.complete_errors:
            code = self.complete_errors.pop(0)
            await context.abort(code, f"injected {code.name}")
        self.completed.append(request.jobKey)
        return pb.CompleteJobResponse()


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
