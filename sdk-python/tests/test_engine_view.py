"""Checks on the engine's own view (the reference engine's admin API, jobwire.admin.v1):
injected RESOURCE_EXHAUSTED makes the worker back off (growing delays, state `backoff`) and
recover; a poll worker never has more jobs activated than max_jobs_active."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator, List, Tuple

import grpc
import pytest

from jobwire import Client, Job
from conftest import one_task_bpmn, unique
from engine import ROOT, Engine


@pytest.fixture(scope="module")
def admin_pb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tuple[Any, Any]]:
    """admin_pb2 / admin_pb2_grpc generated from proto/ (under a module name that does not
    clash with the `jobwire` package)."""
    out = tmp_path_factory.mktemp("adminpb")
    src = out / "src" / "jwadmin"
    src.mkdir(parents=True)
    shutil.copy(ROOT / "proto" / "jobwire" / "admin" / "v1" / "admin.proto", src / "admin.proto")
    r = subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{out / 'src'}", f"--python_out={out}", f"--grpc_python_out={out}", str(src / "admin.proto")],
        capture_output=True, text=True,
    )
    assert r.returncode == 0, r.stderr
    (out / "jwadmin" / "__init__.py").write_text("")
    sys.path.insert(0, str(out))
    from jwadmin import admin_pb2, admin_pb2_grpc  # type: ignore[import-not-found]

    yield admin_pb2, admin_pb2_grpc
    sys.path.remove(str(out))


def test_resource_exhausted_backoff_on_the_engine(engine: Engine, admin_pb: Tuple[Any, Any]) -> None:
    pb, pbg = admin_pb
    admin = pbg.AdminServiceStub(grpc.insecure_channel(engine.address))
    try:

        async def go() -> None:
            async with Client(address=engine.address) as client:
                jt, pid = unique("rex"), unique("p")
                await client.deploy_resource((f"{pid}.bpmn", one_task_bpmn(pid, jt)))
                admin.InjectFault(pb.InjectFaultRequest(reject=pb.RejectFault(method="ActivateJobs", code=8, count=5, message="injected backpressure")))
                states: List[Tuple[float, str]] = []
                done: List[int] = []

                async def h(job: Job) -> None:
                    done.append(job.key)

                t0 = time.monotonic()
                w = client.worker(jt, h, stream_enabled=False)
                w.on_state(lambda s: states.append((time.monotonic() - t0, s.value)))
                res = await client.create_process_instance_with_result(pid, request_timeout=20)
                assert res.process_instance_key > 0 and len(done) == 1
                names = [s for _, s in states]
                assert "backoff" in names and names[-1] == "polling", names
                back = [t for t, s in states if s == "backoff"]
                recovered = [t for t, s in states if s == "polling"][-1]
                # 5 rejections: 50 + 80 + 128 + 205 + 328 ms of backoff (+-10 %), never a tight loop
                assert 0.65 <= recovered - back[0] <= 2.5, states
                await w.close(1)

        asyncio.run(asyncio.wait_for(go(), 60))
    finally:
        admin.ClearFaults(pb.ClearFaultsRequest())


def test_engine_never_sees_more_activated_than_capacity(engine: Engine, admin_pb: Tuple[Any, Any]) -> None:
    pb, pbg = admin_pb
    admin = pbg.AdminServiceStub(grpc.insecure_channel(engine.address))

    async def go() -> None:
        async with Client(address=engine.address) as client:
            jt, pid = unique("cap"), unique("p")
            await client.deploy_resource((f"{pid}.bpmn", one_task_bpmn(pid, jt)))

            async def slow(job: Job) -> None:
                await asyncio.sleep(0.1)

            w = client.worker(jt, slow, max_jobs_active=3, stream_enabled=False)
            peak = 0
            stop = False

            async def sample() -> None:
                nonlocal peak
                while not stop:
                    r = await asyncio.to_thread(admin.ListJobs, pb.ListJobsRequest(type=jt))
                    peak = max(peak, r.counts_by_state.get("ACTIVATED", 0))
                    await asyncio.sleep(0.01)

            s = asyncio.ensure_future(sample())
            await asyncio.gather(*(client.create_process_instance_with_result(pid, request_timeout=30) for _ in range(15)))
            stop = True
            await s
            assert 2 <= peak <= 3, peak
            await w.close(1)

    asyncio.run(asyncio.wait_for(go(), 60))
