"""No-op worker throughput and latency against `jobwire-engine dev`: jobwire (push, poll)
beside pyzeebe (push, poll), in the same run on the same engine.

Each case: a fresh job type, the worker starts, then a separate process creates N instances
(64 in flight) carrying their creation time; the handler records creation -> handler start.
Reported: jobs/s (N / time from the first creation to the last handled job) and p50/p99/max
of that latency.

Each case runs in its own process (pyzeebe and jobwire both register the gateway_protocol
messages in protobuf's default descriptor pool, so they cannot share one interpreter).

Usage: python bench/throughput.py [--instances 3000] [--capacity 32]
"""

from __future__ import annotations

import argparse
import json
import asyncio
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Dict, List

from engine import DevEngine, one_task_bpmn

HERE = Path(__file__).resolve().parent


async def deploy(address: str, jt: str) -> str:
    from jobwire import Client

    pid = f"bench-{uuid.uuid4().hex[:6]}"
    async with Client(address=address) as c:
        await c.deploy_resource((f"{pid}.bpmn", one_task_bpmn(pid, jt)))
    return pid


async def deploy_pyzeebe(address: str, jt: str) -> str:
    import tempfile

    from pyzeebe import ZeebeClient, create_insecure_channel

    pid = f"bench-{uuid.uuid4().hex[:6]}"
    path = Path(tempfile.mkdtemp()) / f"{pid}.bpmn"
    path.write_bytes(one_task_bpmn(pid, jt))
    ch = create_insecure_channel(grpc_address=address)
    await ZeebeClient(ch).deploy_resource(str(path))
    await ch.close()
    return pid


async def drive(address: str, pid: str, n: int, lat: List[float], start_worker: Callable[[], Any], stop_worker: Callable[[], Any]) -> Dict[str, Any]:
    await start_worker()
    await asyncio.sleep(1.0)  # stream open, backfill poll parked
    t0 = time.time()
    proc = await asyncio.create_subprocess_exec(sys.executable, str(HERE / "create.py"), address, pid, str(n), "64")
    while len(lat) < n:
        await asyncio.sleep(0.01)
        if time.time() - t0 > 300:
            break
    t1 = time.time()
    await proc.wait()
    await stop_worker()
    ls = sorted(lat)
    return {
        "jobs": len(ls),
        "jobs_per_s": round(len(ls) / (t1 - t0), 1),
        "p50_ms": round(statistics.median(ls) * 1000, 1),
        "p99_ms": round(ls[int(len(ls) * 0.99) - 1] * 1000, 1),
        "max_ms": round(ls[-1] * 1000, 1),
    }


async def jobwire_case(address: str, n: int, cap: int, push: bool) -> Dict[str, Any]:
    from jobwire import Client, Job

    jt = f"bench-jw-{uuid.uuid4().hex[:6]}"
    pid = await deploy(address, jt)
    lat: List[float] = []
    client = Client(address=address)

    async def handler(job: Job) -> None:
        lat.append(time.time() - job.variables["t0"])

    async def start() -> None:
        client.worker(jt, handler, max_jobs_active=cap, stream_enabled=push)

    async def stop() -> None:
        await client.close(5)

    return await drive(address, pid, n, lat, start, stop)


async def pyzeebe_case(address: str, n: int, cap: int, push: bool) -> Dict[str, Any]:
    from pyzeebe import ZeebeWorker, create_insecure_channel

    jt = f"bench-pz-{uuid.uuid4().hex[:6]}"
    pid = await deploy_pyzeebe(address, jt)
    lat: List[float] = []
    channel = create_insecure_channel(grpc_address=address)
    worker = ZeebeWorker(channel, name="bench", stream_enabled=push, poll_retry_delay=1)

    @worker.task(task_type=jt, max_jobs_to_activate=cap, max_running_jobs=cap)
    async def task(t0: float) -> Dict[str, Any]:
        lat.append(time.time() - t0)
        return {}

    holder: Dict[str, Any] = {}

    async def start() -> None:
        holder["t"] = asyncio.ensure_future(worker.work())

    async def stop() -> None:
        await worker.stop()
        holder["t"].cancel()
        try:
            await holder["t"]
        except BaseException:  # noqa: BLE001
            pass
        await channel.close()

    return await drive(address, pid, n, lat, start, stop)


CASES = {
    "jobwire-push": (jobwire_case, True),
    "jobwire-poll": (jobwire_case, False),
    "pyzeebe-push": (pyzeebe_case, True),
    "pyzeebe-poll": (pyzeebe_case, False),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--instances", type=int, default=3000)
    ap.add_argument("--capacity", type=int, default=32)
    ap.add_argument("--case", choices=sorted(CASES))
    ap.add_argument("--address")
    a = ap.parse_args()
    if a.case:
        fn, push = CASES[a.case]
        print(json.dumps(asyncio.run(fn(a.address, a.instances, a.capacity, push))), flush=True)
        return
    with DevEngine() as e:
        print(f"jobwire-engine dev {e.address}; {a.instances} instances (64 in flight), capacity {a.capacity}", flush=True)
        for case in CASES:
            out = subprocess.run(
                [sys.executable, __file__, "--case", case, "--address", e.address, "--instances", str(a.instances), "--capacity", str(a.capacity)],
                capture_output=True, text=True, timeout=600,
            )
            line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else out.stderr[-500:]
            print(f"{case:14s} {line}", flush=True)


if __name__ == "__main__":
    main()
