"""Benchmark worker driver (../../DRIVERS.md) for Python:
``driver.py jobwire|official '<config json>'``. jobwire = the jobwire SDK (../../../sdk-python),
official = pyzeebe (pinned in ../../requirements.txt). Both define the gateway_protocol messages in
protobuf's default pool, so each runs in its own interpreter (one driver process per client)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
import time
from typing import Any, Awaitable, Callable, Dict, List, Optional, Tuple

WHICH, CFG = sys.argv[1], json.loads(sys.argv[2])
jobs = 0
lat: List[float] = []


@dataclasses.dataclass
class BenchInput:
    """The typed worker's input: the load generator's start time (epoch ms)."""

    t0: Optional[float] = None


def typed_handler(delay: float) -> Callable[[BenchInput], Awaitable[None]]:
    """The typed no-op: its only parameter is the input, so fetch_variables is derived as [t0]."""

    async def typed(inp: BenchInput) -> None:
        global jobs
        started(inp.t0)
        if delay > 0:
            await asyncio.sleep(delay)
        jobs += 1

    return typed


def emit(o: Dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(o) + "\n")
    sys.stdout.flush()


def started(t0: Any) -> None:
    if isinstance(t0, (int, float)) and t0 > 0:
        lat.append(time.time() * 1000 - t0)


async def start_jobwire() -> Tuple[str, Callable[[], Awaitable[None]]]:
    from importlib.metadata import version

    from jobwire import Client, Job, JobRouter

    client = Client(address=CFG["address"])
    for s in CFG["workers"]:
        delay = s.get("delayMs", 0) / 1000

        async def handler(job: Job, delay: float = delay) -> None:
            global jobs
            started(job.variables.get("t0"))
            if delay > 0:
                await asyncio.sleep(delay)
            jobs += 1

        kw: Dict[str, Any] = {"max_jobs_active": s.get("capacity", 32), "stream_enabled": s["mode"] == "push"}
        if s.get("pollIntervalMs"):
            kw["poll_interval"] = s["pollIntervalMs"] / 1000
        if s["mode"] == "shortpoll":
            kw["request_timeout"] = -1
        if s.get("typed"):
            # typed (DRIVERS.md): the same no-op as a typed handler; input {t0: number}, output
            # nothing, so fetch_variables is derived: t0 only
            router = JobRouter(**kw)
            for _ in range(s.get("count", 1)):
                router.job(s["jobType"])(typed_handler(delay))
            client.include_router(router)
            continue
        for _ in range(s.get("count", 1)):
            client.worker(s["jobType"], handler, **kw)

    async def close() -> None:
        await client.close(5)

    return version("jobwire"), close


async def start_official() -> Tuple[str, Callable[[], Awaitable[None]]]:
    from importlib.metadata import version

    from pyzeebe import ZeebeWorker, create_insecure_channel

    channel = create_insecure_channel(grpc_address=CFG["address"])
    ws: List[ZeebeWorker] = []
    for s in CFG["workers"]:
        delay = s.get("delayMs", 0) / 1000
        cap = s.get("capacity", 32)
        for _ in range(s.get("count", 1)):
            w = ZeebeWorker(channel, name="bench", stream_enabled=s["mode"] == "push", poll_retry_delay=1)

            # **variables: pyzeebe then fetches every variable, as the other clients do
            async def task(delay: float, **variables: Any) -> Dict[str, Any]:
                global jobs
                started(variables.get("t0"))
                if delay > 0:
                    await asyncio.sleep(delay)
                jobs += 1
                return {}

            w.task(task_type=s["jobType"], max_jobs_to_activate=cap, max_running_jobs=cap, timeout_ms=300000)(_bind(task, delay))
            ws.append(w)
    tasks = [asyncio.ensure_future(w.work()) for w in ws]
    if CFG.get("interop"):
        from pyzeebe import ZeebeClient
        zc = ZeebeClient(channel)
        tasks.append(asyncio.ensure_future(run_interop(
            CFG["interop"], zc.deploy_resource, lambda pid, i: zc.run_process(pid, variables={"n": i}))))

    async def close() -> None:
        await asyncio.wait_for(asyncio.gather(*(w.stop() for w in ws), return_exceptions=True), 5)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await channel.close()

    return version("pyzeebe"), close


async def run_interop(inp: Dict[str, Any], deploy: Callable[[str], Awaitable[Any]],
                      create: Callable[[str, int], Awaitable[Any]]) -> None:
    """interop (DRIVERS.md): this client deploys the BPMN and creates the instances, `inflight` at a time."""
    t0 = time.time()
    try:
        await deploy(inp["deploy"])
    except Exception as e:  # noqa: BLE001 - reported to the harness
        emit({"event": "created", "count": 0, "error": f"deploy: {e!r}"})
        return
    state = {"next": 0, "ok": 0, "failed": 0, "err": ""}

    async def lane() -> None:
        while state["next"] < inp["count"]:
            i = state["next"]
            state["next"] += 1
            try:
                await create(inp["processId"], i)
                state["ok"] += 1
            except Exception as e:  # noqa: BLE001 - counted and reported
                state["failed"] += 1
                state["err"] = state["err"] or repr(e)

    await asyncio.gather(*(lane() for _ in range(inp.get("inflight", 32))))
    ev = {"event": "created", "count": state["ok"], "errors": state["failed"], "ms": int((time.time() - t0) * 1000)}
    if state["err"]:
        ev["error"] = state["err"]
    emit(ev)


def _bind(task: Callable[..., Awaitable[Dict[str, Any]]], delay: float) -> Callable[..., Awaitable[Dict[str, Any]]]:
    async def bound(**variables: Any) -> Dict[str, Any]:
        return await task(delay, **variables)

    return bound


async def main() -> None:
    ver, close = await (start_official() if WHICH == "official" else start_jobwire())
    emit({"event": "ready", "client": f"python-{WHICH}", "version": ver})
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()

    def on_line() -> None:
        line = sys.stdin.readline()
        if line == "" or line.strip() == "stop":
            loop.remove_reader(sys.stdin)
            stop.set()

    loop.add_reader(sys.stdin, on_line)

    async def tick() -> None:
        while True:
            await asyncio.sleep(0.5)
            emit({"event": "progress", "jobs": jobs})

    t = asyncio.ensure_future(tick())
    await stop.wait()
    t.cancel()
    try:
        await close()
    except Exception as e:  # noqa: BLE001 - a slow close is reported, the totals still are
        print(f"close: {e!r}", file=sys.stderr)
    emit({"event": "done", "jobs": jobs, "latMs": lat})


if __name__ == "__main__":
    asyncio.run(main())
