"""How many jobs does a paused Python worker park (activated for it, out of reach of other
workers), and how many does its close hand back?

A push worker with max_jobs_active=1 whose handler blocks; N instances with a payload of
SIZE bytes each are created; after the pushes settle a probe collects every activatable
job with ActivateJobs. parked = N - 1 (running) - collected. Then the worker is closed and
the probe runs again: stranded = jobs still not activatable after the close.

Usage: python bench/parked.py [--instances 200] [--size 1024] [--size 30720]
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid

from jobwire import Client, Job
from engine import DevEngine, one_task_bpmn


async def measure(address: str, n: int, size: int) -> dict:
    async with Client(address=address) as client:
        jt, pid = f"parked-{uuid.uuid4().hex[:6]}", f"p-{uuid.uuid4().hex[:6]}"
        await client.deploy_resource((f"{pid}.bpmn", one_task_bpmn(pid, jt)))
        gate = asyncio.Event()
        started = 0

        async def blocked(job: Job) -> None:
            nonlocal started
            started += 1
            await gate.wait()

        w = client.worker(jt, blocked, max_jobs_active=1, request_timeout=1)
        while w.state.value != "streaming":
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.3)
        payload = {"pad": "x" * size}
        for i in range(0, n, 50):
            await asyncio.gather(*(client.create_process_instance(pid, variables=payload) for _ in range(min(50, n - i))))
        await asyncio.sleep(2.0)
        collected = await client.activate_jobs(jt, max_jobs=n, job_timeout=2.0, request_timeout=0.5)
        parked = n - started - len(collected)
        await asyncio.sleep(4.0)  # the probe's 2 s activations lapse (the engine sweeps timeouts periodically)
        t0 = time.monotonic()
        await w.close(0.2)
        close_s = time.monotonic() - t0
        await asyncio.sleep(0.2)
        # everything that is activatable again within 1 s of the close (the probe's own 2 s
        # activations have lapsed before the close; the engine's timeout sweep may lag a little,
        # so keep collecting while jobs come back)
        after = []
        end = time.monotonic() + 1.5
        while time.monotonic() < end and len(after) < n:
            got = await client.activate_jobs(jt, max_jobs=n - len(after), job_timeout=60.0, request_timeout=0.3)
            after.extend(got)
        stranded = n - len(after)
        return {"size": size, "instances": n, "running": started, "parked": parked, "stranded_after_close": stranded, "close_s": round(close_s, 3)}


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--instances", type=int, default=200)
    ap.add_argument("--size", type=int, action="append")
    ap.add_argument("--address")
    a = ap.parse_args()
    sizes = a.size or [1024, 30720]
    if a.address:
        for s in sizes:
            print(await measure(a.address, a.instances, s), flush=True)
        return
    with DevEngine() as e:
        for s in sizes:
            print(await measure(e.address, a.instances, s), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
